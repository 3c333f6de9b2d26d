/**
 * The sync state machine (spec 3): requested → in_progress → completed, any open state → failed,
 * failed → requested by retry. Pure and total: `nextStatus` answers `undefined` for a move the
 * machine does not allow, and the lifecycle service turns that into 422 `sync_state_conflict`.
 *
 * Decisions the spec leaves open ("Transitions: not shown"):
 * - cancel moves an open sync to `failed` with failureReason `cancelled` — cancellation never
 *   counts as completion (rule 2), and `failed` is the only non-completed terminal state the spec
 *   has; a cancelled sync can therefore be retried like any failed one;
 * - an accepted retry moves `failed` back to `requested` (attempts + 1, every unit needs a fresh
 *   receipt);
 * - `completed` is terminal and is reached only when every admitted unit holds a committed receipt
 *   of the current attempt (rule 3).
 */
export const SYNC_STATUS_LIST = ['requested', 'in_progress', 'completed', 'failed'] as const;
export type SyncStatus = (typeof SYNC_STATUS_LIST)[number];

export type SyncEvent =
  /** A collector leased a unit, or a receipt arrived while units remain. */
  | 'work_started'
  /** The receipt of the last admitted unit was committed. */
  | 'all_units_receipted'
  /** Collection gave up (e.g. provider credentials revoked). */
  | 'collection_failed'
  | 'cancel'
  | 'retry';

export const CANCELLED_FAILURE_REASON = 'cancelled';

const TRANSITIONS: Record<SyncStatus, Partial<Record<SyncEvent, SyncStatus>>> = {
  requested: { work_started: 'in_progress', all_units_receipted: 'completed', collection_failed: 'failed', cancel: 'failed' },
  in_progress: { work_started: 'in_progress', all_units_receipted: 'completed', collection_failed: 'failed', cancel: 'failed' },
  completed: {},
  failed: { retry: 'requested' },
};

export function nextStatus(status: SyncStatus, event: SyncEvent): SyncStatus | undefined {
  return TRANSITIONS[status][event];
}

/** Open syncs take receipts, leases and cancellation. */
export function isOpen(status: SyncStatus): boolean {
  return status === 'requested' || status === 'in_progress';
}

/**
 * Receipted units / admitted units × 100, rounded down to two decimals so that 100 is reported
 * only when every admitted unit is receipted (9,999 of 10,000 is 99.99, never 100).
 */
export function progressOf(receiptedUnits: number, admittedUnits: number): number {
  if (!Number.isInteger(receiptedUnits) || !Number.isInteger(admittedUnits) || admittedUnits < 1 || receiptedUnits < 0 || receiptedUnits > admittedUnits) {
    throw new RangeError(`progressOf: ${receiptedUnits} of ${admittedUnits}`);
  }
  if (receiptedUnits === admittedUnits) return 100;
  return Math.floor((receiptedUnits * 10_000) / admittedUnits) / 100;
}
