/**
 * Waiting for asynchronous effects (a consumer wrote a row, a projection caught up) without
 * sleeping a fixed time. Invariant: both helpers give up at `timeoutMs` with an error that
 * carries the last value or assertion failure seen, so a timeout explains itself.
 */

export interface PollOptions {
  /** Give up after this long. Default 5,000 ms. */
  timeoutMs?: number;
  /** Pause between attempts. Default 50 ms. */
  intervalMs?: number;
  /** Names the wait in the timeout message, e.g. "telemetry row for vehicle v1". */
  description?: string;
}

/** A fixed pause: for tests that show something does NOT happen within a window (no second receipt). */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function describeValue(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 500 ? `${text.slice(0, 500)}…` : text;
  } catch {
    return String(value);
  }
}

/**
 * Calls `fn` until it returns a value that is not `undefined`, `null` or `false`, and returns that
 * value. An `fn` that throws is retried as well; the last error is reported on timeout.
 */
export async function pollUntil<T>(fn: () => T | Promise<T>, options: PollOptions = {}): Promise<Exclude<T, undefined | null | false>> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const intervalMs = options.intervalMs ?? 50;
  const deadline = Date.now() + timeoutMs;
  let last: { value: unknown } | { error: unknown } = { value: undefined };
  for (let attempt = 1; ; attempt++) {
    try {
      const value = await fn();
      if (value !== undefined && value !== null && value !== false) return value as Exclude<T, undefined | null | false>;
      last = { value };
    } catch (error) {
      last = { error };
    }
    if (Date.now() + intervalMs > deadline) {
      const what = options.description ? ` for ${options.description}` : '';
      const seen = 'error' in last ? `last error: ${last.error instanceof Error ? last.error.message : String(last.error)}` : `last value: ${describeValue(last.value)}`;
      throw new Error(`pollUntil timed out after ${timeoutMs} ms${what} (${attempt} attempts; ${seen})`, 'error' in last ? { cause: last.error } : undefined);
    }
    await sleep(intervalMs);
  }
}

/**
 * Runs `assertFn` (which uses `expect` or throws) until it passes; resolves with its result. On
 * timeout the last assertion error is rethrown, so the test output shows the real diff.
 */
export async function expectEventually<T>(assertFn: () => T | Promise<T>, options: PollOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const intervalMs = options.intervalMs ?? 50;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await assertFn();
    } catch (error) {
      if (Date.now() + intervalMs > deadline) {
        if (error instanceof Error) {
          error.message = `still failing after ${timeoutMs} ms${options.description ? ` (${options.description})` : ''}: ${error.message}`;
        }
        throw error;
      }
    }
    await sleep(intervalMs);
  }
}

/**
 * 'settled' once `work` has resolved or rejected, 'pending' if it has not within `ms` (a liveness
 * deadline: a teardown that may hang must not keep a test's own servers running).
 */
export async function settledWithin(work: Promise<unknown> | undefined, ms: number): Promise<'settled' | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), ms)));
  try {
    const done = Promise.resolve(work).then(
      () => 'settled' as const,
      () => 'settled' as const,
    );
    return await Promise.race([done, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
