/**
 * Settlement: the one place that decides what happens to a durable message after its handler ran —
 * ack, nak with a delay, or dead-letter and terminate. Pure (no NATS import), so the in-process bus
 * uses the very same rules and both pass one contract suite.
 *
 * Rules (README "Settlement"):
 * - handler returned → ack;
 * - payload failed its schema → dead-letter `schema_invalid` (retrying cannot fix bytes);
 * - handler threw `PoisonMessage` → dead-letter with its reason;
 * - handler threw anything else (incl. `RetryLater`) → nak, unless this was delivery `maxDeliver`,
 *   then dead-letter `max_deliveries`;
 * - a message that arrives with deliveryCount > maxDeliver (earlier attempts crashed or timed out
 *   without settling) is dead-lettered `max_deliveries` before the handler runs.
 * The server's own max_deliver is ours + SERVER_MAX_DELIVER_SPARE, so our dead-letter write always
 * happens before the server stops redelivering.
 */
import { PoisonMessage, RetryLater } from '../errors.js';
import { describeError } from '../logger.js';

export type HandlerOutcome = { kind: 'ok' } | { kind: 'schema_invalid'; detail: string } | { kind: 'failed'; error: unknown };

export type Settlement =
  | { action: 'ack' }
  | { action: 'nak'; delayMs: number }
  | { action: 'dead_letter'; reason: string; detail?: string };

export interface BackoffPolicy {
  /** Delay before the 2nd delivery; doubles each time. */
  initialMs: number;
  maxMs: number;
}

/** 1 s, 2 s, 4 s … capped at 60 s: quick recovery from a blip, no hot loop against a dead dependency. */
export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 1_000, maxMs: 60_000 };

/**
 * Deliveries the server allows beyond our maxDeliver: each covers one attempt that crashed the
 * process before settling; the next arrival is dead-lettered by `settleBeforeHandling`.
 */
export const SERVER_MAX_DELIVER_SPARE = 3;

export function serverMaxDeliver(maxDeliver: number): number {
  return maxDeliver + SERVER_MAX_DELIVER_SPARE;
}

/** Exponential backoff after delivery `deliveryCount` failed (1-based). */
export function backoffDelay(deliveryCount: number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  const exponent = Math.max(0, deliveryCount - 1);
  // 2^31 ms is already 24 days: cap the exponent so the arithmetic stays finite.
  return Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(exponent, 31));
}

/** Decision before running the handler: only a message already past its budget is settled here. */
export function settleBeforeHandling(deliveryCount: number, maxDeliver: number): Settlement | undefined {
  if (deliveryCount <= maxDeliver) return undefined;
  return {
    action: 'dead_letter',
    reason: 'max_deliveries',
    detail: `delivery ${deliveryCount} exceeds max ${maxDeliver}; earlier attempts ended without settling`,
  };
}

/** Decision after the handler ran (or the payload failed its schema). */
export function settle(
  outcome: HandlerOutcome,
  deliveryCount: number,
  maxDeliver: number,
  backoff: BackoffPolicy = DEFAULT_BACKOFF,
): Settlement {
  switch (outcome.kind) {
    case 'ok':
      return { action: 'ack' };
    case 'schema_invalid':
      return { action: 'dead_letter', reason: 'schema_invalid', detail: outcome.detail };
    case 'failed': {
      const { error } = outcome;
      if (error instanceof PoisonMessage) {
        return error.detail === undefined
          ? { action: 'dead_letter', reason: error.reason }
          : { action: 'dead_letter', reason: error.reason, detail: error.detail };
      }
      if (deliveryCount >= maxDeliver) {
        const { errName, errMessage } = describeError(error);
        return { action: 'dead_letter', reason: 'max_deliveries', detail: `${errName}: ${errMessage}` };
      }
      const delayMs = error instanceof RetryLater && error.delayMs !== undefined ? error.delayMs : backoffDelay(deliveryCount, backoff);
      return { action: 'nak', delayMs };
    }
  }
}

/** When the dead-letter write itself fails we must not terminate: nak and try again later. */
export function settleAfterDeadLetterFailure(deliveryCount: number, backoff: BackoffPolicy = DEFAULT_BACKOFF): Extract<Settlement, { action: 'nak' }> {
  return { action: 'nak', delayMs: backoffDelay(deliveryCount, backoff) };
}
