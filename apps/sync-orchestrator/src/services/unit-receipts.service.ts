/**
 * The internal API collectors and the receipt consumer build on (issue 4's collector half):
 * lease units, heartbeat, save provider progress, mark a unit's receipt committed, fail a sync.
 * Each call is one short transaction.
 *
 * `markUnitReceipted` is the only way a unit counts as done: it locks the sync row, accepts the
 * receipt only when the unit's fencing token is current and the sync is open, records it, counts it
 * and — when it was the last admitted unit — completes the sync with completedAt (spec 3 rule 3).
 * Any other outcome changes nothing and says why, so a redelivered receipt message can be acked.
 *
 * A unit's data can span several batches that the owning context commits in parallel, so the
 * receipt consumer does not call `markUnitReceipted` on the final batch's receipt alone: collectors
 * `recordBatches` (fenced) before publishing them, every committed receipt goes through
 * `commitBatchReceipt`, and only when the final batch is recorded and every recorded batch of the
 * unit's current token is committed (`unitComplete`) does the consumer call `markUnitReceipted`.
 * Every move of a public sync to completed or failed records its outcome in the outbox on the same
 * transaction (sync-outcomes.ts), so it is told exactly when it committed.
 */
import { Inject, Injectable, Optional } from '@nestjs/common';
import { inTransaction, type Orm } from '@switchyard/persistence';
import { ORM } from '@switchyard/service-kit';
import { UnitBatchRepository, type UnitBatch } from '../db/repositories/unit-batch.repository.js';
import { UnitLeaseRepository, type FencedWrite, type LeasedUnit, type ReceiptEvidence, type ReceiptOutcome } from '../db/repositories/unit-lease.repository.js';
import { isOpen, nextStatus, progressOf, type SyncStatus } from '../domain/sync-state.js';
import { recordSyncOutcome } from './sync-outcomes.js';
import { SyncMetrics } from './sync-metrics.js';

export interface ReceiptResult {
  outcome: ReceiptOutcome;
  syncId?: string;
  /** The sync's status and progress after this call (unchanged unless outcome is `receipted`). */
  status?: SyncStatus;
  progress?: number;
}

export type BatchReceiptOutcome = 'committed' | 'duplicate' | 'unknown_batch' | 'stale_fencing_token' | 'already_receipted' | 'unknown_unit';

export interface BatchReceiptResult {
  outcome: BatchReceiptOutcome;
  /** The unit's final batch is recorded and every recorded batch of its current token is committed. */
  unitComplete: boolean;
  /** Recorded batches of the current token still waiting for their receipt. */
  pending?: number;
  /** Latest commit time among the unit's batches (the evidence's committedAt when complete). */
  lastCommittedAt?: string | null;
}

export const DEFAULT_LEASE_MS = 60_000;

const isId = (value: string) => /^\d{1,18}$/.test(value);

@Injectable()
export class UnitReceiptService {
  private readonly units = new UnitLeaseRepository();
  private readonly batches = new UnitBatchRepository();

  constructor(
    @Inject(ORM) private readonly orm: Orm,
    @Optional() private readonly metrics?: SyncMetrics,
  ) {}

  /** Leases up to `limit` leasable units (optionally of one connection, e.g. one provider account's collector). */
  leaseUnits(owner: string, limit: number, options: { leaseMs?: number; connectionId?: string } = {}): Promise<LeasedUnit[]> {
    return inTransaction(this.orm, (em) => this.units.lease(em, owner, limit, options.leaseMs ?? DEFAULT_LEASE_MS, options.connectionId));
  }

  /** Extends the lease held under `fencingToken`, or says why not: only `superseded` and `expired` are a lost lease (FencedWrite). */
  heartbeat(unitId: string, fencingToken: string, leaseMs = DEFAULT_LEASE_MS): Promise<FencedWrite> {
    return inTransaction(this.orm, (em) => this.units.heartbeat(em, unitId, fencingToken, leaseMs));
  }

  /** Saves the resume point under `fencingToken`, or says why not: `receipted` after the unit's final batch is no lease loss (FencedWrite). */
  saveProviderCursor(unitId: string, fencingToken: string, cursor: string | null): Promise<FencedWrite> {
    return inTransaction(this.orm, (em) => this.units.saveProviderCursor(em, unitId, fencingToken, cursor));
  }

  /**
   * Records batches about to be published for a unit held under `fencingToken`; false when the
   * lease was lost (the token is stale or the unit already receipted) — then do not publish them.
   */
  recordBatches(unitId: string, fencingToken: string, batches: readonly UnitBatch[]): Promise<boolean> {
    if (!isId(unitId) || !isId(fencingToken)) return Promise.resolve(false);
    return inTransaction(this.orm, (em) => this.batches.record(em, unitId, fencingToken, batches));
  }

  /**
   * A context committed one batch of the unit: marks it committed when `fencingToken` is current and
   * says whether the unit's data is now complete. Idempotent; a stale token changes nothing. The
   * caller then receipts the unit with `markUnitReceipted` (which rechecks the token), so a crash
   * in between is repaired by the redelivered receipt: its duplicate still reports `unitComplete`.
   */
  commitBatchReceipt(unitId: string, fencingToken: string, batchId: string, committedAt: string): Promise<BatchReceiptResult> {
    if (!isId(unitId) || !isId(fencingToken)) return Promise.resolve({ outcome: 'unknown_unit', unitComplete: false });
    return inTransaction(this.orm, async (em) => {
      const unit = await this.batches.lockUnit(em, unitId);
      if (!unit) return { outcome: 'unknown_unit', unitComplete: false };
      if (unit.fencingToken !== fencingToken) return { outcome: 'stale_fencing_token', unitComplete: false };
      if (unit.state === 'receipted') return { outcome: 'already_receipted', unitComplete: false };
      const outcome = await this.batches.commit(em, unitId, fencingToken, batchId, committedAt);
      const ledger = await this.batches.state(em, unitId, fencingToken);
      const unitComplete = outcome !== 'unknown_batch' && ledger.finalKnown && ledger.pending === 0;
      return { outcome, unitComplete, pending: ledger.pending, lastCommittedAt: ledger.lastCommittedAt };
    });
  }

  async markUnitReceipted(unitId: string, fencingToken: string, evidence: ReceiptEvidence): Promise<ReceiptResult> {
    if (!/^\d{1,18}$/.test(unitId) || !/^\d{1,18}$/.test(fencingToken)) return { outcome: 'unknown_unit' };
    let completed: { origin: string | undefined } | undefined;
    const result = await inTransaction(this.orm, async (em): Promise<ReceiptResult> => {
      const sync = await this.units.lockSyncOfUnit(em, unitId);
      if (!sync) return { outcome: 'unknown_unit' };
      const unchanged = { syncId: sync.syncId, status: sync.status, progress: progressOf(sync.receiptedUnits, sync.admittedUnits) };
      const unit = await this.units.lockUnit(em, unitId);
      if (!unit) return { outcome: 'unknown_unit' };
      if (unit.fencingToken !== fencingToken) return { outcome: 'stale_fencing_token', ...unchanged };
      if (unit.state === 'receipted') return { outcome: 'already_receipted', ...unchanged };
      if (!isOpen(sync.status)) return { outcome: 'sync_not_open', ...unchanged };
      await this.units.receiptUnit(em, { unitId, syncId: sync.syncId, attempt: unit.attempt, fencingToken }, evidence);
      const outcome = 'receipted' as const;
      const receipted = sync.receiptedUnits + 1;
      const status = nextStatus(sync.status, receipted === sync.admittedUnits ? 'all_units_receipted' : 'work_started');
      if (!status) throw new Error(`no move from ${sync.status} on a receipt`);
      const origin = await this.units.advanceSync(em, sync.syncId, status);
      if (status === 'completed') await recordSyncOutcome(em, sync.syncId);
      completed = status === 'completed' ? { origin } : undefined;
      return { outcome, syncId: sync.syncId, status, progress: progressOf(receipted, sync.admittedUnits) };
    });
    if (completed) this.metrics?.finished(completed.origin, 'completed');
    return result;
  }

  /** The sync's current status (undefined: no such sync). */
  syncStatus(syncId: string): Promise<SyncStatus | undefined> {
    return inTransaction(this.orm, (em) => this.units.syncStatus(em, syncId));
  }

  /** Whether the connection has a completed sync that collected faults. */
  faultsCollected(connectionId: string): Promise<boolean> {
    return inTransaction(this.orm, (em) => this.units.faultsCollected(em, connectionId));
  }

  /** The unit's final batch is published under `fencingToken`: no re-lease for `waitMs` while its receipts can come (UnitLeaseRepository.awaitReceipts). */
  awaitReceipts(unitId: string, fencingToken: string, waitMs: number): Promise<boolean> {
    return inTransaction(this.orm, (em) => this.units.awaitReceipts(em, unitId, fencingToken, waitMs));
  }

  /** A throttled or bus-refused unit is leasable again after `delayMs`, no error attempt counted (UnitLeaseRepository.requeuePaced). */
  requeuePaced(unitId: string, fencingToken: string, delayMs: number, code: 'provider_throttled' | 'bus_unavailable'): Promise<number | undefined> {
    return inTransaction(this.orm, (em) => this.units.requeuePaced(em, unitId, fencingToken, delayMs, code));
  }

  /** Stores a provider failure code on a held unit; see UnitLeaseRepository.recordUnitError. */
  recordUnitError(unitId: string, fencingToken: string, code: string, retryable: boolean): Promise<number | undefined> {
    return inTransaction(this.orm, (em) => this.units.recordUnitError(em, unitId, fencingToken, code, retryable));
  }

  /**
   * A context rejected a batch of the unit: stores `reason` as the unit's `last_error_code` and
   * fails the unit's sync with it, but only while the receipt's fencing token is the unit's current
   * one and the unit is not receipted — a rejection from an earlier lease or attempt must not fail
   * a retried sync. The rejected batch stays pending in the ledger, so the unit never completes
   * under that token (nothing was written); a retry starts a new token. True when the sync failed here.
   */
  async failSyncForUnit(unitId: string, fencingToken: string, reason: string): Promise<boolean> {
    if (!/^\d{1,18}$/.test(unitId) || !/^\d{1,18}$/.test(fencingToken)) return false;
    let origin: string | undefined;
    const failed = await inTransaction(this.orm, async (em) => {
      const sync = await this.units.lockSyncOfUnit(em, unitId);
      if (!sync) return false;
      const unit = await this.units.lockUnit(em, unitId);
      if (!unit || unit.fencingToken !== fencingToken || unit.state === 'receipted') return false;
      // The unit says why it cannot complete (also when another unit already failed the sync).
      await this.units.recordUnitError(em, unitId, fencingToken, reason, false);
      if (!nextStatus(sync.status, 'collection_failed')) return false;
      origin = await this.units.failSync(em, sync.syncId, reason);
      await recordSyncOutcome(em, sync.syncId);
      return true;
    });
    if (failed) this.metrics?.finished(origin, 'failed', reason);
    return failed;
  }

  /** Collection gave up (e.g. provider credentials revoked): an open sync becomes failed with `reason`. */
  async failSync(syncId: string, reason: string): Promise<boolean> {
    let origin: string | undefined;
    const failed = await inTransaction(this.orm, async (em) => {
      const status = await this.units.lockSyncStatus(em, syncId);
      if (!status || !nextStatus(status, 'collection_failed')) return false;
      origin = await this.units.failSync(em, syncId, reason);
      await recordSyncOutcome(em, syncId);
      return true;
    });
    if (failed) this.metrics?.finished(origin, 'failed', reason);
    return failed;
  }
}
