/**
 * Timing defaults and helpers shared by both buses, so switching implementation never changes a
 * deadline.
 */

/** 5 s: far above the ~1 ms request round trip, below a typical 10 s HTTP gateway timeout. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 5_000;

/** Waits for every promise to settle, at most `deadlineMs`; true when all settled in time. */
export async function settleWithin(work: readonly Promise<unknown>[], deadlineMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      Promise.allSettled(work).then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), deadlineMs))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
