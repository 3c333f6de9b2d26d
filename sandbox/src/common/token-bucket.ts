/**
 * Token buckets for provider rate limits, keyed by `RateLimit.key`. Buckets run on wall time (a
 * client's real request rate is what a provider limits, whatever the simulated clock says). A
 * request takes one token from every bucket that applies, or none at all: a refused request never
 * drains the other buckets.
 */
import type { RateLimit } from './sim-kit.types.js';

interface Bucket {
  tokens: number;
  updatedMs: number;
}

export type TakeResult = { ok: true } | { ok: false; retryAfterSeconds: number };

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly wallNow: () => number = () => performance.now()) {}

  take(limits: readonly RateLimit[]): TakeResult {
    const now = this.wallNow();
    let waitS = 0;
    const current = limits.map((limit) => {
      let bucket = this.buckets.get(limit.key);
      if (!bucket) {
        bucket = { tokens: limit.burst, updatedMs: now };
        this.buckets.set(limit.key, bucket);
      }
      bucket.tokens = Math.min(limit.burst, bucket.tokens + ((now - bucket.updatedMs) / 1000) * limit.ratePerSecond);
      bucket.updatedMs = now;
      if (bucket.tokens < 1) waitS = Math.max(waitS, (1 - bucket.tokens) / limit.ratePerSecond);
      return bucket;
    });
    if (waitS > 0) return { ok: false, retryAfterSeconds: Math.round(waitS * 1000) / 1000 };
    for (const bucket of current) bucket.tokens -= 1;
    return { ok: true };
  }

  reset(): void {
    this.buckets.clear();
  }
}
