/**
 * A consumer's answer to an outage of what it depends on. A handler that fails because PostgreSQL
 * or the bus cannot be reached says nothing about its message: naking it would spend one of the
 * message's `maxDeliver` deliveries per try (JetStream counts every redelivery, `nak(delay)`
 * included), so a few minutes of outage would dead-letter good batches and connection
 * configurations. Instead the transport HOLDS the delivery: it keeps the message in progress
 * (`+WPI` resets the server's ack wait without a redelivery, so the delivery count does not move)
 * and runs the handler again after a short pause, until it succeeds, fails for another reason
 * (then settlement decides as always) or the process stops (then it naks once, like any
 * interrupted delivery). A held message occupies its slot of the consumer's `maxAckPending`, so
 * once every slot is held the consumer fetches nothing more: the consumer pauses while its
 * dependency is down and resumes by itself within one pause of the dependency's return.
 * docs/reliability.md: the figures and the test (system-tests/test/outage-postgres.int-spec.ts).
 */
import { BusTimeoutError, BusUnavailableError } from '@switchyard/messaging';
import { isDatabaseDeadline, isDatabaseUnavailable } from '@switchyard/persistence';

/** Pause between tries of a held delivery: 250 ms doubling, at most this (the recovery bound after the dependency is back). */
export const OUTAGE_RETRY_MAX_MS = 2_000;
const OUTAGE_RETRY_FIRST_MS = 250;

/** PostgreSQL or the bus unreachable: an infrastructure failure, not the message's fault. */
export function isInfrastructureFailure(error: unknown): boolean {
  return error instanceof BusUnavailableError || error instanceof BusTimeoutError || isDatabaseUnavailable(error);
}

/**
 * What a request answers 503 `service_unavailable` with `Retry-After` (the gateway's error filter,
 * every context's request/reply handler): an infrastructure failure, or a statement past its
 * statement or lock deadline. A consumer holds its delivery for the former only (a slow batch
 * itself may be what hits the deadline, and holding it would stall the consumer).
 */
export function answersUnavailable(error: unknown): boolean {
  return isInfrastructureFailure(error) || isDatabaseDeadline(error);
}

export interface HoldOptions {
  /** Extends the delivery's ack wait (`+WPI`); absent for request/reply. */
  inProgress: () => void;
  /** The consumer's ack wait: progress is signalled at least every third of it. */
  ackWaitMs: number;
  /** True once the process is stopping: the held delivery is given back (nak) instead. */
  stopping: () => boolean;
  /** Called on the first failure of a hold and on the recovery, for one log line each. */
  onHold?: (error: unknown) => void;
  onRecovered?: (heldMs: number, tries: number) => void;
  /** Test seam: the pause between tries. */
  retryMaxMs?: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** Runs `work`, holding the delivery through infrastructure failures as described above. */
export async function holdThroughOutages<T>(work: () => Promise<T>, options: HoldOptions): Promise<T> {
  const startedAt = Date.now();
  for (let tries = 1; ; tries += 1) {
    try {
      const result = await work();
      if (tries > 1) options.onRecovered?.(Date.now() - startedAt, tries);
      return result;
    } catch (error) {
      if (!isInfrastructureFailure(error) || options.stopping()) throw error;
      if (tries === 1) options.onHold?.(error);
      const pause = Math.min(options.retryMaxMs ?? OUTAGE_RETRY_MAX_MS, OUTAGE_RETRY_FIRST_MS * 2 ** Math.min(tries - 1, 10));
      const beat = Math.max(50, Math.floor(options.ackWaitMs / 3));
      for (let waited = 0; waited < pause && !options.stopping(); waited += beat) {
        options.inProgress();
        await sleep(Math.min(beat, pause - waited));
      }
      options.inProgress();
    }
  }
}
