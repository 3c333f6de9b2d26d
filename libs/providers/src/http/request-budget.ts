/**
 * A request budget: every call to one provider account takes a token first, so all work on that
 * account together stays under the provider's rate (Samsara 150 req/s per token, 200 per org).
 * This in-memory token bucket serves one process; the orchestrator supplies a budget shared across
 * processes (PostgreSQL-backed) through the same interface.
 */
export interface RequestBudget {
  /**
   * Resolves when a request may be sent; rejects if `signal` aborts first. `path` is the request's
   * URL path, for budgets that also keep per-endpoint tiers (e.g. Samsara's 5 req/s trips stream);
   * budgets without tiers ignore it.
   */
  acquire(signal?: AbortSignal, path?: string): Promise<void>;
  /**
   * Called when the provider answered 429 to a request for `path`: nobody on this account (or,
   * when `path` belongs to a tier the budget keeps, on that tier) sends before `untilMs`.
   */
  pauseUntil(untilMs: number, path?: string): void;
}

export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      const timer = setTimeout(resolve, ms);
      signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          reject(signal.reason as Error);
        },
        { once: true },
      );
    }),
};

export class TokenBucketBudget implements RequestBudget {
  private tokens: number;
  private updatedAt: number;
  private pausedUntil = 0;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number = ratePerSecond,
    private readonly clock: Clock = systemClock,
  ) {
    this.tokens = burst;
    this.updatedAt = clock.now();
  }

  acquire(signal?: AbortSignal): Promise<void> {
    // Serialize waiters so tokens are handed out in arrival order.
    const turn = this.queue.then(() => this.take(signal));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  pauseUntil(untilMs: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, untilMs);
  }

  private async take(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      if (now < this.pausedUntil) {
        await this.clock.sleep(this.pausedUntil - now, signal);
        continue;
      }
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.updatedAt) / 1000) * this.ratePerSecond);
      this.updatedAt = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await this.clock.sleep(Math.ceil(((1 - this.tokens) / this.ratePerSecond) * 1000), signal);
    }
  }
}

/** No limit: for tests that exercise something else. */
export const unlimitedBudget: RequestBudget = { acquire: async () => undefined, pauseUntil: () => undefined };
