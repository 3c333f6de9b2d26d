/**
 * `sync_unit_batch` of migration 0006 as the ORM sees it (for the schema-drift check only; the
 * table is read and written by the SQL of unit-batch.repository.ts). Primary key: one row per
 * (unit, fencing token, batch).
 */
import { defineEntity, p } from '@mikro-orm/postgresql';

export const SyncUnitBatchEntity = defineEntity({
  name: 'SyncUnitBatch',
  tableName: 'sync_unit_batch',
  properties: {
    unitId: p.bigint().primary(),
    fencingToken: p.bigint().primary(),
    batchId: p.text().primary(),
    final: p.boolean(),
    recordedAt: p.datetime().defaultRaw('now()'),
    committedAt: p.datetime().nullable(),
  },
});
