/**
 * The ingest ledger tables as the ORM sees them: written with hand-tuned SQL by
 * IngestLedgerRepository; declared so the schema-drift check compares the migration column for
 * column. Shared by directory, telemetry-ingest and fault-feed: each lists them in its entities,
 * and each one's migration 0002 writes the tables' DDL out literally (never shared code).
 */
import { defineEntity, p } from '@mikro-orm/postgresql';

/** An index a context's own migration adds to its `ingest_batch` (ledger properties, in order). */
export interface IngestBatchIndex {
  name: string;
  properties: ('connectionId' | 'kind' | 'syncId' | 'unitId' | 'fetchedAt' | 'status' | 'committedAt')[];
}

/**
 * The `ingest_batch` table; `extraIndexes` are the ones a context's later migration adds for its
 * own reads (the directory's ledger scans by connection), so its drift check expects them. A new
 * schema object per call: the launcher runs every context's ORM in one process.
 */
export function ingestBatchEntity(extraIndexes: readonly IngestBatchIndex[] = []) {
  return defineEntity({
    name: 'IngestBatch',
    tableName: 'ingest_batch',
    properties: {
      batchId: p.text().primary(),
      connectionId: p.uuid(),
      kind: p.text(),
      syncId: p.text().nullable(),
      unitId: p.text().nullable(),
      fetchedAt: p.datetime(),
      status: p.text(),
      records: p.integer().default(0),
      committedAt: p.datetime().nullable(),
      receipt: p.json().nullable(),
    },
    indexes: [{ name: 'ingest_batch_committed_idx', properties: ['committedAt'] }, ...extraIndexes],
    checks: [{ name: 'ingest_batch_status_check', expression: "status in ('pending', 'committed', 'rejected')" }],
  });
}

export const IngestBatchEntity = ingestBatchEntity();

export const ProviderCursorEntity = defineEntity({
  name: 'ProviderCursor',
  tableName: 'provider_cursor',
  properties: {
    connectionId: p.uuid().primary(),
    kind: p.text().primary(),
    cursor: p.text(),
    fetchedAt: p.datetime(),
    batchId: p.text(),
    updatedAt: p.datetime(),
  },
});

export const ConnectionPublicationEntity = defineEntity({
  name: 'ConnectionPublication',
  tableName: 'connection_publication',
  properties: {
    connectionId: p.uuid().primary(),
    kind: p.text().primary(),
    publication: p.bigint(),
    publishedAt: p.datetime(),
    lastFetchedAt: p.datetime(),
    lastFinalAt: p.datetime().nullable(),
  },
});

export const INGEST_LEDGER_ENTITIES = [IngestBatchEntity, ProviderCursorEntity, ConnectionPublicationEntity];

/** The ledger entities of a context whose migrations add `batchIndexes` to its `ingest_batch`. */
export const ingestLedgerEntities = (batchIndexes: readonly IngestBatchIndex[]) => [ingestBatchEntity(batchIndexes), ProviderCursorEntity, ConnectionPublicationEntity];
