/**
 * The collectors' side of the unit table: leasing with `FOR UPDATE SKIP LOCKED` (several collector
 * processes never block on, or double-lease, one unit), heartbeats that extend a live lease,
 * fenced progress, fenced receipts, and failing a sync.
 *
 * Fencing: every lease bumps `fencing_token` and hands it to the holder; a heartbeat, a saved
 * provider cursor or a receipt counts only when it carries the unit's current token. A collector
 * that stalled past its lease (SIGSTOP, GC pause) and came back, or a receipt redelivered from an
 * earlier lease or attempt, therefore changes nothing. A refused heartbeat or cursor save says why
 * (`FencedWrite`): only `superseded` and `expired` are a lost lease; `receipted` is the unit's own
 * receipt arriving before its holder's last write (issue 25). Refusals by the token alone are
 * counted in `fenced_writes` (migration 0014).
 *
 * Waits that are not failures (migration 0009): a unit whose final batch is published waits for
 * its receipts (`awaitReceipts`: not leased again while its token is current and the deadline has
 * not passed, even after its lease ran out); a throttled unit is put back with its lease ending at
 * the provider's Retry-After, or one lease period after the bus refused its batch (`requeuePaced`), without counting an error attempt.
 *
 * Lock order is sync row, then unit rows, everywhere a transaction takes both (receipts, retry);
 * `lease` takes only unit rows, and the requested → in_progress move runs after it in its own
 * statement, so the two can never wait on each other in a cycle.
 */
import type { CorrelationContext } from '@switchyard/messaging';
import { isoSql, query, tableNamer, type Em } from '@switchyard/persistence';
import type { SyncPurpose } from '../../domain/sync-planner.js';
import type { SyncStatus } from '../../domain/sync-state.js';

export interface LeasedUnit {
  unitId: string;
  syncId: string;
  connectionId: string;
  purpose: SyncPurpose;
  /** Null for connection-level units (drivers, groups). */
  vehicleSourceId: string | null;
  windowStart: string | null;
  windowEnd: string | null;
  attempt: number;
  fencingToken: string;
  providerCursor: string | null;
  leaseExpiresAt: string;
  /** The connection's `selectedSignals` when the unit was leased (collection-scope.ts decides what they allow). */
  signals: readonly string[];
  /** The connection's `optIns.extendedTelemetry` when the unit was leased. */
  extendedTelemetry: boolean;
  /** The creating request's correlation id and trace parent (`sync:<id>` when it had none): the collector works under it. */
  trace: CorrelationContext;
  /** How many units of the sync have this unit's purpose: the units of its roster pass (ingest batch `pass`). */
  passUnits: number;
}

/**
 * How a heartbeat or cursor save under a token ended: `written`; `receipted` — refused because the
 * unit is receipted under this very token (its work is done: the receipt consumer was faster than
 * the holder's last write, no lease was lost); `superseded` — another lease or a retry holds the
 * unit under a newer token (fenced off); `expired` — the lease ran out under this token (heartbeat).
 */
export type FencedWrite = 'written' | 'receipted' | 'superseded' | 'expired';

export type ReceiptOutcome = 'receipted' | 'already_receipted' | 'stale_fencing_token' | 'sync_not_open' | 'unknown_unit';

export interface ReceiptEvidence {
  /** The context that committed the batch (`directory`, `telemetry-ingest`, `fault-feed`). */
  context: string;
  /** Idempotency key of the receipt message (its JetStream msgId). */
  receiptKey: string;
  /** When the owning context committed the data (RFC 3339). */
  committedAt: string;
}

export class UnitLeaseRepository {
  /**
   * Leases up to `limit` units of open syncs whose connection is active with unified collection on,
   * skipping units another transaction holds and units whose lease has not expired.
   */
  async lease(em: Em, owner: string, limit: number, leaseMs: number, connectionId?: string): Promise<LeasedUnit[]> {
    const t = tableNamer(em);
    const rows = await query<{
      id: string;
      sync_id: string;
      connection_id: string;
      purpose: SyncPurpose;
      vehicle_source_id: string | null;
      window_start: string | null;
      window_end: string | null;
      attempt: number;
      fencing_token: string;
      provider_cursor: string | null;
      lease_expires_at: string;
      signals: string[] | null;
      extended_telemetry: boolean | null;
      correlation_id: string | null;
      traceparent: string | null;
    }>(
      em,
      `with picked as (
         select u.id from ${t('sync_unit')} u
           join ${t('sync')} s on s.id = u.sync_id
           join ${t('connection_config')} c on c.connection_id = s.connection_id
          where u.state = 'admitted' and (u.lease_expires_at is null or u.lease_expires_at <= now())
            and not (u.awaiting_token is not distinct from u.fencing_token and u.awaiting_receipts_until > now())
            and s.status in ('requested', 'in_progress')
            and c.config->>'status' = 'active' and (c.config->>'unifiedCollection')::boolean
            and (?::uuid is null or s.connection_id = ?::uuid)
          order by u.id
          limit ?
          for update of u skip locked)
       update ${t('sync_unit')} u
          set fencing_token = u.fencing_token + 1, lease_owner = ?, lease_expires_at = now() + (? * interval '1 millisecond'), heartbeat_at = now()
         from picked, ${t('sync')} s, ${t('connection_config')} c
        where u.id = picked.id and s.id = u.sync_id and c.connection_id = s.connection_id
       returning u.id::text as id, u.sync_id, s.connection_id, u.purpose, u.vehicle_source_id, ${isoSql('u.window_start')} as window_start,
                 ${isoSql('u.window_end')} as window_end, u.attempt, u.fencing_token::text as fencing_token, u.provider_cursor,
                 ${isoSql('u.lease_expires_at')} as lease_expires_at,
                 array(select jsonb_array_elements_text(coalesce(c.config->'selectedSignals', '[]'::jsonb))) as signals,
                 (c.config->'optIns'->>'extendedTelemetry')::boolean as extended_telemetry, s.correlation_id, s.traceparent`,
      [connectionId ?? null, connectionId ?? null, limit, owner, leaseMs],
    );
    const passUnits = new Map<string, number>();
    if (rows.length > 0) {
      const syncIds = [...new Set(rows.map((r) => r.sync_id))];
      await query(em, `update ${t('sync')} set status = 'in_progress', updated_at = now() where status = 'requested' and id in (select json_array_elements_text(?::json))`, [
        JSON.stringify(syncIds),
      ]);
      // One index range (sync_unit_sync_seq_unique) per leased sync; a plan never changes after its insert.
      const counts = await query<{ sync_id: string; purpose: string; units: number }>(
        em,
        `select sync_id, purpose, count(*)::int as units from ${t('sync_unit')} where sync_id in (select json_array_elements_text(?::json)) group by sync_id, purpose`,
        [JSON.stringify(syncIds)],
      );
      for (const c of counts) passUnits.set(`${c.sync_id}\u0000${c.purpose}`, c.units);
    }
    return rows.map((r) => ({
      unitId: r.id,
      syncId: r.sync_id,
      connectionId: r.connection_id,
      purpose: r.purpose,
      vehicleSourceId: r.vehicle_source_id,
      windowStart: r.window_start,
      windowEnd: r.window_end,
      attempt: r.attempt,
      fencingToken: r.fencing_token,
      providerCursor: r.provider_cursor,
      leaseExpiresAt: r.lease_expires_at,
      signals: r.signals ?? [],
      extendedTelemetry: r.extended_telemetry === true,
      trace: { correlationId: r.correlation_id ?? `sync:${r.sync_id}`, ...(r.traceparent ? { traceparent: r.traceparent } : {}) },
      passUnits: passUnits.get(`${r.sync_id}\u0000${r.purpose}`) ?? 1,
    }));
  }

  /** Extends a live lease held under `fencingToken`; otherwise says why not (FencedWrite). */
  async heartbeat(em: Em, unitId: string, fencingToken: string, leaseMs: number): Promise<FencedWrite> {
    const rows = await query<{ id: string }>(
      em,
      `update ${tableNamer(em)('sync_unit')} set heartbeat_at = now(), lease_expires_at = now() + (? * interval '1 millisecond')
        where id = ?::bigint and fencing_token = ?::bigint and state = 'admitted' and lease_expires_at > now() returning id`,
      [leaseMs, unitId, fencingToken],
    );
    return rows.length === 1 ? 'written' : this.refusal(em, unitId, fencingToken, true);
  }

  /** Stores the provider cursor reached (resume point) while the token is current; otherwise says why not (FencedWrite). */
  async saveProviderCursor(em: Em, unitId: string, fencingToken: string, cursor: string | null): Promise<FencedWrite> {
    const rows = await query<{ id: string }>(
      em,
      `update ${tableNamer(em)('sync_unit')} set provider_cursor = ? where id = ?::bigint and fencing_token = ?::bigint and state = 'admitted' returning id`,
      [cursor, unitId, fencingToken],
    );
    return rows.length === 1 ? 'written' : this.refusal(em, unitId, fencingToken, false);
  }

  /**
   * Why a heartbeat (`liveLease`) or cursor save under `fencingToken` matched no row. Run right after
   * it in its transaction: a new statement sees what committed meanwhile (a receipt, a re-lease). A
   * write the token alone refused — the unit admitted under a newer token and, for a heartbeat, its
   * lease live — is counted in `fenced_writes` (migration 0014); one the unit's state or lease would
   * have refused anyway is not, so the count is evidence of fencing and nothing else.
   */
  private async refusal(em: Em, unitId: string, fencingToken: string, liveLease: boolean): Promise<Exclude<FencedWrite, 'written'>> {
    const t = tableNamer(em);
    const counted = await query<{ id: string }>(
      em,
      `update ${t('sync_unit')} set fenced_writes = fenced_writes + 1
        where id = ?::bigint and fencing_token <> ?::bigint and state = 'admitted' and (not ?::boolean or lease_expires_at > now()) returning id`,
      [unitId, fencingToken, liveLease],
    );
    if (counted.length === 1) return 'superseded';
    const [unit] = await query<{ state: 'admitted' | 'receipted'; fencing_token: string }>(
      em,
      `select state, fencing_token::text as fencing_token from ${t('sync_unit')} where id = ?::bigint`,
      [unitId],
    );
    if (!unit || unit.fencing_token !== fencingToken) return 'superseded';
    return unit.state === 'receipted' ? 'receipted' : 'expired';
  }

  /** Locks the unit's sync row (first, per the lock order) and returns its state. */
  async lockSyncOfUnit(em: Em, unitId: string): Promise<{ syncId: string; status: SyncStatus; admittedUnits: number; receiptedUnits: number } | undefined> {
    const t = tableNamer(em);
    const rows = await query<{ id: string; status: SyncStatus; admitted_units: number; receipted_units: number }>(
      em,
      `select s.id, s.status, s.admitted_units, s.receipted_units from ${t('sync')} s
        where s.id = (select sync_id from ${t('sync_unit')} where id = ?::bigint) for update`,
      [unitId],
    );
    const row = rows[0];
    return row && { syncId: row.id, status: row.status, admittedUnits: row.admitted_units, receiptedUnits: row.receipted_units };
  }

  /** The unit's receipt-relevant state, row-locked (take the sync lock first). */
  async lockUnit(em: Em, unitId: string): Promise<{ state: 'admitted' | 'receipted'; fencingToken: string; attempt: number; syncId: string } | undefined> {
    const [unit] = await query<{ state: 'admitted' | 'receipted'; fencing_token: string; attempt: number; sync_id: string }>(
      em,
      `select state, fencing_token::text as fencing_token, attempt, sync_id from ${tableNamer(em)('sync_unit')} where id = ?::bigint for update`,
      [unitId],
    );
    return unit && { state: unit.state, fencingToken: unit.fencing_token, attempt: unit.attempt, syncId: unit.sync_id };
  }

  /**
   * Marks the unit receipted and records the receipt. The lease ends here too (its work is done,
   * so a later retry need not wait for it); cancellation, by contrast, never ends a lease.
   */
  async receiptUnit(em: Em, unit: { unitId: string; syncId: string; attempt: number; fencingToken: string }, evidence: ReceiptEvidence): Promise<void> {
    const t = tableNamer(em);
    await query(em, `update ${t('sync_unit')} set state = 'receipted', receipted_at = now(), lease_expires_at = least(lease_expires_at, now()) where id = ?::bigint`, [unit.unitId]);
    await query(
      em,
      `insert into ${t('sync_receipt')} (unit_id, sync_id, attempt, fencing_token, context, receipt_key, committed_at)
       values (?::bigint, ?, ?, ?::bigint, ?, ?, ?::timestamptz)`,
      [unit.unitId, unit.syncId, unit.attempt, unit.fencingToken, evidence.context, evidence.receiptKey, evidence.committedAt],
    );
  }

  /** Counts one more receipted unit and moves the sync to `status` (completedAt when completed); returns the sync's origin. */
  async advanceSync(em: Em, syncId: string, status: SyncStatus): Promise<string | undefined> {
    const rows = await query<{ origin: string }>(
      em,
      `update ${tableNamer(em)('sync')} set receipted_units = receipted_units + 1, status = ?,
              completed_at = case when ? = 'completed' then now() else null end, updated_at = now()
        where id = ? returning origin`,
      [status, status, syncId],
    );
    return rows[0]?.origin;
  }

  async lockSyncStatus(em: Em, syncId: string): Promise<SyncStatus | undefined> {
    const rows = await query<{ status: SyncStatus }>(em, `select status from ${tableNamer(em)('sync')} where id = ? for update`, [syncId]);
    return rows[0]?.status;
  }

  /** The sync's status without a lock (collectors check it before each provider page). */
  async syncStatus(em: Em, syncId: string): Promise<SyncStatus | undefined> {
    const rows = await query<{ status: SyncStatus }>(em, `select status from ${tableNamer(em)('sync')} where id = ?`, [syncId]);
    return rows[0]?.status;
  }

  /** Whether the connection has a completed sync that collected faults (its first fault pass is behind it). */
  async faultsCollected(em: Em, connectionId: string): Promise<boolean> {
    const rows = await query<{ found: boolean }>(
      em,
      `select exists(select 1 from ${tableNamer(em)('sync')} where connection_id = ?::uuid and status = 'completed' and 'faults' = any(purposes)) as found`,
      [connectionId],
    );
    return rows[0]?.found === true;
  }

  /**
   * Records a collector failure on a unit held under `fencingToken`: the code, and (when
   * `retryable`) one more error attempt. Returns the unit's error attempts, or undefined when the
   * token is no longer current (another lease or a retry took over: nothing is recorded).
   */
  async recordUnitError(em: Em, unitId: string, fencingToken: string, code: string, retryable: boolean): Promise<number | undefined> {
    const rows = await query<{ error_attempts: number }>(
      em,
      `update ${tableNamer(em)('sync_unit')} set last_error_code = ?, error_attempts = error_attempts + ?
        where id = ?::bigint and fencing_token = ?::bigint and state = 'admitted' returning error_attempts`,
      [code, retryable ? 1 : 0, unitId, fencingToken],
    );
    return rows[0]?.error_attempts;
  }

  /**
   * The unit's final batch is published under `fencingToken`: until `waitMs` from now the unit is
   * not leased again while the token is current (its receipts can still come; a context slower
   * than the lease must not make it be collected twice). After that it is re-leasable: the
   * receipts are presumed lost and the unit is collected again under a new token. False when the
   * token is stale or the unit is already receipted (nothing to wait for).
   */
  async awaitReceipts(em: Em, unitId: string, fencingToken: string, waitMs: number): Promise<boolean> {
    const rows = await query<{ id: string }>(
      em,
      `update ${tableNamer(em)('sync_unit')} set awaiting_token = fencing_token, awaiting_receipts_until = now() + (? * interval '1 millisecond')
        where id = ?::bigint and fencing_token = ?::bigint and state = 'admitted' returning id`,
      [waitMs, unitId, fencingToken],
    );
    return rows.length === 1;
  }

  /**
   * A held unit's job was held back — throttled by the provider (`provider_throttled`) or its
   * batch refused by a full or unreachable bus (`bus_unavailable`): the unit becomes leasable again
   * `delayMs` from now, the code is stored, and no error attempt is counted — pacing, not failure.
   * Returns the unit's re-queues of its current attempt (the caller bounds them), or undefined when
   * the token is no longer current.
   */
  async requeuePaced(em: Em, unitId: string, fencingToken: string, delayMs: number, code: 'provider_throttled' | 'bus_unavailable'): Promise<number | undefined> {
    const rows = await query<{ throttle_requeues: number }>(
      em,
      `update ${tableNamer(em)('sync_unit')}
          set last_error_code = ?, lease_expires_at = now() + (? * interval '1 millisecond'),
              throttle_requeues = case when throttle_attempt = attempt then throttle_requeues + 1 else 1 end, throttle_attempt = attempt
        where id = ?::bigint and fencing_token = ?::bigint and state = 'admitted' returning throttle_requeues`,
      [code, delayMs, unitId, fencingToken],
    );
    return rows[0]?.throttle_requeues;
  }

  /** Fails the sync with `reason`; returns its origin. */
  async failSync(em: Em, syncId: string, reason: string): Promise<string | undefined> {
    const rows = await query<{ origin: string }>(em, `update ${tableNamer(em)('sync')} set status = 'failed', failure_reason = ?, updated_at = now() where id = ? returning origin`, [reason, syncId]);
    return rows[0]?.origin;
  }
}
