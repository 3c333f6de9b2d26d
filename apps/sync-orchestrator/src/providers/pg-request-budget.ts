/**
 * A RequestBudget (libs/providers) shared by every process working one provider account: the
 * token bucket lives in `provider_budget` (db/repositories/provider-budget.repository.ts) and each
 * token is taken by one atomic UPDATE, so any number of collector processes on the account
 * together stay under its rate. A 429's Retry-After (`pauseUntil`) is written to the row, so every
 * process pauses, not just the one that was told.
 *
 * Inside one process the acquires of one budget are served in arrival order by a local queue: only
 * the head of the queue talks to PostgreSQL, so a process with 50 waiting requests polls the row
 * as one waiter, not 50. An empty bucket answers with the time until the next token (or the end of
 * the pause); the head sleeps that long — at least 1 ms, at most `maxSleepMs`, so a pause another
 * process extends or a rate raised by a restart is seen within that bound — and aborts with the
 * caller's signal. Cost: one round trip per granted acquire (0.6-0.75 ms measured on localhost; see
 * the repository header).
 *
 * Endpoint tiers (`tiers`, provider-rates.ts PROVIDER_TIERS): a request whose path matches a tier
 * first takes a token of the tier's own shared row (`<accountKey>/<tier>`, same table, same
 * statement), then one of the account's. The tier is waited for in its own queue, so requests to
 * untiered endpoints never queue behind a slow tier; a 429 on a tiered path pauses only that tier
 * (Samsara's trips stream at 5 req/s must not stop the vehicle listing). Without tiers, a tier-rate
 * endpoint served by several concurrent collectors spent the HTTP client's retries on 429s.
 *
 * Failure: a database error rejects the acquire (the request is not sent; the collector's unit
 * fails and is retried after its lease). A failed pause write is reported to `onError` and the
 * pause still holds in this process.
 */
import type { Provider } from '@switchyard/domain';
import type { Orm } from '@switchyard/persistence';
import { systemClock, type Clock, type RequestBudget } from '@switchyard/providers';
import { ProviderBudgetRepository } from '../db/repositories/provider-budget.repository.js';
import type { BudgetRate, EndpointTier } from './provider-rates.js';

export interface PgRequestBudgetOptions extends BudgetRate {
  /** `provider-rates.ts` budgetAccountKey(): `<provider>:<hash>`, never a credential. */
  accountKey: string;
  provider: Provider;
  clock?: Clock;
  /** Longest single sleep before the row is read again (default 1,000 ms). */
  maxSleepMs?: number;
  onError?: (error: unknown) => void;
  /** Per-endpoint tiers of the account (see the header). */
  tiers?: readonly EndpointTier[];
}

export class PgRequestBudget implements RequestBudget {
  readonly accountKey: string;
  private readonly repository: ProviderBudgetRepository;
  private readonly clock: Clock;
  private readonly maxSleepMs: number;
  private queue: Promise<void> = Promise.resolve();
  private ensured: Promise<void> | undefined;
  /** This process's own view of the pause (applies at once, before the row is written). */
  private localPauseUntil = 0;
  private pauseWrites: Promise<void> = Promise.resolve();
  /** One budget per endpoint tier, keyed `<accountKey>/<tier name>`. */
  private readonly tiers: readonly { tier: EndpointTier; budget: PgRequestBudget }[];

  constructor(
    orm: Orm,
    private readonly options: PgRequestBudgetOptions,
  ) {
    if (!(options.ratePerSecond > 0) || !(options.burst >= 1)) throw new RangeError('PgRequestBudget needs ratePerSecond > 0 and burst >= 1');
    this.accountKey = options.accountKey;
    this.repository = new ProviderBudgetRepository(orm);
    this.clock = options.clock ?? systemClock;
    this.maxSleepMs = options.maxSleepMs ?? 1_000;
    this.tiers = (options.tiers ?? []).map((tier) => ({
      tier,
      budget: new PgRequestBudget(orm, { ...options, ...tier, tiers: [], accountKey: `${options.accountKey}/${tier.name}` }),
    }));
  }

  private tierOf(path: string | undefined): PgRequestBudget | undefined {
    return path === undefined ? undefined : this.tiers.find((t) => t.tier.matches(path))?.budget;
  }

  async acquire(signal?: AbortSignal, path?: string): Promise<void> {
    await this.tierOf(path)?.acquire(signal);
    const turn = this.queue.then(() => this.take(signal));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  pauseUntil(untilMs: number, path?: string): void {
    const tier = this.tierOf(path);
    if (tier) return tier.pauseUntil(untilMs);
    this.localPauseUntil = Math.max(this.localPauseUntil, untilMs);
    // Relative to now, so the row's pause is on the database clock like its refills.
    const delayMs = Math.ceil(untilMs - this.clock.now());
    if (delayMs <= 0) return;
    this.pauseWrites = this.pauseWrites
      .then(() => this.ensure())
      .then(() => this.repository.pause(this.accountKey, delayMs))
      .catch((error: unknown) => this.options.onError?.(error));
  }

  private ensure(): Promise<void> {
    this.ensured ??= this.repository.ensure(this.accountKey, this.options.provider, this.options.ratePerSecond, this.options.burst).catch((error: unknown) => {
      this.ensured = undefined;
      throw error;
    });
    return this.ensured;
  }

  private async take(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const localPause = this.localPauseUntil - this.clock.now();
      if (localPause > 0) {
        await this.clock.sleep(Math.min(localPause, this.maxSleepMs), signal);
        continue;
      }
      // A pause this process announced lands in the row before its next take.
      await this.pauseWrites;
      await this.ensure();
      const result = await this.repository.take(this.accountKey);
      if (!result) {
        // The row vanished (an operator reset the table): create it again.
        this.ensured = undefined;
        continue;
      }
      if (result.granted) return;
      await this.clock.sleep(Math.min(this.maxSleepMs, Math.max(1, Math.ceil(result.waitMs))), signal);
    }
  }
}
