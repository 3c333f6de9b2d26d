/**
 * Small named helpers for the messaging integration specs: polling assertions instead of fixed
 * sleeps wherever the outcome is "eventually", and a captured-log record type.
 */
export interface CapturedLog {
  level: 'info' | 'warn' | 'error';
  obj: object;
  msg: string;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Retries `assertion` every 20 ms until it passes or `timeoutMs` passes; then rethrows its last error. */
export async function eventually(assertion: () => unknown, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await assertion();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(20);
    }
  }
}

/** A namespace no other run uses: `t` + time + random, lower-case base 36. */
export function uniqueNamespace(): string {
  return `t${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}
