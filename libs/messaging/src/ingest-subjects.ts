/**
 * The collection pipeline's schemas (ingest batches, receipts, fault transitions), exported in one
 * line from index.ts. Their subjects, streams and durables are declared in subjects.ts (EVENTS,
 * CONSUMERS) like every other name.
 */
export * from './schemas/ingest-records.v1.js';
export * from './schemas/ingest-batch.v1.js';
export * from './schemas/receipt.v1.js';
export * from './schemas/ingest-fault-transition.v1.js';
