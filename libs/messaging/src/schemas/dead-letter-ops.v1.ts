/**
 * `dead-letters.list|replay|discard` v1 (gateway → the gateway's dead-letter role, the operator
 * console; issue 30, decision 0046): the dead-letter operations of the engine in dead-letters.ts,
 * served over request/reply by the one process whose NATS user has rights on the DLQ stream and
 * may publish the subjects a replay goes to. The console's process (the public gateway) may only
 * send these three requests: it never reads the stream, never sees a payload and never publishes
 * to an ingest, receipt, event or fault subject itself. Not part of the public API.
 *
 * Invariants: a listed dead letter carries no payload, only its size (payloads may hold provider
 * data and an ingest batch is up to ~1 MB; `npm run dlq -- inspect` prints one on purpose), and its
 * detail is cut to DEAD_LETTER_DETAIL_CHARS, so a reply of DEAD_LETTER_LIST_LIMIT entries stays
 * well under NATS's 1 MiB message limit (about 1.5 KB an entry at most: ~750 KB). Replay and discard
 * name the operator who asked, for the role's audit line.
 */
import { z } from 'zod';
import { deadLetterV1 } from './dead-letter.v1.js';

/** Most dead letters one list reply carries. */
export const DEAD_LETTER_LIST_LIMIT = 500;
/** Most characters of a dead letter's detail in a list reply (the stored envelope keeps all of it). */
export const DEAD_LETTER_DETAIL_CHARS = 1_000;

const isoDateTime = z.iso.datetime({ offset: true });
const seq = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/** Who asked for a change: the signed-in console operator (decision 0045), named in the role's log. */
export const deadLetterOperatorV1 = z.object({ id: z.string().min(1).max(100), name: z.string().min(1).max(200) }).strict();

export const listDeadLettersRequestV1 = z
  .object({
    /** Original subject or a NATS pattern of it (`ingest.directory.*`, `events.>`). */
    subject: z.string().min(1).max(200).optional(),
    reason: z.string().min(1).max(100).optional(),
    consumer: z.string().min(1).max(200).optional(),
    /** Stored at or after this instant. */
    from: isoDateTime.optional(),
    /** Stored before this instant. */
    to: isoDateTime.optional(),
    limit: z.number().int().min(1).max(DEAD_LETTER_LIST_LIMIT),
  })
  .strict();

/** A stored dead letter without its payload: the envelope's other fields, the payload's size in bytes. */
export const deadLetterSummaryV1 = z
  .object({
    /** Sequence in the DLQ stream: the id replay and discard take. */
    seq,
    storedAt: isoDateTime,
    envelope: deadLetterV1.omit({ payload: true }),
    payloadBytes: z.number().int().nonnegative(),
  })
  .strict();

export const listDeadLettersReplyV1 = z.object({ deadLetters: z.array(deadLetterSummaryV1).max(DEAD_LETTER_LIST_LIMIT) }).strict();

export const deadLetterActionRequestV1 = z.object({ seq, operator: deadLetterOperatorV1 }).strict();

/** What a replay did: published to its original subject and removed, or the dead letter was gone. */
export const replayOutcomeV1 = z.discriminatedUnion('outcome', [
  z.object({ seq, outcome: z.literal('replayed'), subject: z.string().min(1) }).strict(),
  z.object({ seq, outcome: z.literal('not_found') }).strict(),
]);

/** What a discard did: removed without publishing, or the dead letter was gone. */
export const discardOutcomeV1 = z.discriminatedUnion('outcome', [
  z.object({ seq, outcome: z.literal('discarded'), subject: z.string().min(1) }).strict(),
  z.object({ seq, outcome: z.literal('not_found') }).strict(),
]);

export type DeadLetterSummaryV1 = z.output<typeof deadLetterSummaryV1>;
export type DeadLetterOperatorV1 = z.output<typeof deadLetterOperatorV1>;
