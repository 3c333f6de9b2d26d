/**
 * `dlq.<stream>.<durable>` v1: the envelope a consumer writes when it gives up on a message.
 * Invariant: the original bytes survive unchanged (`payload`, as UTF-8 text when the bytes are
 * valid UTF-8, else base64), so an operator can replay the exact message after a fix.
 */
import { z } from 'zod';

/** Reasons the bus itself writes; handlers may add their own snake_case reasons via PoisonMessage. */
export const DEAD_LETTER_REASONS = ['schema_invalid', 'poison', 'max_deliveries'] as const;

export const deadLetterV1 = z
  .object({
    /** Subject the message was published on (without the bus namespace). */
    originalSubject: z.string().min(1),
    /** Logical stream name (without the bus namespace), e.g. `EVENTS`. */
    stream: z.string().min(1),
    /** Durable consumer that gave up. */
    consumer: z.string().min(1),
    /** Stream sequence of the original message. */
    streamSequence: z.number().int().nonnegative(),
    msgId: z.string().optional(),
    reason: z.string().regex(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/, 'reason must be snake_case'),
    detail: z.string().optional(),
    deliveryCount: z.number().int().positive(),
    failedAt: z.iso.datetime({ offset: true }),
    payloadEncoding: z.enum(['utf8', 'base64']),
    payload: z.string(),
  })
  .strict();

export type DeadLetterV1 = z.output<typeof deadLetterV1>;
