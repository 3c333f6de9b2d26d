/**
 * The ingest ledger tables (`ingestLedgerDdl`) as the ORM sees them: written with hand-tuned SQL
 * by IngestLedgerRepository; declared so the schema-drift check compares the migration column for
 * column. Shared by directory, telemetry-ingest and fault-feed: each lists them in its entities.
 */
import { defineEntity, p } from '@mikro-orm/postgresql';

export const IngestBatchEntity = defineEntity({
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
  indexes: [{ name: 'ingest_batch_committed_idx', properties: ['committedAt'] }],
  checks: [{ name: 'ingest_batch_status_check', expression: "status in ('pending', 'committed', 'rejected')" }],
});

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
