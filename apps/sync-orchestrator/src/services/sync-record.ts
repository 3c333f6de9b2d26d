/**
 * Maps a stored sync to the public Sync of spec 2.11: no extra properties, `completedAt` and
 * `failureReason` only when they exist (absent, never null or zero), `issues` and
 * `providerRequests` always empty in this increment.
 */
import type { SyncRecordV1 } from '@switchyard/messaging';
import type { SyncRow } from '../db/repositories/sync.repository.js';
import { progressOf } from '../domain/sync-state.js';

export function toSyncRecord(row: SyncRow): SyncRecordV1 {
  return {
    id: row.id,
    status: row.status,
    requestedAt: row.requestedAt,
    startFrom: row.startFrom,
    ...(row.completedAt ? { completedAt: row.completedAt } : {}),
    attempts: row.attempts,
    progress: progressOf(row.receiptedUnits, row.admittedUnits),
    ...(row.failureReason ? { failureReason: row.failureReason } : {}),
    issues: [],
    providerRequests: [],
  };
}
