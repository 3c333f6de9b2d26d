/**
 * SQL of the public sync lifecycle: the connection lock that serializes creates per connection,
 * the sync row and its admitted units (one statement for up to 10,000 units via json_to_recordset,
 * since `em.execute` would expand an array parameter into a list), keyset pages newest first, and
 * the cancel and retry writes. Every method runs on the caller's transaction.
 * Invariants: a sync is only ever read or changed through (application, connection, id), so one
 * application never sees another's syncs; public reads (find, page) and the public default
 * startFrom also keep to `origin = 'api'`, so internal runs (the scheduler's, origin `scheduled`,
 * application_id null, migration 0007) are never listed or found through the public API; retry
 * bumps every unit's fencing token and never touches its lease columns (an in-flight lease ends
 * when it expires, spec 3 rule 2).
 */
import type { ConnectionConfigV1, CorrelationContext } from '@switchyard/messaging';
import { isoSql, query, tableNamer, type Em } from '@switchyard/persistence';
import type { PlannedUnit, SyncPurpose } from '../../domain/sync-planner.js';
import type { SyncStatus } from '../../domain/sync-state.js';

export interface SyncRow {
  id: string;
  /** Null for internal runs. */
  applicationId: string | null;
  /** `api`, or the internal origin of the run (migration 0007). */
  origin: string;
  intervalEnd: string;
  connectionId: string;
  status: SyncStatus;
  requestedAt: string;
  startFrom: string;
  completedAt: string | null;
  attempts: number;
  admittedUnits: number;
  receiptedUnits: number;
  failureReason: string | null;
  purposes: SyncPurpose[];
}

export interface SyncOwner {
  applicationId: string;
  connectionId: string;
}

interface RawSyncRow {
  id: string;
  application_id: string | null;
  origin: string;
  interval_end: string;
  connection_id: string;
  status: SyncStatus;
  requested_at: string;
  start_from: string;
  completed_at: string | null;
  attempts: number;
  admitted_units: number;
  receipted_units: number;
  failure_reason: string | null;
  purposes: SyncPurpose[];
}

const COLUMNS = `id, application_id, origin, ${isoSql('interval_end')} as interval_end, connection_id, status, ${isoSql('requested_at')} as requested_at, ${isoSql('start_from')} as start_from,
  ${isoSql('completed_at')} as completed_at, attempts, admitted_units, receipted_units, failure_reason, purposes`;

function toRow(r: RawSyncRow): SyncRow {
  return {
    id: r.id,
    applicationId: r.application_id,
    origin: r.origin,
    intervalEnd: r.interval_end,
    connectionId: r.connection_id,
    status: r.status,
    requestedAt: r.requested_at,
    startFrom: r.start_from,
    completedAt: r.completed_at,
    attempts: r.attempts,
    admittedUnits: r.admitted_units,
    receiptedUnits: r.receipted_units,
    failureReason: r.failure_reason,
    purposes: r.purposes,
  };
}

export class SyncRepository {
  /**
   * The connection's configuration snapshot, row-locked until commit: concurrent creates on one
   * connection queue here, so "the previous sync" of the default startFrom is well defined.
   */
  async lockConnectionConfig(em: Em, connectionId: string): Promise<ConnectionConfigV1 | undefined> {
    const rows = await query<{ config: ConnectionConfigV1 }>(em, `select config from ${tableNamer(em)('connection_config')} where connection_id = ?::uuid for update`, [connectionId]);
    return rows[0]?.config;
  }

  /** The connection's config without a lock (retry reads gates; the sync row lock serializes it). */
  async connectionConfig(em: Em, connectionId: string): Promise<ConnectionConfigV1 | undefined> {
    const rows = await query<{ config: ConnectionConfigV1 }>(em, `select config from ${tableNamer(em)('connection_config')} where connection_id = ?::uuid for share`, [connectionId]);
    return rows[0]?.config;
  }

  /**
   * The application's open (requested or in progress) syncs, counted under a transaction-scoped
   * advisory lock per application, so concurrent creates on different connections of one
   * application queue here and the open-sync cap (OPEN_SYNCS_PER_APPLICATION) holds exactly.
   */
  async lockAndCountOpen(em: Em, applicationId: string): Promise<number> {
    await query(em, `select pg_advisory_xact_lock(hashtext('open-syncs'), hashtext(?))`, [applicationId]);
    const rows = await query<{ open: number }>(
      em,
      `select count(*)::int as open from ${tableNamer(em)('sync')} where application_id = ?::uuid and status in ('requested', 'in_progress')`,
      [applicationId],
    );
    return rows[0]?.open ?? 0;
  }

  /**
   * requestedAt of the application's newest public sync on the connection that did not fail (a
   * cancelled sync is `failed` too), for the default startFrom (spec 3 rule 5, decision 0008): a
   * default chains from the application's own last sync that stands, so a new application starts
   * now and a failed or cancelled interval is asked for again. A failed sync retried is open again
   * and counts. Reads sync_list_idx (application_id, connection_id, requested_at) backwards.
   */
  async latestDefaultBase(em: Em, owner: { applicationId: string; connectionId: string }): Promise<string | undefined> {
    const rows = await query<{ requested_at: string }>(
      em,
      `select ${isoSql('requested_at')} as requested_at from ${tableNamer(em)('sync')}
        where application_id = ?::uuid and connection_id = ?::uuid and origin = 'api' and status <> 'failed'
        order by requested_at desc limit 1`,
      [owner.applicationId, owner.connectionId],
    );
    return rows[0]?.requested_at;
  }

  /**
   * A public sync (`origin` api, owned by an application) or an internal run (`owner.applicationId`
   * null, origin its creator's), with its admitted units. `intervalEnd` defaults to requestedAt.
   */
  async insert(
    em: Em,
    sync: { id: string; owner: { applicationId: string | null; connectionId: string }; origin?: string; requestedAt: Date; startFrom: Date; intervalEnd?: Date; purposes: readonly SyncPurpose[]; trace?: CorrelationContext },
    units: readonly PlannedUnit[],
  ): Promise<void> {
    const t = tableNamer(em);
    // Purposes travel as JSON too: an array parameter would be expanded into a list.
    await query(
      em,
      `insert into ${t('sync')} (id, application_id, connection_id, origin, status, requested_at, start_from, interval_end, purposes, attempts, admitted_units, created_xid,
                                 correlation_id, traceparent)
       values (?, ?::uuid, ?::uuid, ?, 'requested', ?::timestamptz, ?::timestamptz, ?::timestamptz, array(select json_array_elements_text(?::json)), 1, ?,
               pg_current_xact_id()::text::bigint, ?, ?)`,
      [
        sync.id,
        sync.owner.applicationId,
        sync.owner.connectionId,
        sync.origin ?? 'api',
        sync.requestedAt.toISOString(),
        sync.startFrom.toISOString(),
        (sync.intervalEnd ?? sync.requestedAt).toISOString(),
        JSON.stringify(sync.purposes),
        units.length,
        sync.trace?.correlationId ?? null,
        sync.trace?.traceparent ?? null,
      ],
    );
    await query(
      em,
      `insert into ${t('sync_unit')} (sync_id, seq, purpose, vehicle_source_id, window_start, window_end, attempt)
       select ?, u.seq, u.purpose, u."vehicleSourceId", u."windowStart", u."windowEnd", 1
         from json_to_recordset(?::json) as u(seq integer, purpose text, "vehicleSourceId" text, "windowStart" timestamptz, "windowEnd" timestamptz)`,
      [sync.id, JSON.stringify(units)],
    );
  }

  /** The caller's sync; `lock` takes the row for update (cancel, retry). */
  async find(em: Em, owner: SyncOwner, id: string, lock = false): Promise<SyncRow | undefined> {
    const rows = await query<RawSyncRow>(
      em,
      `select ${COLUMNS} from ${tableNamer(em)('sync')} where id = ? and application_id = ?::uuid and connection_id = ?::uuid and origin = 'api'${lock ? ' for update' : ''}`,
      [id, owner.applicationId, owner.connectionId],
    );
    return rows[0] && toRow(rows[0]);
  }

  /** Any sync by id, public or internal (the outcome outbox reads the row it just moved). */
  async byId(em: Em, id: string): Promise<SyncRow | undefined> {
    const rows = await query<RawSyncRow>(em, `select ${COLUMNS} from ${tableNamer(em)('sync')} where id = ?`, [id]);
    return rows[0] && toRow(rows[0]);
  }

  /** An internal run by id (never a public sync). */
  async findInternal(em: Em, id: string): Promise<SyncRow | undefined> {
    const rows = await query<RawSyncRow>(em, `select ${COLUMNS} from ${tableNamer(em)('sync')} where id = ? and origin <> 'api'`, [id]);
    return rows[0] && toRow(rows[0]);
  }

  /** The connection's newest internal run of `origin` (the next run continues at its interval_end). */
  async latestInternal(em: Em, connectionId: string, origin: string): Promise<SyncRow | undefined> {
    const rows = await query<RawSyncRow>(
      em,
      `select ${COLUMNS} from ${tableNamer(em)('sync')} where connection_id = ?::uuid and origin = ? and origin <> 'api' order by requested_at desc, id desc limit 1`,
      [connectionId, origin],
    );
    return rows[0] && toRow(rows[0]);
  }

  /** The creation horizon of a new walk: the current snapshot (`xmin:xmax:xip,…`), taken before the first page is read. */
  async currentHorizon(em: Em): Promise<string> {
    const [row] = await query<{ snapshot: string }>(em, 'select pg_current_snapshot()::text as snapshot');
    if (!row) throw new Error('pg_current_snapshot returned no row');
    return row.snapshot;
  }

  /**
   * Newest requestedAt first, then id; only syncs whose creating transaction is visible in the
   * horizon snapshot (committed when the walk began) and after the keyset position.
   */
  async page(em: Em, owner: SyncOwner, p: { limit: number; status?: SyncStatus; horizon: string; after?: { requestedAt: string; id: string } }): Promise<SyncRow[]> {
    const where = ['application_id = ?::uuid', 'connection_id = ?::uuid', "origin = 'api'", 'pg_visible_in_snapshot(created_xid::text::xid8, ?::pg_snapshot)'];
    const params: unknown[] = [owner.applicationId, owner.connectionId, p.horizon];
    if (p.status) {
      where.push('status = ?');
      params.push(p.status);
    }
    if (p.after) {
      where.push('(requested_at, id) < (?::timestamptz, ?)');
      params.push(p.after.requestedAt, p.after.id);
    }
    params.push(p.limit);
    const rows = await query<RawSyncRow>(em, `select ${COLUMNS} from ${tableNamer(em)('sync')} where ${where.join(' and ')} order by requested_at desc, id desc limit ?`, params);
    return rows.map(toRow);
  }

  async markCancelled(em: Em, id: string, reason: string): Promise<void> {
    await query(em, `update ${tableNamer(em)('sync')} set status = 'failed', failure_reason = ?, updated_at = now() where id = ?`, [reason, id]);
  }

  /** attempts + 1 and every unit back to admitted under a new fencing token; leases stay as they are. */
  async resetForRetry(em: Em, id: string): Promise<void> {
    const t = tableNamer(em);
    const [updated] = await query<{ attempts: number }>(
      em,
      `update ${t('sync')} set status = 'requested', attempts = attempts + 1, receipted_units = 0, completed_at = null, failure_reason = null, updated_at = now()
        where id = ? returning attempts`,
      [id],
    );
    if (!updated) throw new Error(`sync ${id} vanished under its row lock`);
    await query(
      em,
      `update ${t('sync_unit')} set state = 'admitted', attempt = ?, fencing_token = fencing_token + 1, provider_cursor = null, receipted_at = null, last_error_code = null, error_attempts = 0
        where sync_id = ?`,
      [updated.attempts, id],
    );
  }
}
