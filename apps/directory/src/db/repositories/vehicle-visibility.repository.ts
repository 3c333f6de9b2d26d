/**
 * The SQL of the published vehicle visibility (migration 0005 `vehicle_visibility`): the
 * per-connection advisory lock every recomputation takes (so two vehicles batches or a batch and a
 * config change of one connection compute one after the other, each seeing the other's committed
 * rows), the stored vehicles judged by the one rule (vehicle-sql.ts), the stored set, and the
 * outbox reads and marks of the relay. Rows are claimed with `for update skip locked`, so relays of
 * several directory processes never publish the same row at once.
 */
import type { VehicleVisibility, VisibilityRules } from '@switchyard/domain';
import type { VehicleVisibilityChangedV1 } from '@switchyard/messaging';
import { isoSql, ormSchema, query, tableNamer, type Em } from '@switchyard/persistence';
import { entityStatusSql, rulesParam, visibilitySql } from './vehicle-sql.js';

// Advisory lock of a connection's visibility ("SWVV"); second key hashtext(schema:connection).
const VISIBILITY_LOCK = 0x53575656;

export type HiddenVehicle = VehicleVisibilityChangedV1['hidden'][number];

/** The computed set: the hidden vehicles and, under a status filter, the shown ones (null without one). */
export interface ComputedSet {
  hidden: HiddenVehicle[];
  shown: string[] | null;
}

export interface VisibilityStateRow extends ComputedSet {
  config_revision: number;
  rules: unknown;
  sequence: string;
}

export interface UnpublishedVisibilityRow extends ComputedSet {
  connection_id: string;
  config_revision: number;
  sequence: string;
  computed_at: string;
}

export class VehicleVisibilityRepository {
  async lockConnection(em: Em, connectionId: string): Promise<void> {
    await query(em, 'select pg_advisory_xact_lock(?, hashtext(?))', [VISIBILITY_LOCK, `${ormSchema(em)}:${connectionId}`]);
  }

  /** The connection's stored vehicles with their visibility under `rules` (vehicle-sql.ts `visibilitySql`, the one rule), by id. */
  async vehicles(em: Em, connectionId: string, rules: VisibilityRules): Promise<{ id: string; source_id: string; visibility: VehicleVisibility }[]> {
    return query(
      em,
      `select v.id, v.source_id, ${visibilitySql('v.source_id', entityStatusSql('v.status'), 'x.rules')} as visibility
         from ${tableNamer(em)('vehicle')} v cross join (select ?::jsonb as rules) x where v.connection_id = ?::uuid order by v.id`,
      [rulesParam(rules), connectionId],
    );
  }

  async state(em: Em, connectionId: string): Promise<VisibilityStateRow | undefined> {
    const [row] = await query<VisibilityStateRow>(
      em,
      `select config_revision, rules, hidden, shown, sequence::text as sequence from ${tableNamer(em)('vehicle_visibility')} where connection_id = ?::uuid`,
      [connectionId],
    );
    return row;
  }

  /** Stores the rules used; when `set` is given it changed: store it and bump the sequence. */
  async save(em: Em, connectionId: string, revision: number, rules: unknown, set: ComputedSet | undefined): Promise<void> {
    const t = tableNamer(em)('vehicle_visibility');
    if (set === undefined) {
      await query(em, `update ${t} set config_revision = ?, rules = ?::jsonb where connection_id = ?::uuid`, [revision, JSON.stringify(rules), connectionId]);
      return;
    }
    await query(
      em,
      `insert into ${t} as v (connection_id, config_revision, rules, hidden, shown, sequence, computed_at)
       values (?::uuid, ?, ?::jsonb, ?::jsonb, ?::jsonb, 1, now())
       on conflict (connection_id) do update set config_revision = excluded.config_revision, rules = excluded.rules,
         hidden = excluded.hidden, shown = excluded.shown, sequence = v.sequence + 1, computed_at = now()`,
      [connectionId, revision, JSON.stringify(rules), JSON.stringify(set.hidden), set.shown === null ? null : JSON.stringify(set.shown)],
    );
  }

  /** Rows with a change not yet published (the outbox backlog gauge). */
  async countUnpublished(em: Em): Promise<number> {
    const [row] = await query<{ n: number }>(em, `select count(*)::int as n from ${tableNamer(em)('vehicle_visibility')} where published_sequence < sequence`);
    return row?.n ?? 0;
  }

  async unpublished(em: Em, limit: number): Promise<UnpublishedVisibilityRow[]> {
    return query<UnpublishedVisibilityRow>(
      em,
      `select connection_id, config_revision, hidden, shown, sequence::text as sequence, ${isoSql('computed_at')} as computed_at
         from ${tableNamer(em)('vehicle_visibility')} where published_sequence < sequence
        order by connection_id limit ? for update skip locked`,
      [limit],
    );
  }

  /** One statement for the whole batch: each row's mark moves to the sequence published (never back). */
  async markPublished(em: Em, rows: readonly { connection_id: string; sequence: string }[]): Promise<void> {
    if (rows.length === 0) return;
    await query(
      em,
      `update ${tableNamer(em)('vehicle_visibility')} v set published_sequence = greatest(v.published_sequence, x.s)
         from unnest(?::uuid[], ?::bigint[]) as x(c, s) where v.connection_id = x.c`,
      [`{${rows.map((r) => r.connection_id).join(',')}}`, `{${rows.map((r) => r.sequence).join(',')}}`],
    );
  }
}
