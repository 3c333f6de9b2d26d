/**
 * `ingest.<directory|telemetry|faults>.<connectionId>` v1: one normalized page of provider data,
 * published by a collector and committed by the owning context (directory, telemetry-ingest,
 * fault-feed). Invariants:
 * - `batchId` is stable for one (unit lease, page, part): a redelivered or republished page carries
 *   the same id, so the context's batch ledger commits it once and answers with the same receipt;
 *   see `ingestBatchId`;
 * - a batch stays under NATS's 1 MiB default max payload: at most `INGEST_MAX_RECORDS[kind]`
 *   records AND at most `INGEST_MAX_PAYLOAD_BYTES` of JSON — publishers split with
 *   `splitIngestRecords` (the record counts alone are not enough: one vehicle may carry 1,000 groups);
 * - `providerCursor` is committed in the same transaction as the records (null = leave it alone).
 */
import { createHash } from 'node:crypto';
import { syncIdSchema } from '@switchyard/contracts';
import { z } from 'zod';
import { providerV1 } from './connection-config.v1.js';
import {
  driverRecordV1,
  faultRecordV1,
  faultSnapshotV1,
  groupRecordV1,
  observationV1,
  tripRecordV1,
  vehicleRecordV1,
} from './ingest-records.v1.js';

export const INGEST_KINDS = ['vehicles', 'drivers', 'groups', 'trips', 'observations', 'fault_snapshots', 'fault_records'] as const;
export type IngestKind = (typeof INGEST_KINDS)[number];

/**
 * Max records per batch by kind. Sized from typical JSON sizes of the normalized records (vehicle
 * with 15 metadata cells ~2.5-3 KB, driver ~1.5 KB, group ~0.4 KB, trip ~0.8 KB, observation
 * ~0.25 KB, snapshot with a few codes ~0.5 KB, fault record ~0.45 KB) to land near 500 KB, half the
 * 1 MiB limit; the byte cap below is what actually guarantees the fit.
 */
export const INGEST_MAX_RECORDS: Readonly<Record<IngestKind, number>> = {
  vehicles: 200,
  drivers: 300,
  groups: 1_000,
  trips: 500,
  observations: 2_000,
  fault_snapshots: 500,
  fault_records: 1_000,
};

/** JSON bytes of a whole batch message: 1 MiB (1,048,576) minus room for headers and the envelope. */
export const INGEST_MAX_PAYLOAD_BYTES = 960_000;

const isoDateTime = z.iso.datetime({ offset: true });

const envelope = {
  /** Stable id of this (lease, page, part); see ingestBatchId. Also the message's msgId. */
  batchId: z.string().regex(/^[a-z0-9_-]{8,128}$/),
  connectionId: z.uuid(),
  provider: providerV1,
  /** The sync and unit this page belongs to; null for scheduled collection (then no receipt). */
  syncId: syncIdSchema.nullable(),
  unitId: z.string().regex(/^[0-9]{1,19}$/).nullable(),
  /** The unit lease's fencing token (decimal string); echoed in the receipt. */
  fencingToken: z.string().regex(/^[0-9]{1,19}$/).nullable(),
  fetchedAt: isoDateTime,
  /** Opaque provider resume token committed with the batch; null leaves the stored one unchanged. */
  providerCursor: z.string().max(8_192).nullable(),
  /** Last page of this unit (or of a full listing): the receipt's `final` tells the orchestrator. */
  final: z.boolean(),
  /**
   * The roster pass the batch belongs to (vehicles and drivers batches of a unit): the purpose of
   * its unit and how many units of its sync have that purpose (vehicles and groupMemberships: one
   * per approved vehicle; drivers: one). The directory completes the pass (sync + purpose) when
   * that many distinct units delivered their final page (decision 0011). Absent (no unit, another
   * kind, or a collector from before this field): the unit alone is the pass.
   */
  pass: z.object({ purpose: z.string().regex(/^[A-Za-z]{1,32}$/), units: z.number().int().min(1).max(1_000_000) }).strict().optional(),
};

const batchOf = <K extends IngestKind, R extends z.ZodType>(kind: K, record: R) =>
  z.object({ ...envelope, kind: z.literal(kind), records: z.array(record).max(INGEST_MAX_RECORDS[kind]) }).strict();

export const vehiclesBatchV1 = batchOf('vehicles', vehicleRecordV1);
export const driversBatchV1 = batchOf('drivers', driverRecordV1);
export const groupsBatchV1 = batchOf('groups', groupRecordV1);
export const tripsBatchV1 = batchOf('trips', tripRecordV1);
export const observationsBatchV1 = batchOf('observations', observationV1);
export const faultSnapshotsBatchV1 = batchOf('fault_snapshots', faultSnapshotV1);
/**
 * Added to v1 (optional, fault-records batches only): the read of one vehicle's fault records the
 * batch belongs to — the unit's vehicle and the end of the window read (explicit records are read
 * by their own time, up to `windowEnd`). Collectors set it on every batch of a per-vehicle faults
 * unit; fault-feed takes `windowEnd` as the time the batch knows the vehicle's faults up to
 * (inactivity is measured against it, a first pass's still-active faults open at it) and, on the
 * unit's `final` batch, reports the vehicle's faults observed at it — also when the read found no
 * record. Absent (an older collector): `fetchedAt` stands in, and only vehicles with records count.
 */
export const faultReadV1 = z.object({ vehicleSourceId: z.string().min(1).max(1024), windowEnd: isoDateTime }).strict();
export const faultRecordsBatchV1 = batchOf('fault_records', faultRecordV1).extend({ read: faultReadV1.optional() });

const bothOrNeither = (b: { syncId: string | null; unitId: string | null; fencingToken: string | null }) =>
  (b.syncId === null) === (b.unitId === null) && (b.unitId === null) === (b.fencingToken === null);
const BOTH_MESSAGE = { message: 'syncId, unitId and fencingToken are all set or all null' };

/** `ingest.directory.<connectionId>`: vehicles, drivers, groups, trips. */
export const directoryBatchV1 = z.discriminatedUnion('kind', [vehiclesBatchV1, driversBatchV1, groupsBatchV1, tripsBatchV1]).refine(bothOrNeither, BOTH_MESSAGE);
/** `ingest.telemetry.<connectionId>`: observations (latest and history alike). */
export const telemetryBatchV1 = observationsBatchV1.refine(bothOrNeither, BOTH_MESSAGE);
/** `ingest.faults.<connectionId>`: complete snapshots or explicit records. */
export const faultBatchV1 = z.discriminatedUnion('kind', [faultSnapshotsBatchV1, faultRecordsBatchV1]).refine(bothOrNeither, BOTH_MESSAGE);

export type DirectoryBatchV1 = z.output<typeof directoryBatchV1>;
export type TelemetryBatchV1 = z.output<typeof telemetryBatchV1>;
export type FaultBatchV1 = z.output<typeof faultBatchV1>;
export type IngestBatchV1 = DirectoryBatchV1 | TelemetryBatchV1 | FaultBatchV1;

export interface IngestBatchIdParts {
  connectionId: string;
  kind: IngestKind;
  /** Null for scheduled collection. */
  unitId: string | null;
  /** The lease's fencing token: a re-leased unit gets new batch ids, so its receipts are not deduped away. */
  fencingToken: string | null;
  /** The provider page: its request cursor, or `start` for the first page; for scheduled work, window + page. */
  pageKey: string;
  /** Index of the part when one page was split (0 when not split). */
  part: number;
}

/** `b_` + 40 hex chars of SHA-256 over the length-prefixed parts: stable across processes and runs. */
export function ingestBatchId(parts: IngestBatchIdParts): string {
  const hash = createHash('sha256');
  for (const value of ['switchyard.ingest-batch.v1', parts.connectionId.toLowerCase(), parts.kind, parts.unitId ?? '', parts.fencingToken ?? '', parts.pageKey, String(parts.part)]) {
    const bytes = Buffer.from(value, 'utf8');
    const len = Buffer.alloc(4);
    len.writeUInt32BE(bytes.length);
    hash.update(len).update(bytes);
  }
  return `b_${hash.digest('hex').slice(0, 40)}`;
}

/**
 * Splits one page's records into parts that each fit a batch: at most INGEST_MAX_RECORDS[kind]
 * records and at most `maxBytes` of record JSON (default INGEST_MAX_PAYLOAD_BYTES minus 8 KB for
 * the envelope). A single record larger than that is returned alone (the publish then fails loudly
 * at the server instead of being silently dropped).
 */
export function splitIngestRecords<R>(kind: IngestKind, records: readonly R[], maxBytes = INGEST_MAX_PAYLOAD_BYTES - 8_192): R[][] {
  const parts: R[][] = [];
  let current: R[] = [];
  let bytes = 0;
  for (const record of records) {
    const size = Buffer.byteLength(JSON.stringify(record)) + 1;
    if (current.length > 0 && (current.length >= INGEST_MAX_RECORDS[kind] || bytes + size > maxBytes)) {
      parts.push(current);
      current = [];
      bytes = 0;
    }
    current.push(record);
    bytes += size;
  }
  if (current.length > 0 || parts.length === 0) parts.push(current);
  return parts;
}
