/**
 * SQL of the fault store: the per-connection lock, loading the state a derivation needs, writing
 * its result set-based (json_to_recordset, one statement per table — a batch is ≤ 1,000 records),
 * allocating gap-free per-connection sequences, and the outbox reads and marks of the relay.
 * Invariant: every write runs on the batch's transaction, after `lockConnection`, so two processes
 * never derive from the same stale state and sequences never interleave within a connection.
 */
import type { Provider } from '@switchyard/domain';
import { ormSchema, query, tableNamer, type Em } from '@switchyard/persistence';
import { structuredCode } from '../../services/fault-codes.js';
import type { FaultState, Occurrence } from '../../services/fault-derivation.js';
import { occurrenceKey } from '../../services/fault-derivation.js';

// Advisory lock namespace of fault batches ("SWFF"); second key hashtext(schema:connection).
const CONNECTION_LOCK = 0x53574646;
// Advisory lock of the outbox relay ("SWFR"); second key hashtext(schema).
const RELAY_LOCK = 0x53574652;

interface OccurrenceRow {
  id: string;
  vehicle_source_id: string;
  fault_key: string;
  code: string;
  description: string | null;
  model: Occurrence['model'];
  opened_at: string;
  last_observed_at: string;
  bootstrap: boolean;
  occurrence_count: number | null;
}

const isoCol = (c: string) => `to_char(${c} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as ${c}`;

export interface TransitionRow {
  id: string;
  connection_id: string;
  sequence: number;
  occurrence_id: string;
  kind: 'opened' | 'cleared';
  observed_at: string;
  bootstrap: boolean;
  payload: unknown;
}

/** A committed transition the outbox relay has not published yet. */
export type UnpublishedTransitionRow = Pick<TransitionRow, 'id' | 'connection_id' | 'kind' | 'payload'>;

export class FaultRepository {
  async lockConnection(em: Em, connectionId: string): Promise<void> {
    await query(em, 'select pg_advisory_xact_lock(?, hashtext(?))', [CONNECTION_LOCK, `${ormSchema(em)}:${connectionId}`]);
  }

  /** The open occurrences in the order they opened, so the clears one snapshot derives are numbered in that order (deterministic). */
  async loadState(em: Em, connectionId: string, model: Occurrence['model'], keys: readonly { vehicle: string; key: string }[]): Promise<FaultState> {
    const t = tableNamer(em);
    const open = await query<OccurrenceRow>(
      em,
      `select id, vehicle_source_id, fault_key, code, description, model, ${isoCol('opened_at')}, ${isoCol('last_observed_at')}, bootstrap,
              (structured->>'occurrenceCount')::int as occurrence_count
         from ${t('fault_occurrence')} where connection_id = ?::uuid and model = ? and cleared_at is null
        order by opened_at, vehicle_source_id, fault_key`,
      [connectionId, model],
    );
    const watch = await query<{ scope: string; last_observed_at: string }>(
      em,
      `select scope, ${isoCol('last_observed_at')} from ${t('fault_watch')} where connection_id = ?::uuid`,
      [connectionId],
    );
    const cleared =
      model === 'explicit_records' && keys.length > 0
        ? await query<{ vehicle_source_id: string; fault_key: string; cleared_at: string }>(
            em,
            `select o.vehicle_source_id, o.fault_key, to_char(max(o.cleared_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as cleared_at
               from ${t('fault_occurrence')} o join json_to_recordset(?::json) as k(vehicle text, key text)
                 on o.vehicle_source_id = k.vehicle and o.fault_key = k.key
              where o.connection_id = ?::uuid and o.cleared_at is not null group by o.vehicle_source_id, o.fault_key`,
            [JSON.stringify(keys), connectionId],
          )
        : [];
    return {
      open: new Map(
        open.map((r) => [
          occurrenceKey(r.vehicle_source_id, r.fault_key),
          { id: r.id, vehicleSourceId: r.vehicle_source_id, faultKey: r.fault_key, code: r.code, description: r.description, model: r.model, openedAt: r.opened_at, lastObservedAt: r.last_observed_at, clearedAt: null, clearedBy: null, bootstrap: r.bootstrap, occurrenceCount: r.occurrence_count },
        ]),
      ),
      watch: new Map(watch.map((w) => [w.scope, w.last_observed_at])),
      lastCleared: new Map(cleared.map((c) => [occurrenceKey(c.vehicle_source_id, c.fault_key), c.cleared_at])),
    };
  }

  async writeOccurrences(em: Em, connectionId: string, provider: Provider, vehicleIdOf: (sourceId: string) => string, occurrences: readonly Occurrence[]): Promise<void> {
    if (occurrences.length === 0) return;
    const t = tableNamer(em);
    const rows = occurrences.map((o) => ({
      id: o.id,
      vehicle_id: vehicleIdOf(o.vehicleSourceId),
      vehicle_source_id: o.vehicleSourceId,
      fault_key: o.faultKey,
      code: o.code,
      description: o.description,
      model: o.model,
      opened_at: o.openedAt,
      last_observed_at: o.lastObservedAt,
      cleared_at: o.clearedAt,
      cleared_by: o.clearedBy,
      bootstrap: o.bootstrap,
      structured: structuredCode(provider, o.faultKey, o.occurrenceCount),
    }));
    await query(
      em,
      `insert into ${t('fault_occurrence')} as t (id, connection_id, provider, model, vehicle_id, vehicle_source_id, fault_key, code, description, opened_at, last_observed_at, cleared_at, cleared_by, bootstrap, structured)
       select r.id, ?::uuid, ?, r.model, r.vehicle_id, r.vehicle_source_id, r.fault_key, r.code, r.description, r.opened_at, r.last_observed_at, r.cleared_at, r.cleared_by, r.bootstrap, r.structured
         from json_to_recordset(?::json) as r(id uuid, model text, vehicle_id text, vehicle_source_id text, fault_key text, code text, description text,
              opened_at timestamptz, last_observed_at timestamptz, cleared_at timestamptz, cleared_by text, bootstrap boolean, structured jsonb)
        order by r.id
       on conflict (id) do update set last_observed_at = excluded.last_observed_at, cleared_at = excluded.cleared_at, cleared_by = excluded.cleared_by, structured = excluded.structured`,
      [connectionId, provider, JSON.stringify(rows)],
    );
  }

  /** Reserves `count` sequences for the connection; returns the first. */
  async reserveSequences(em: Em, connectionId: string, count: number): Promise<number> {
    const t = tableNamer(em);
    const [row] = await query<{ last_sequence: string }>(
      em,
      `insert into ${t('fault_sequence')} as s (connection_id, last_sequence) values (?::uuid, ?)
       on conflict (connection_id) do update set last_sequence = s.last_sequence + excluded.last_sequence returning last_sequence`,
      [connectionId, count],
    );
    return Number(row?.last_sequence) - count + 1;
  }

  async insertTransitions(em: Em, rows: readonly TransitionRow[]): Promise<void> {
    if (rows.length === 0) return;
    const t = tableNamer(em);
    await query(
      em,
      `insert into ${t('fault_transition')} (id, connection_id, sequence, occurrence_id, kind, observed_at, bootstrap, payload, created_at)
       select r.id, r.connection_id, r.sequence, r.occurrence_id, r.kind, r.observed_at, r.bootstrap, r.payload, now()
         from json_to_recordset(?::json) as r(id uuid, connection_id uuid, sequence bigint, occurrence_id uuid, kind text, observed_at timestamptz, bootstrap boolean, payload jsonb)`,
      [JSON.stringify(rows)],
    );
    // The read order of the open-faults walk (migration 0003): the sequence of the occurrence's opened transition.
    const opened = rows.filter((r) => r.kind === 'opened').map((r) => ({ occurrence_id: r.occurrence_id, sequence: r.sequence }));
    if (opened.length === 0) return;
    await query(
      em,
      `update ${t('fault_occurrence')} o set open_sequence = r.sequence
         from json_to_recordset(?::json) as r(occurrence_id uuid, sequence bigint) where o.id = r.occurrence_id`,
      [JSON.stringify(opened)],
    );
  }

  async saveWatch(em: Em, connectionId: string, watch: ReadonlyMap<string, string>): Promise<void> {
    if (watch.size === 0) return;
    const t = tableNamer(em);
    await query(
      em,
      `insert into ${t('fault_watch')} as w (connection_id, scope, last_observed_at)
       select ?::uuid, r.scope, r.at from json_to_recordset(?::json) as r(scope text, at timestamptz) order by r.scope
       on conflict (connection_id, scope) do update set last_observed_at = greatest(w.last_observed_at, excluded.last_observed_at)`,
      [connectionId, JSON.stringify([...watch].map(([scope, at]) => ({ scope, at })))],
    );
  }

  /** Takes the relay lock: one publisher at a time, so each connection's transitions go out in sequence order. */
  async lockRelay(em: Em): Promise<void> {
    await query(em, 'select pg_advisory_xact_lock(?, hashtext(?))', [RELAY_LOCK, ormSchema(em)]);
  }

  /** Rows with a change not yet published (the outbox backlog gauge). */
  async countUnpublished(em: Em): Promise<number> {
    const [row] = await query<{ n: number }>(em, `select count(*)::int as n from ${tableNamer(em)('fault_transition')} where published_at is null`);
    return row?.n ?? 0;
  }

  /** Unpublished transitions in (connection, sequence) order. */
  unpublished(em: Em, limit: number): Promise<UnpublishedTransitionRow[]> {
    const t = tableNamer(em);
    return query(em, `select id, connection_id, kind, payload from ${t('fault_transition')} where published_at is null order by connection_id, sequence limit ${Number(limit)}`);
  }

  async markPublished(em: Em, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const t = tableNamer(em);
    await query(em, `update ${t('fault_transition')} set published_at = now() where id = any(?::uuid[])`, [`{${ids.join(',')}}`]);
  }
}
