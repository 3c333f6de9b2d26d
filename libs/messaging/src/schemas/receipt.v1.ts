/**
 * `receipt.<syncId>.<unitId>` v1: the owning context's answer to one ingest batch of a sync unit,
 * published only AFTER the batch (and its provider cursor) committed, with msgId
 * `receipt:<batchId>`. Invariants:
 * - one batch has exactly one receipt content: a redelivered batch re-sends the stored receipt
 *   byte for byte (same committedAt), so the duplicate window or the orchestrator's receipt key
 *   absorbs it;
 * - `status: 'committed'` means the records are durable in the context's schema; `rejected` means
 *   nothing was written and nothing will be — the connection is unknown to the context (after a
 *   short grace for the config projection to catch up) or disconnected. A rejected receipt is
 *   final for that batch; the orchestrator decides whether the unit fails;
 * - `final` echoes the batch: a unit is complete only when the receipt of its final batch is
 *   committed (earlier pages' receipts are progress, not completion).
 */
import { z } from 'zod';
import { INGEST_KINDS } from './ingest-batch.v1.js';

export const RECEIPT_CONTEXTS = ['directory', 'telemetry-ingest', 'fault-feed'] as const;
export const RECEIPT_REJECTIONS = ['connection_unknown', 'connection_disconnected'] as const;

export const receiptV1 = z
  .object({
    batchId: z.string().min(1),
    connectionId: z.uuid(),
    syncId: z.string().min(1),
    unitId: z.string().regex(/^[0-9]{1,19}$/),
    fencingToken: z.string().regex(/^[0-9]{1,19}$/),
    context: z.enum(RECEIPT_CONTEXTS),
    kind: z.enum(INGEST_KINDS),
    status: z.enum(['committed', 'rejected']),
    /** snake_case reason when rejected, else null. */
    reason: z.enum(RECEIPT_REJECTIONS).nullable(),
    /** Records the batch carried and the context accepted (0 when rejected). Re-applied duplicates count. */
    records: z.number().int().nonnegative(),
    final: z.boolean(),
    /** When the context's transaction committed (rejections: when it decided). */
    committedAt: z.iso.datetime({ offset: true }),
  })
  .strict();

export type ReceiptV1 = z.output<typeof receiptV1>;
export type ReceiptContext = (typeof RECEIPT_CONTEXTS)[number];
export type ReceiptRejection = (typeof RECEIPT_REJECTIONS)[number];

/** The receipt's msgId: one per batch. */
export const receiptMsgId = (batchId: string): string => `receipt:${batchId}`;
