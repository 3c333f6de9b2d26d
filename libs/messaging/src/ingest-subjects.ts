/**
 * The collection pipeline's event definitions: ingest batches (stream INGEST), receipts (RECEIPTS)
 * and fault transitions (FAULTS). Kept beside subjects.ts (which declares the streams) so the
 * pipeline's names live in one place; publisher and consumer import the same entry and so parse
 * with the same schema. Durable names of the consuming contexts are here too: every process of a
 * context shares one durable, i.e. one consumer group.
 */
import type { EventDefinition } from './port.js';
import { faultBatchV1, directoryBatchV1, telemetryBatchV1 } from './schemas/ingest-batch.v1.js';
import { faultTransitionV1 } from './schemas/ingest-fault-transition.v1.js';
import { receiptV1 } from './schemas/receipt.v1.js';
import { STREAMS } from './subjects.js';

export const INGEST_EVENTS = {
  /** `ingest.directory.<connectionId>`: vehicles, drivers, groups, trips → directory. */
  directoryBatch: { subject: 'ingest.directory.*', stream: STREAMS.INGEST.name, schema: directoryBatchV1, version: 1 },
  /** `ingest.telemetry.<connectionId>`: observations → telemetry-ingest. */
  telemetryBatch: { subject: 'ingest.telemetry.*', stream: STREAMS.INGEST.name, schema: telemetryBatchV1, version: 1 },
  /** `ingest.faults.<connectionId>`: fault snapshots or records → fault-feed. */
  faultBatch: { subject: 'ingest.faults.*', stream: STREAMS.INGEST.name, schema: faultBatchV1, version: 1 },
  /** `receipt.<syncId>.<unitId>`: a context committed (or rejected) one batch of a unit → orchestrator. */
  receipt: { subject: 'receipt.*.*', stream: STREAMS.RECEIPTS.name, schema: receiptV1, version: 1 },
  /** `fleet.faults.<connectionId>.<opened|cleared>`: derived fault transitions → internal consumers. */
  faultTransition: { subject: 'fleet.faults.*.*', stream: STREAMS.FAULTS.name, schema: faultTransitionV1, version: 1 },
} as const satisfies Record<string, EventDefinition>;

/** Durable consumer names of the ingest side (one consumer group per context). */
export const INGEST_DURABLES = {
  directory: 'directory-ingest',
  telemetryIngest: 'telemetry-ingest-ingest',
  faultFeed: 'fault-feed-ingest',
} as const;

// The pipeline's schemas travel with its names (index.ts has one export line for all of this).
export * from './schemas/ingest-records.v1.js';
export * from './schemas/ingest-batch.v1.js';
export * from './schemas/receipt.v1.js';
export * from './schemas/ingest-fault-transition.v1.js';
