/**
 * The public API's request rate limit (issue 14; issue 24 item 5; decision 0032): a token bucket
 * per consumer key (`key:<id>`) and per application (`app:<id>`), taken in memory — no database
 * statement on the request path — and reconciled with the buckets of every other gateway process
 * every `requestRateSyncMs` (default 100 ms) by one batched statement (request-rate.repository.ts):
 * each process adds what it admitted to the shared bucket and adopts the shared state of every
 * bucket any process changed.
 * Error bound: a process sees another's admissions at most about two intervals late, so N processes
 * that spend the same bucket within that window admit at most (N − 1) · (burst + 2 · interval ·
 * rate) more than one bucket would; the shared bucket carries the excess as debt (it goes below
 * zero and refills at the rate), so over any longer window the admitted rate is the limit's.
 * A bucket no process touched for burst / rate seconds is full, so it is forgotten (memory stays
 * bounded by the keys in use).
 */
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { REQUEST_RATE } from '@switchyard/contracts';
import { RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { GATEWAY_SETTINGS, type GatewaySettings, type RateBucket } from '../config.js';
import { RequestRateRepository, type RateConsumption } from '../db/repositories/request-rate.repository.js';

/** Default reconciliation interval: 10 statements a second per gateway process, an error of 2 · 0.1 s · 50/s = 10 requests beyond the burst term. */
export const REQUEST_RATE_SYNC_MS = 100;

/** Whose bucket: a consumer key's or an application's (the subject is `<kind>:<id>`). */
export type RateSubjectKind = 'key' | 'app';

interface LocalBucket {
  /** Tokens at `at` (ms, this process's monotonic clock); below zero while in debt. */
  tokens: number;
  at: number;
  /** Admitted here since the last reconciliation began. */
  pending: number;
  bucket: RateBucket;
}

export interface RateDecision {
  allowed: boolean;
  /** Seconds until one token is back (0 when allowed). */
  retryAfterSeconds: number;
}

const nowMs = () => performance.now();

@Injectable()
export class RequestRateLimiter implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly buckets = new Map<string, LocalBucket>();
  private readonly rates: Record<RateSubjectKind, RateBucket>;
  private readonly syncMs: number;
  /** Longest time any configured bucket takes to refill completely: older shared state is a full bucket. */
  private readonly horizonSeconds: number;
  private since: Date | null = null;
  private flight: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private failing = false;

  constructor(
    private readonly repo: RequestRateRepository,
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
  ) {
    const { perConsumerKey, perApplication } = settings.requestRate ?? REQUEST_RATE;
    this.rates = { key: perConsumerKey, app: perApplication };
    this.syncMs = settings.requestRateSyncMs ?? REQUEST_RATE_SYNC_MS;
    this.horizonSeconds = Math.max(...Object.values(this.rates).map((b) => b.burst / b.ratePerSecond));
  }

  /** One token of the bucket of consumer key or application `id`, decided in memory. */
  take(kind: RateSubjectKind, id: string): RateDecision {
    const bucket = this.rates[kind];
    const local = this.refilled(`${kind}:${id}`, bucket);
    if (local.tokens >= 1) {
      local.tokens -= 1;
      local.pending += 1;
      return { allowed: true, retryAfterSeconds: 0 };
    }
    this.runtime.metrics.child('rateLimited', 'request_rate').inc();
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - local.tokens) / bucket.ratePerSecond)) };
  }

  /** Reconciles now (after any reconciliation in flight): what the timer does every interval; tests call it to order two processes. */
  async reconcile(): Promise<void> {
    while (this.flight) await this.flight;
    this.flight = this.exchange().finally(() => (this.flight = undefined));
    return this.flight;
  }

  onApplicationBootstrap(): void {
    this.schedule();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    // What this process admitted last still counts for the others — if the database answers within
    // a second: shutdown does not wait on an outage.
    if (!this.runtime.state.migrated) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.reconcile().catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, 1_000)))]);
    clearTimeout(timer);
  }

  private refilled(subject: string, bucket: RateBucket): LocalBucket {
    const now = nowMs();
    const local = this.buckets.get(subject);
    if (!local) {
      const fresh = { tokens: bucket.burst, at: now, pending: 0, bucket };
      this.buckets.set(subject, fresh);
      return fresh;
    }
    local.tokens = Math.min(bucket.burst, local.tokens + ((now - local.at) / 1000) * bucket.ratePerSecond);
    local.at = now;
    return local;
  }

  private async exchange(): Promise<void> {
    const consumed: RateConsumption[] = [];
    for (const [subject, local] of this.buckets) {
      if (local.pending === 0) continue;
      consumed.push({ subject, consumed: local.pending, ratePerSecond: local.bucket.ratePerSecond, burst: local.bucket.burst });
      local.pending = 0;
    }
    let shared;
    try {
      shared = await this.repo.reconcile(consumed, this.since, this.horizonSeconds);
    } catch (error) {
      // Not lost: counted again with the next reconciliation.
      for (const c of consumed) {
        const local = this.buckets.get(c.subject);
        if (local) local.pending += c.consumed;
      }
      throw error;
    }
    this.since = shared.now;
    const now = nowMs();
    for (const { subject, tokens, ageSeconds } of shared.buckets) {
      const local = this.buckets.get(subject);
      const bucket = this.rates[subject.slice(0, subject.indexOf(':')) as RateSubjectKind];
      if (!bucket) continue;
      // The shared state, refilled to now, less what was admitted here while the statement ran.
      const pending = local?.pending ?? 0;
      const current = Math.min(bucket.burst, tokens + ageSeconds * bucket.ratePerSecond) - pending;
      this.buckets.set(subject, { tokens: current, at: now, pending, bucket });
    }
    this.forgetFull(now);
  }

  private forgetFull(now: number): void {
    for (const [subject, local] of this.buckets) {
      const full = local.tokens + ((now - local.at) / 1000) * local.bucket.ratePerSecond >= local.bucket.burst;
      if (full && local.pending === 0) this.buckets.delete(subject);
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      if (!this.runtime.state.migrated) return this.schedule();
      this.reconcile()
        .then(() => {
          if (this.failing) this.runtime.logger.info('request rate reconciliation recovered');
          this.failing = false;
        })
        .catch((error: unknown) => {
          // Once per outage, not every interval.
          if (!this.failing) this.runtime.logger.warn({ err: error }, 'request rate reconciliation failed; buckets stay local until it succeeds');
          this.failing = true;
        })
        .finally(() => this.schedule());
    }, this.syncMs);
    this.timer.unref();
  }
}
