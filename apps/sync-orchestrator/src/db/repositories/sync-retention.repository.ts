/**
 * SQL of the sync history's retention (decision 0030): deletes terminal syncs past their period
 * with their units, receipts and unit batches, one bounded statement at a time.
 *
 * What a statement never deletes (each a predicate below, each tested):
 * - an open sync (`requested`, `in_progress`): only `completed` and `failed` (cancelled is failed);
 * - a sync with a unit whose lease or receipt wait still runs (database clock): a collector or a
 *   late receipt may still need its rows (cancel never ends a lease early, spec 3 rule 2);
 * - the newest public sync of an application on a connection that did not fail: the default
 *   startFrom chains from it (SyncRepository.latestDefaultBase), so pruning it would silently move
 *   the next default sync's start to now;
 * - the newest internal run of a connection and origin (the next run continues at its
 *   interval_end, latestInternal) and every run a schedule row names as its last window.
 * Rows are locked `for update skip locked` (sync before units, the receipts' lock order): a retry or
 * cancel holding the sync makes the pass skip it, and concurrent passes delete disjoint rows.
 * A statement takes syncs oldest first until their admitted units reach `maxUnits` (at least one).
 */
import { query, tableNamer, type Em } from '@switchyard/persistence';

export interface SyncPruneCutoffs {
  /** Public syncs (origin api) last changed before this go. */
  publicBefore: Date;
  /** Internal runs (scheduled, …) last changed before this go. */
  internalBefore: Date;
}

/** Most syncs looked at per statement; the unit bound decides how many of them go. */
const CANDIDATES = 1_000;

export class SyncRetentionRepository {
  /** One bounded delete; returns the syncs and units removed. */
  async prune(em: Em, cutoffs: SyncPruneCutoffs, maxUnits: number): Promise<{ syncs: number; units: number }> {
    const t = tableNamer(em);
    const [row] = await query<{ syncs: number; units: number }>(
      em,
      `with candidates as (
         select s.id, s.admitted_units, s.updated_at
           from ${t('sync')} s
          where s.status in ('completed', 'failed')
            and s.updated_at < case when s.origin = 'api' then ?::timestamptz else ?::timestamptz end
            and not exists (select 1 from ${t('sync_unit')} u where u.sync_id = s.id and (u.lease_expires_at > now() or u.awaiting_receipts_until > now()))
            and not (s.origin = 'api' and s.status <> 'failed' and not exists (
                  select 1 from ${t('sync')} n where n.application_id = s.application_id and n.connection_id = s.connection_id
                     and n.origin = 'api' and n.status <> 'failed' and n.requested_at > s.requested_at))
            and not (s.origin <> 'api' and not exists (
                  select 1 from ${t('sync')} n where n.connection_id = s.connection_id and n.origin = s.origin and (n.requested_at, n.id) > (s.requested_at, s.id)))
            and not exists (select 1 from ${t('sync_schedule')} k where k.last_sync_id = s.id or s.id = any(k.last_sync_ids))
          order by s.updated_at, s.id
          limit ${CANDIDATES}
          for update of s skip locked
       ), picked as (
         select id from (select id, sum(admitted_units) over (order by updated_at, id) - admitted_units as before from candidates) c where c.before < ?
       ), units as (
         select u.id from ${t('sync_unit')} u where u.sync_id in (select id from picked)
       ), receipts as (
         delete from ${t('sync_receipt')} where unit_id in (select id from units)
       ), batches as (
         delete from ${t('sync_unit_batch')} where unit_id in (select id from units)
       ), gone_units as (
         delete from ${t('sync_unit')} where id in (select id from units) returning 1
       ), gone as (
         delete from ${t('sync')} where id in (select id from picked) returning 1
       )
       select (select count(*) from gone)::int as syncs, (select count(*) from gone_units)::int as units`,
      [cutoffs.publicBefore.toISOString(), cutoffs.internalBefore.toISOString(), maxUnits],
    );
    return row ?? { syncs: 0, units: 0 };
  }
}
