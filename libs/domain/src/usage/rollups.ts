/**
 * Usage rollups (docs/metrics.md "Rollups"): what telemetry-ingest keeps per vehicle, metric and
 * series so that a long window is summed from pre-computed slots instead of its raw observations.
 * - a *slot* is 15 minutes of UTC, aligned (every IANA zone's offset is a multiple of 15 minutes, so
 *   every local hour and day edge is a slot edge): the pro-rata amount and observed time of the valid
 *   segments inside it, its observation count and (engine states) the sources observed in it;
 * - an *interval row* is an excluded segment, kept whole (counted, not summed; at most the maximum
 *   gap long, so a range's rows are rebuilt from the observations within the gap of it);
 * - a view over rollups answers `tally` and `samples` exactly as the raw view: slots for the aligned
 *   interior of the window, raw segments for the parts at the window's unaligned edges. A report
 *   reads the interior's slots already summed per report bucket (`summedSlotStarts`: the database
 *   groups them, telemetry-ingest's usage-rollup.repository.ts), so a view holds one row per series
 *   and bucket, not one per 15 minutes; `sumSlots` is the same grouping in code.
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

/** Consecutive slots of one series summed over [startMs, endMs) (a 15-minute slot is the smallest such span). */
export interface SummedSlots {
  startMs: number;
  endMs: number;
  amount: number;
  coverageMs: number;
  samples: number;
  sources: string[];
}

/**
 * Where the summed rows of a window's aligned interior start: the interior's start, then every
 * bucket edge inside it (`edges`: bucketEdges, absent = the whole interior is one row). Bucket edges
 * are slot edges (every zone offset is a multiple of 15 minutes), so a slot lies in one row; a
 * row ends where the next starts, the last at the interior's end.
 */
export function summedSlotStarts(inner: { innerStart: number; innerEnd: number }, edges?: readonly number[]): number[] {
  return [inner.innerStart, ...(edges ?? []).filter((e) => e > inner.innerStart && e < inner.innerEnd)];
}

/** `sumSlots` in code: one series' slots of [starts[0], endMs) summed per row of `starts` (the database does this for reports). */
export function sumSlots(slots: readonly SlotRow[], starts: readonly number[], endMs: number): SummedSlots[] {
  const rows = new Map<number, SummedSlots>();
  for (const s of slots) {
    if (s.slotStartMs < (starts[0] ?? Infinity) || s.slotStartMs >= endMs) continue;
    const k = starts.findLastIndex((x) => x <= s.slotStartMs);
    const row = rows.get(k) ?? { startMs: starts[k] as number, endMs: starts[k + 1] ?? endMs, amount: 0, coverageMs: 0, samples: 0, sources: [] };
    row.amount += s.amount;
    row.coverageMs += s.coverageMs;
    row.samples += s.samples;
    row.sources = [...new Set([...row.sources, ...s.sources])].sort();
    rows.set(k, row);
  }
  return [...rows.values()].sort((a, b) => a.startMs - b.startMs);
}

/** A stored 15-minute slot as a summed row of its own. */
export const slotSpan = (s: SlotRow): SummedSlots => ({ startMs: s.slotStartMs, endMs: s.slotStartMs + SLOT_MS, amount: s.amount, coverageMs: s.coverageMs, samples: s.samples, sources: s.sources });

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
 * A SeriesView of one series from its rollups: `slots` (summed rows) cover [innerStart, innerEnd)
 * (aligned), `intervals` every excluded segment overlapping the window, `edges` the raw series near
 * the window's edges (the observations of [window.start, innerStart) and [innerEnd, window.end) and
 * the nearest one before and after each part); a tally inside the window sums the rows inside and
 * raw segments outside. A row counts whole: a tally whose range cuts one is a programming error
 * (the rows were summed for other buckets) and throws, never a silently wrong figure.
 */
export function rollupView(
  source: string,
  parts: { slots: readonly SummedSlots[]; intervals: readonly IntervalRow[]; edges: SegmentSeries | undefined; innerStart: number; innerEnd: number },
): SeriesView {
  const { slots, intervals, edges, innerStart, innerEnd } = parts;
  const inside = (s: SummedSlots, x: number, y: number): boolean => {
    if (s.startMs >= x && s.endMs <= y) return true;
    if (s.startMs < y && s.endMs > x) throw new Error(`summed slots [${s.startMs}, ${s.endMs}) cut by the range [${x}, ${y}): sum them by the buckets asked`);
    return false;
  };
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
        if (inside(s, x, y)) {
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
      for (const s of slots) if (inside(s, x, y)) n += s.samples;
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
