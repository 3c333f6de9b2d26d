/**
 * The tables of migration 0002 as the ORM sees them. The repositories write them with hand-tuned
 * SQL (row locks, keyset pages, one-statement bulk inserts); these definitions exist so the
 * schema-drift check compares the migration with a declaration, column for column and index for
 * index, and must change together with the next migration.
 */
import { defineEntity, p } from '@mikro-orm/postgresql';

export const SyncEntity = defineEntity({
  name: 'Sync',
  tableName: 'sync',
  properties: {
    id: p.text().primary(),
    /** Null exactly for internal runs (migration 0007). */
    applicationId: p.uuid().nullable(),
    connectionId: p.uuid(),
    status: p.text(),
    requestedAt: p.datetime(),
    startFrom: p.datetime(),
    intervalEnd: p.datetime(),
    purposes: p.array(),
    attempts: p.integer().default(1),
    admittedUnits: p.integer(),
    receiptedUnits: p.integer().default(0),
    completedAt: p.datetime().nullable(),
    failureReason: p.text().nullable(),
    createdXid: p.bigint(),
    correlationId: p.text().nullable(),
    traceparent: p.text().nullable(),
    updatedAt: p.datetime().defaultRaw('now()'),
    /** Migration 0007: `api` (POST /v1/syncs) or the internal origin of a run. */
    origin: p.text().default('api'),
  },
  indexes: [
    // Ascending on disk; the newest-first keyset pages scan it backwards.
    { name: 'sync_list_idx', properties: ['applicationId', 'connectionId', 'requestedAt', 'id'] },
    { name: 'sync_connection_latest_idx', properties: ['connectionId', 'requestedAt'] },
    { name: 'sync_connection_origin_idx', properties: ['connectionId', 'origin', 'requestedAt'] },
    { name: 'sync_scheduled_open_idx', properties: ['connectionId'], where: "origin = 'scheduled' and status in ('requested', 'in_progress')" },
  ],
  checks: [
    { name: 'sync_status_check', expression: "status in ('requested', 'in_progress', 'completed', 'failed')" },
    { name: 'sync_attempts_check', expression: 'attempts >= 1' },
    { name: 'sync_receipted_check', expression: 'receipted_units >= 0 and receipted_units <= admitted_units' },
    { name: 'sync_origin_check', expression: "origin ~ '^[a-z][a-z_]{0,31}$'" },
    { name: 'sync_origin_application_check', expression: "(origin = 'api') = (application_id is not null)" },
  ],
});

export const SyncUnitEntity = defineEntity({
  name: 'SyncUnit',
  tableName: 'sync_unit',
  properties: {
    id: p.bigint().primary().autoincrement(),
    syncId: p.text(),
    seq: p.integer(),
    purpose: p.text(),
    /** Null for connection-level units (drivers, groups; migration 0007). */
    vehicleSourceId: p.text().nullable(),
    windowStart: p.datetime().nullable(),
    windowEnd: p.datetime().nullable(),
    state: p.text().default('admitted'),
    attempt: p.integer().default(1),
    fencingToken: p.bigint().defaultRaw('0'),
    leaseOwner: p.text().nullable(),
    leaseExpiresAt: p.datetime().nullable(),
    heartbeatAt: p.datetime().nullable(),
    providerCursor: p.text().nullable(),
    receiptedAt: p.datetime().nullable(),
    lastErrorCode: p.text().nullable(),
    /** Migration 0004: leases of the current attempt that ended in a retryable provider failure. */
    errorAttempts: p.integer().default(0),
    /** Migration 0009: the unit's final batch is published under this token; not re-leased before awaitingReceiptsUntil. */
    awaitingToken: p.bigint().nullable(),
    awaitingReceiptsUntil: p.datetime().nullable(),
    /** Migration 0009: provider_throttled re-queues of attempt `throttleAttempt` (not error attempts). */
    throttleRequeues: p.integer().default(0),
    throttleAttempt: p.integer().default(0),
    /** Migration 0014: late writes under a superseded token that fencing alone refused. */
    fencedWrites: p.integer().default(0),
  },
  uniques: [{ name: 'sync_unit_sync_seq_unique', properties: ['syncId', 'seq'] }],
  indexes: [{ name: 'sync_unit_leasable_idx', properties: ['leaseExpiresAt', 'id'] }],
  checks: [{ name: 'sync_unit_state_check', expression: "state in ('admitted', 'receipted')" }],
});

export const SyncReceiptEntity = defineEntity({
  name: 'SyncReceipt',
  tableName: 'sync_receipt',
  properties: {
    id: p.bigint().primary().autoincrement(),
    unitId: p.bigint(),
    syncId: p.text(),
    attempt: p.integer(),
    fencingToken: p.bigint(),
    context: p.text(),
    receiptKey: p.text(),
    committedAt: p.datetime(),
    recordedAt: p.datetime().defaultRaw('now()'),
  },
  uniques: [{ name: 'sync_receipt_unit_attempt_unique', properties: ['unitId', 'attempt'] }],
});

export const ApplicationCredentialEntity = defineEntity({
  name: 'ApplicationCredential',
  tableName: 'application_credential',
  properties: {
    applicationId: p.uuid().primary(),
    environment: p.text(),
    revoked: p.boolean(),
    credentialVersion: p.integer(),
    grants: p.json(),
    receivedAt: p.datetime().defaultRaw('now()'),
    tokenVersion: p.integer().default(0),
    /** Active Connection-Tokens `[{ id, connectionId }]`; null = unknown (migration 0011). */
    connectionTokens: p.json().nullable(),
  },
});
