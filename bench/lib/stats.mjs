/**
 * Small, exact statistics for benchmark samples. Percentiles use the nearest-rank method on the
 * sorted samples (no interpolation, no histogram buckets), so p99 is a latency some request really
 * had. A round at 32 in flight collects 5k-50k samples: sorting a Float64Array of that size takes
 * a few milliseconds, cheaper and simpler than a histogram at this scale.
 */

/** Nearest-rank percentile of an ascending-sorted typed array or array; NaN when empty. */
export function percentile(sorted, p) {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const rank = Math.min(n, Math.max(1, Math.ceil(p * n)));
  return sorted[rank - 1];
}

/** Median of plain numbers (mean of the middle two when even); NaN when empty. */
export function median(values) {
  const xs = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const n = xs.length;
  if (n === 0) return Number.NaN;
  const mid = Math.floor(n / 2);
  return n % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}

/** Latency summary in milliseconds of `count` samples at the start of `samples` (sorted in place). */
export function summarizeLatencies(samples, count) {
  const view = samples.subarray(0, count).sort();
  return {
    p50: percentile(view, 0.5),
    p90: percentile(view, 0.9),
    p99: percentile(view, 0.99),
    max: count ? view[count - 1] : Number.NaN,
  };
}
