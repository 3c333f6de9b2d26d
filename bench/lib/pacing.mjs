/**
 * Backfill pacing from the provider's side: the simulator's `/_sim/stats` counters of one account
 * (requests and 429s per path, first/last request wall time) → achieved request rate against the
 * allowed rate, and the share of 429s. Pure (tested in bench/test/jobs.test.mjs).
 *
 * Rates are taken over each counter's own active span (first → last request), so a path used only
 * in one phase of the backfill is judged on that phase. "Achieved" counts only requests the provider
 * accepted (not 429), because a refused request moves no data; "offered" counts all of them.
 */

/** Accepted and offered request rates of one counter, per second, and its share of 429s. */
export function pacingOf(counts, allowedPerSecond) {
  const spanS = counts.lastAtMs !== null && counts.firstAtMs !== null ? (counts.lastAtMs - counts.firstAtMs) / 1000 : 0;
  const accepted = counts.requests - counts.rateLimited;
  // n requests at rate r span (n - 1) / r seconds: the first request opens the span.
  const rate = (n) => (spanS > 0 && n > 1 ? (n - 1) / spanS : Number.NaN);
  return {
    requests: counts.requests,
    rateLimited: counts.rateLimited,
    share429: counts.requests ? counts.rateLimited / counts.requests : 0,
    spanSeconds: spanS,
    acceptedPerSecond: rate(accepted),
    offeredPerSecond: rate(counts.requests),
    allowedPerSecond,
    achievedOfAllowed: rate(accepted) / allowedPerSecond,
  };
}

/**
 * The whole account against `globalAllowed` and each path against its tier (`tiers[path]`, else the
 * global limit). `account` is one entry of `/_sim/stats` `accounts`.
 */
export function pacingReport(account, { globalAllowed, tiers = {} }) {
  return {
    total: pacingOf(account, globalAllowed),
    paths: Object.fromEntries(Object.entries(account.paths).map(([path, counts]) => [path, pacingOf(counts, tiers[path] ?? globalAllowed)])),
  };
}
