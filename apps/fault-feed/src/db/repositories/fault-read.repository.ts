/**
 * SQL of the fault reads (fault-read.service.ts) and the feed's
 * retention, all on the faults schema:
 * - `openPage`: one frame page (service-kit read-frame.ts; rendered as JSON by PostgreSQL) of the
 *   connection's open occurrences in open-sequence order (`fault_occurrence_open_idx`, migration
 *   0003), hidden vehicles left out;
 * - `eventsPage`: one frame page of the transitions after a sequence in sequence order
 *   (`fault_transition_sequence_unique`); a transition whose vehicle is hidden now is not served
 *   but the position moves past it (`shown`);
 * Hidden: the one visibility rule of every context (decision 0029), service-kit's visibilityCte /
 * visibleVehicleSql over the occurrence's `vcl_` and provider ids — hidden until the directory's
 * set has arrived, when the set lists it, when the held configuration's lists leave it out.
 * - `prunedThrough` / `prune`: the retention horizon per connection and the pruning statement;
 * - `pruneClearedOccurrences`: cleared occurrences nothing needs any more (decision 0030).
 *
 * Why "sequence > after" never skips an event (the durable cursor's guarantee): every fault batch
 * of a connection runs under the connection's transaction-scoped advisory lock and reserves its
 * sequences by updating the connection's `fault_sequence` row (fault.repository.ts), both held
 * until its commit. The next batch of the connection can only reserve after that commit, so
 * sequences become visible strictly in commit order and every snapshot sees a gap-free prefix of
 * the feed: a reader that saw sequence n has seen every sequence below n, and no transaction can
 * still commit a smaller one. (A plain PostgreSQL sequence would break this: nextval is not
 * transactional, a slower transaction could commit n after a reader passed n + 1 — the mutation
 * the concurrency test in test/fault-feed-concurrency.int-spec.ts names.)
 */
import { isoSql, query, readQuery, tableNamer, type Em } from '@switchyard/persistence';
import { readFrame, visibilityCte, visibleVehicleSql, type FramedPage } from '@switchyard/service-kit';

/** Fault pages are bounded by their limit (at most 1,000 × a few hundred bytes, far below a NATS payload), not by bytes. */
const UNBOUNDED_BYTES = Number.MAX_SAFE_INTEGER;

export class FaultReadRepository {
  /** One frame page of open occurrences of visible vehicles with open_sequence > `after`, each a public Fault. */
  openPage(em: Em, connectionId: string, after: string, limit: number): Promise<FramedPage<string>> {
    const t = tableNamer(em);
    return readFrame(
      em,
      {
        sql: `with ${visibilityCte(t)}
         select json_build_object('id', o.id, 'vehicle_id', o.vehicle_id, 'fault_key', o.fault_key, 'code', o.code, 'opened_at', ${isoSql('o.opened_at')},
                  'bootstrap', o.bootstrap, 'description', o.description) as body,
                to_json(o.open_sequence::text) as position
           from ${t('fault_occurrence')} o
          where o.connection_id = ?::uuid and o.cleared_at is null and o.open_sequence > ?::bigint
            and ${visibleVehicleSql('o.vehicle_id', 'o.vehicle_source_id')}
          order by o.open_sequence`,
        params: [connectionId, connectionId, after],
      },
      { limit, maxBytes: UNBOUNDED_BYTES },
    );
  }

  /**
   * One frame page of the transitions with sequence > `after`, each a public FaultEvent; those of
   * vehicles hidden now count against `limit` and move the position past them, unserved.
   */
  eventsPage(em: Em, connectionId: string, after: string, limit: number): Promise<FramedPage<string>> {
    const t = tableNamer(em);
    return readFrame(
      em,
      {
        sql: `with ${visibilityCte(t)}
         select json_build_object('id', t.id, 'sequence', t.sequence, 'connection_id', t.connection_id, 'occurrence_id', t.occurrence_id, 'vehicle_id', o.vehicle_id,
                  'kind', t.kind, 'observed_at', ${isoSql('t.observed_at')}, 'bootstrap', t.bootstrap) as body,
                to_json(t.sequence::text) as position,
                ${visibleVehicleSql('o.vehicle_id', 'o.vehicle_source_id')} as shown
           from ${t('fault_transition')} t join ${t('fault_occurrence')} o on o.id = t.occurrence_id
          where t.connection_id = ?::uuid and t.sequence > ?::bigint
          order by t.sequence`,
        params: [connectionId, connectionId, after],
        passesHidden: true,
      },
      { limit, maxBytes: UNBOUNDED_BYTES },
    );
  }

  /** The highest sequence pruned from the connection's feed; '0' when nothing was. */
  async prunedThrough(em: Em, connectionId: string): Promise<string> {
    const [row] = await readQuery<{ pruned_through: string }>(em, `select pruned_through::text as pruned_through from ${tableNamer(em)('fault_retention')} where connection_id = ?::uuid`, [connectionId]);
    return row?.pruned_through ?? '0';
  }

  /**
   * Deletes, per connection, the published transitions up to the highest sequence committed
   * before `cutoff` (a prefix of the feed, never a hole in it) and records how far it pruned.
   * Returns how many transitions went.
   */
  async prune(em: Em, cutoff: Date): Promise<number> {
    const t = tableNamer(em);
    const [row] = await query<{ pruned: string }>(
      em,
      `with cut as (
         select connection_id, max(sequence) as through from ${t('fault_transition')} where created_at < ? and published_at is not null group by connection_id
       ), gone as (
         delete from ${t('fault_transition')} x using cut where x.connection_id = cut.connection_id and x.sequence <= cut.through and x.published_at is not null
         returning x.connection_id, x.sequence
       ), marked as (
         insert into ${t('fault_retention')} as r (connection_id, pruned_through, pruned_at)
         select connection_id, max(sequence), now() from gone group by connection_id
         on conflict (connection_id) do update set pruned_through = greatest(r.pruned_through, excluded.pruned_through), pruned_at = excluded.pruned_at
         returning 1
       )
       select count(*)::text as pruned from gone`,
      [cutoff.toISOString()],
    );
    return Number(row?.pruned ?? 0);
  }

  /**
   * Deletes at most `limit` cleared occurrences that nothing needs any more (decision 0030): cleared
   * before `clearedBefore`, with no transition left on the feed (the feed joins each transition to
   * its occurrence: deleting one still referenced would drop an event from a stored cursor's walk),
   * and not the newest clear of their vehicle and fault key (derivation of explicit records reads
   * it: a late record observed before that clear must not open the fault again). Never an open one.
   * Rows another pass holds are skipped. Returns how many went.
   */
  async pruneClearedOccurrences(em: Em, clearedBefore: Date, limit: number): Promise<number> {
    const t = tableNamer(em);
    const [row] = await query<{ pruned: string }>(
      em,
      `with doomed as (
         select o.id from ${t('fault_occurrence')} o
          where o.cleared_at < ?
            and exists (select 1 from ${t('fault_occurrence')} n
                         where n.connection_id = o.connection_id and n.vehicle_source_id = o.vehicle_source_id and n.fault_key = o.fault_key and n.cleared_at > o.cleared_at)
            and not exists (select 1 from ${t('fault_transition')} x where x.occurrence_id = o.id)
          limit ? for update skip locked
       ), gone as (
         delete from ${t('fault_occurrence')} o using doomed where o.id = doomed.id returning 1
       )
       select count(*)::text as pruned from gone`,
      [clearedBefore.toISOString(), limit],
    );
    return Number(row?.pruned ?? 0);
  }
}
