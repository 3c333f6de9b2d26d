/**
 * Usage rollups (docs/metrics.md "Rollups"): what telemetry-ingest keeps per vehicle, metric and
 * series so that a long window is summed from pre-computed slots instead of its raw observations.
 * - a *slot* is 15 minutes of UTC, aligned (every IANA zone's offset is a multiple of 15 minutes, so
 *   every local hour and day edge is a slot edge): the pro-rata amount and observed time of the valid
 *   segments inside it, its observation count and (engine states) the sources observed in it;
 * - an *interval row* is an excluded segment, kept whole (counted, not summed; at most the maximum
 *   gap long, so a range's rows are rebuilt from the observations within the gap of it);
 * - a view over rollups answers `tally` and `samples` exactly as the raw view: slots for the aligned
 *   interior of the window, raw segments for the parts at the window's unaligned edges.
 * Invariant: the rows of a range are a function of the observations alone (rebuilding a range from
 * raw observations gives the same rows), so re-delivered and late data only rebuild their range.
 */
import { emptyTally, MAX_OBSERVATION_GAP_SECONDS, tally, type Segment, type SegmentSeries, type SeriesView, type Tally } from './counters.js';

export const SLOT_MS = 900_000;
export const floorSlot = (t: number): number => Math.floor(t / SLOT_MS) * SLOT_MS;
export const ceilSlot = (t: number): number => Math.ceil(t / SLOT_MS) * SLOT_MS;

export interface SlotRow {
  slotStartMs: number;
  amount: number;
  coverageMs: number;
  samples: number;
  sources: string[];
}

export type IntervalRow = Extract<Segment, { kind: 'excluded' }>;

/**
 * The rollup rows of one series over the aligned range [fromMs, toMs): every slot with observed time
 * or an observation, and every excluded segment overlapping the range.
 */
export function rollupRows(series: SegmentSeries, fromMs: number, toMs: number): { slots: SlotRow[]; intervals: IntervalRow[] } {
  const slots = new Map<number, SlotRow>();
  const slot = (start: number): SlotRow => {
    let s = slots.get(start);
    if (!s) {
      s = { slotStartMs: start, amount: 0, coverageMs: 0, samples: 0, sources: [] };
      slots.set(start, s);
    }
    return s;
  };
  for (const g of series.segments) {
    if (g.kind !== 'valid' || g.endMs <= fromMs || g.startMs >= toMs) continue;
    for (let start = floorSlot(Math.max(g.startMs, fromMs)); start < Math.min(g.endMs, toMs); start += SLOT_MS) {
      const overlap = Math.min(g.endMs, start + SLOT_MS) - Math.max(g.startMs, start);
      if (overlap <= 0) continue;
      const s = slot(start);
      s.coverageMs += overlap;
      s.amount += (g.amount * overlap) / (g.endMs - g.startMs);
    }
  }
  series.sampleTimesMs.forEach((t, i) => {
    if (t < fromMs || t >= toMs) return;
    const s = slot(floorSlot(t));
    s.samples++;
    const source = series.sampleSources[i];
    if (source !== undefined && !s.sources.includes(source)) s.sources.push(source);
  });
  const intervals = series.segments.filter((g): g is IntervalRow => g.kind === 'excluded' && g.endMs > fromMs && g.startMs < toMs);
  return { slots: [...slots.values()].sort((a, b) => a.slotStartMs - b.slotStartMs).map((s) => ({ ...s, sources: s.sources.sort() })), intervals };
}

/**
 * A SeriesView of one series from its rollups: `slots` cover [innerStart, innerEnd) (aligned),
 * `intervals` every excluded segment overlapping the window, `edges` the raw series near the
 * window's edges (observations within the maximum gap of [window.start, innerStart) and
 * [innerEnd, window.end)); a tally inside the window sums slots inside and raw segments outside.
 */
export function rollupView(
  source: string,
  parts: { slots: readonly SlotRow[]; intervals: readonly IntervalRow[]; edges: SegmentSeries | undefined; innerStart: number; innerEnd: number },
): SeriesView {
  const { slots, intervals, edges, innerStart, innerEnd } = parts;
  const raw = (a: number, b: number): Tally => (edges && a < b ? tally(edges.segments, a, b) : emptyTally());
  const rawSamples = (a: number, b: number) => (edges && a < b ? edges.sampleTimesMs.filter((t) => t >= a && t < b).length : 0);
  return {
    source,
    tally: (a, b) => {
      const t = emptyTally();
      for (const [x, y] of [
        [a, Math.min(b, innerStart)],
        [Math.max(a, innerEnd), b],
      ] as const) {
        const r = raw(x, y);
        t.coverageMs += r.coverageMs;
        t.amount += r.amount;
      }
      const [x, y] = [Math.max(a, innerStart), Math.min(b, innerEnd)];
      for (const s of slots) {
        if (s.slotStartMs >= x && s.slotStartMs < y) {
          t.coverageMs += s.coverageMs;
          t.amount += s.amount;
        }
      }
      for (const g of intervals) {
        const overlap = Math.min(g.endMs, b) - Math.max(g.startMs, a);
        if (g.kind !== 'excluded' || overlap <= 0) continue;
        t.excluded++;
        t.excludedMs += overlap;
        t.reasons.add(g.reason);
      }
      return t;
    },
    samples: (a, b) => {
      let n = rawSamples(a, Math.min(b, innerStart)) + rawSamples(Math.max(a, innerEnd), b);
      const [x, y] = [Math.max(a, innerStart), Math.min(b, innerEnd)];
      for (const s of slots) if (s.slotStartMs >= x && s.slotStartMs < y) n += s.samples;
      return n;
    },
  };
}

/** The aligned interior of a window and the raw ranges its edges need (observations within the maximum gap of each edge part). */
export function rollupPlan(window: { startMs: number; endMs: number }): { innerStart: number; innerEnd: number; rawRanges: [number, number][] } | undefined {
  const innerStart = ceilSlot(window.startMs);
  const innerEnd = floorSlot(window.endMs);
  if (innerEnd - innerStart < 2 * SLOT_MS) return undefined;
  const reach = MAX_OBSERVATION_GAP_SECONDS * 1000;
  return {
    innerStart,
    innerEnd,
    rawRanges: [
      [window.startMs - reach, innerStart + reach],
      [innerEnd - reach, window.endMs + reach],
    ],
  };
}
