/**
 * Usage counters from stored observations (spec 2.10 Counter, Utilization; global rules 1 and 2) —
 * the formulas of docs/metrics.md, as pure functions. A customer with the same observations and a
 * spreadsheet gets the same numbers; the definitions there are the contract, this is their code.
 *
 * The model: one metric's observations of one vehicle become *segments* between consecutive
 * observations, each
 * - `valid`: at most MAX_OBSERVATION_GAP_SECONDS long and plausible; carries its `amount` (meters or
 *   seconds) and counts as observed time;
 * - `excluded`: at most the gap long, but the cumulative counter went backwards (reset, rollover,
 *   device swap: `counter_decreased`) or rose faster than the elapsed time allows
 *   (`implausible_increase`): counted in `excludedIntervals`, never as usage, not observed time;
 * - `gap`: longer than the maximum gap: unobserved time, never zero usage.
 * A window's (or bucket's) figure is the sum over segments of their amount pro rata of the part of
 * the segment inside it; its coverage the sum of the valid parts' lengths.
 *
 * Invariants: a figure is never negative and never exceeds what the elapsed observed time allows;
 * missing data is `missing`/`insufficient_data` with `value: null`, never 0; the result depends only on
 * the set of observations (their arrival order, duplicates and anything further than the maximum gap
 * outside the window change nothing).
 */
import type { EngineState } from '../telemetry-metrics.js';

/** Spec 2.10 / 8: consecutive observations further apart than this are unobserved time. */
export const MAX_OBSERVATION_GAP_SECONDS = 1800;
const GAP_MS = MAX_OBSERVATION_GAP_SECONDS * 1000;

export const UTILIZATION_DEFINITION = 'engine_runtime_over_observed_time_v1';

/** The cumulative counters a report reads, with the fastest plausible rise (per second elapsed) plus a fixed allowance for the provider's rounding. */
export const COUNTER_KINDS = {
  /** odometer, meters: at most 90 m/s (324 km/h) plus 500 m of rounding (a tenth of a mile is 161 m). */
  distance: { unit: 'meters', maxRatePerSecond: 90, allowance: 500 },
  /** engineHours, seconds: at most one second per second plus 360 s (a tenth of an hour). */
  engineSeconds: { unit: 'seconds', maxRatePerSecond: 1, allowance: 360 },
  /** totalIdleTime, seconds: as engine seconds. */
  idleSeconds: { unit: 'seconds', maxRatePerSecond: 1, allowance: 360 },
} as const;
export type CounterKind = keyof typeof COUNTER_KINDS;
export type CounterUnit = (typeof COUNTER_KINDS)[CounterKind]['unit'];

export const COUNTER_STATUSES = ['missing', 'insufficient_data', 'partial', 'complete'] as const;
export type CounterStatus = (typeof COUNTER_STATUSES)[number];

/** The reasons a report names in `limitations`. */
export const USAGE_LIMITATIONS = {
  counter_decreased: 'a cumulative counter went backwards between two observations (reset, rollover or device swap); that interval is excluded',
  implausible_increase: 'a cumulative counter rose faster than the elapsed time allows; that interval is excluded',
  unobserved_gaps: `part of the window lies in no valid or excluded interval (observations more than ${MAX_OBSERVATION_GAP_SECONDS} s apart, or none yet at the window's edge): that time is unobserved, not zero usage`,
  engine_runtime_from_engine_state: 'no engine-hours counter was observed: engine runtime comes from engine-state intervals (on and idle count as running)',
  other_sources_ignored: 'the metric was reported by more than one source: only the source with the most valid observed time is counted (`sources`)',
  window_beyond_retention: 'the window starts more than 400 days ago, before the kept observation history (decision 0025): readings there may have been dropped, so that time counts as unobserved, never as zero usage',
} as const;
export type UsageLimitation = keyof typeof USAGE_LIMITATIONS;

export interface CounterSample {
  observedAtMs: number;
  value: number;
  source: string;
}

export interface StateSample {
  observedAtMs: number;
  state: EngineState;
  source: string;
}

export type Segment =
  | { kind: 'valid'; startMs: number; endMs: number; amount: number }
  | { kind: 'excluded'; startMs: number; endMs: number; reason: 'counter_decreased' | 'implausible_increase' }
  | { kind: 'gap'; startMs: number; endMs: number };

/** One series' segments and its observation times (one counter source, or the merged engine states). */
export interface SegmentSeries {
  /** `<metric>/<source>`, e.g. `odometer/samsara:obdOdometerMeters`. */
  source: string;
  segments: Segment[];
  sampleTimesMs: number[];
  /** The provider source of each observation of `sampleTimesMs`. */
  sampleSources: string[];
}

export interface UsageWindow {
  startMs: number;
  endMs: number;
}

export interface CounterInterval {
  startMs: number;
  endMs: number;
  /** Null when nothing inside the bucket was observed (unknown, never 0). */
  amount: number | null;
}

export interface CounterFigure {
  status: CounterStatus;
  value: number | null;
  unit: CounterUnit;
  coverageSeconds: number;
  coveragePercent: number;
  sampleCount: number;
  excludedIntervals: number;
  sources: string[];
  intervals?: CounterInterval[];
  limitations: UsageLimitation[];
}

/** Figures are rounded to 3 decimals (millimeters, milliseconds) once, at the end. */
export const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** Observations that can touch the window: anything further out only forms gaps or segments outside it. */
const inReach = (t: number, w: UsageWindow) => t >= w.startMs - GAP_MS && t <= w.endMs + GAP_MS;

/** Sorted by time, one per instant (the first source by name at a tie in a merged series; equal (time, source) pairs are duplicates). */
function ordered<S extends { observedAtMs: number; source: string }>(samples: readonly S[]): S[] {
  const sorted = [...samples].sort((a, b) => a.observedAtMs - b.observedAtMs || (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
  return sorted.filter((s, i) => i === 0 || s.observedAtMs !== sorted[i - 1]?.observedAtMs);
}

/** Consecutive pairs of a list: [[x0, x1], [x1, x2], …]. */
export function pairs<T>(list: readonly T[]): [T, T][] {
  const out: [T, T][] = [];
  for (let i = 1; i < list.length; i++) out.push([list[i - 1] as T, list[i] as T]);
  return out;
}

/** The segment between two consecutive readings of one cumulative counter. */
export function counterSegment(kind: CounterKind, a: { observedAtMs: number; value: number }, b: { observedAtMs: number; value: number }): Segment {
  const [startMs, endMs] = [a.observedAtMs, b.observedAtMs];
  const elapsedS = (endMs - startMs) / 1000;
  if (endMs - startMs > GAP_MS) return { kind: 'gap', startMs, endMs };
  const delta = b.value - a.value;
  if (delta < 0) return { kind: 'excluded', startMs, endMs, reason: 'counter_decreased' };
  const { maxRatePerSecond, allowance } = COUNTER_KINDS[kind];
  if (delta > elapsedS * maxRatePerSecond + allowance) return { kind: 'excluded', startMs, endMs, reason: 'implausible_increase' };
  // A duration counter cannot run faster than the clock: a rise within the allowance counts as the elapsed time.
  return { kind: 'valid', startMs, endMs, amount: kind === 'distance' ? delta : Math.min(delta, elapsedS) };
}

/** One series per source of a cumulative counter (different sources' counters are not comparable). */
export function counterSeries(kind: CounterKind, metric: string, samples: readonly CounterSample[], window: UsageWindow): SegmentSeries[] {
  const bySource = new Map<string, CounterSample[]>();
  for (const s of samples) {
    if (!inReach(s.observedAtMs, window) || !Number.isFinite(s.value)) continue;
    // Appended in place: copying the list per sample made a 30-day series (43,200 samples) quadratic.
    const list = bySource.get(s.source);
    if (list) list.push(s);
    else bySource.set(s.source, [s]);
  }
  return [...bySource.entries()].map(([source, list]) => {
    const series = ordered(list);
    const segments = pairs(series).map(([a, b]) => counterSegment(kind, a, b));
    return { source: `${metric}/${source}`, segments, sampleTimesMs: series.map((s) => s.observedAtMs), sampleSources: series.map((s) => s.source) };
  });
}

/**
 * Engine-state intervals as one series (all sources merged: a state is not cumulative): the state
 * observed at the start of a segment holds to its end; `on` and `idle` are running (amount = the
 * segment's length), `off` is not (amount 0). At one instant the first source by name wins.
 */
export function engineStateSeries(samples: readonly StateSample[], window: UsageWindow): SegmentSeries[] {
  const series = ordered(samples.filter((s) => inReach(s.observedAtMs, window)));
  if (series.length === 0) return [];
  const segments: Segment[] = pairs(series).map(([a, b]) => {
    const [startMs, endMs] = [a.observedAtMs, b.observedAtMs];
    if (endMs - startMs > GAP_MS) return { kind: 'gap', startMs, endMs };
    return { kind: 'valid', startMs, endMs, amount: a.state === 'off' ? 0 : (endMs - startMs) / 1000 };
  });
  const sources = [...new Set(series.map((s) => s.source))].sort();
  return [{ source: sources.map((s) => `engineState/${s}`).join(','), segments, sampleTimesMs: series.map((s) => s.observedAtMs), sampleSources: series.map((s) => s.source) }];
}

export interface Tally {
  coverageMs: number;
  amount: number;
  excluded: number;
  /** Time inside the range covered by excluded intervals. */
  excludedMs: number;
  reasons: Set<UsageLimitation>;
}

export const emptyTally = (): Tally => ({ coverageMs: 0, amount: 0, excluded: 0, excludedMs: 0, reasons: new Set() });

/** Sums the segments over [startMs, endMs): each segment's amount pro rata of its part inside. */
export function tally(segments: readonly Segment[], startMs: number, endMs: number): Tally {
  const t = emptyTally();
  for (const g of segments) {
    const overlap = Math.min(g.endMs, endMs) - Math.max(g.startMs, startMs);
    if (overlap <= 0) continue;
    if (g.kind === 'valid') {
      t.coverageMs += overlap;
      t.amount += (g.amount * overlap) / (g.endMs - g.startMs);
    } else if (g.kind === 'excluded') {
      t.excluded++;
      t.excludedMs += overlap;
      t.reasons.add(g.reason);
    }
  }
  return t;
}

/**
 * What a figure needs of one candidate series, however it is stored: its tally and its
 * observation count over a time range. `rawView` reads segments built from observations; a rollup
 * (usage rollups of telemetry-ingest) answers the same from pre-summed slots.
 */
export interface SeriesView {
  source: string;
  tally(startMs: number, endMs: number): Tally;
  samples(startMs: number, endMs: number): number;
}

export const rawView = (series: SegmentSeries): SeriesView => ({
  source: series.source,
  tally: (a, b) => tally(series.segments, a, b),
  samples: (a, b) => series.sampleTimesMs.filter((x) => x >= a && x < b).length,
});

/** The same view with each valid amount replaced by its observed time minus it (engine not running); pro rata is linear, so this is the segment-wise complement. */
export const complementView = (view: SeriesView): SeriesView => ({
  source: view.source,
  tally: (a, b) => {
    const t = view.tally(a, b);
    return { ...t, amount: Math.max(0, t.coverageMs / 1000 - t.amount) };
  },
  samples: (a, b) => view.samples(a, b),
});

/**
 * The Counter of a window from its candidate series: the series with the most valid observed time in
 * the window counts (then the most observations, then the first name); `edges` (bucketEdges) asks for
 * `intervals`. Status: `missing` when no series has an observation within the maximum gap of the
 * window; `insufficient_data` when there are observations but no valid observed time inside it;
 * `partial` when the valid observed time is less than the window; else `complete`.
 */
export function counterFigure(unit: CounterUnit, candidates: readonly SegmentSeries[], window: UsageWindow, edges?: readonly number[]): CounterFigure {
  return counterFigureOf(
    unit,
    candidates.filter((c) => c.sampleTimesMs.length > 0).map(rawView),
    window,
    edges,
  );
}

/** counterFigure over views: every view given has at least one observation within the maximum gap of the window. */
export function counterFigureOf(unit: CounterUnit, candidates: readonly SeriesView[], window: UsageWindow, edges?: readonly number[]): CounterFigure {
  const windowMs = window.endMs - window.startMs;
  const scored = candidates
    .map((c) => ({ c, t: c.tally(window.startMs, window.endMs), samples: c.samples(window.startMs, window.endMs) }))
    .sort((a, b) => b.t.coverageMs - a.t.coverageMs || b.samples - a.samples || (a.c.source < b.c.source ? -1 : 1));
  const best = scored[0];
  if (!best) return { status: 'missing', value: null, unit, coverageSeconds: 0, coveragePercent: 0, sampleCount: 0, excludedIntervals: 0, sources: [], limitations: [], ...(edges ? { intervals: emptyIntervals(edges) } : {}) };
  const { t } = best;
  const status: CounterStatus = t.coverageMs === 0 ? 'insufficient_data' : t.coverageMs < windowMs ? 'partial' : 'complete';
  const limitations = [...t.reasons];
  // Unobserved: part of the window lies in no valid and no excluded interval (a gap, or before the first / after the last observation).
  if (t.coverageMs + t.excludedMs < windowMs) limitations.push('unobserved_gaps');
  if (scored.length > 1) limitations.push('other_sources_ignored');
  const figure: CounterFigure = {
    status,
    value: t.coverageMs === 0 ? null : round3(t.amount),
    unit,
    coverageSeconds: round3(t.coverageMs / 1000),
    coveragePercent: round3((t.coverageMs / windowMs) * 100),
    sampleCount: best.samples,
    excludedIntervals: t.excluded,
    sources: best.c.source.split(','),
    limitations: sortLimitations(limitations),
  };
  if (edges) {
    figure.intervals = pairs(edges).map(([startMs, endMs]) => {
      const b = best.c.tally(startMs, endMs);
      return { startMs, endMs, amount: b.coverageMs === 0 ? null : round3(b.amount) };
    });
  }
  return figure;
}

const emptyIntervals = (edges: readonly number[]): CounterInterval[] => pairs(edges).map(([startMs, endMs]) => ({ startMs, endMs, amount: null }));

const LIMITATION_ORDER = Object.keys(USAGE_LIMITATIONS) as UsageLimitation[];
export const sortLimitations = (list: Iterable<UsageLimitation>): UsageLimitation[] => {
  const set = new Set(list);
  return LIMITATION_ORDER.filter((l) => set.has(l));
};

export interface UsageObservations {
  odometer: readonly CounterSample[];
  engineHours: readonly CounterSample[];
  totalIdleTime: readonly CounterSample[];
  engineState: readonly StateSample[];
}

/** Engine runtime's series: the engine-hours counter when any is observed near the window, else engine-state intervals. */
export function engineRuntimeSeries(o: Pick<UsageObservations, 'engineHours' | 'engineState'>, window: UsageWindow): { series: SegmentSeries[]; fromState: boolean } {
  const counter = counterSeries('engineSeconds', 'engineHours', o.engineHours, window);
  if (counter.length > 0) return { series: counter, fromState: false };
  return { series: engineStateSeries(o.engineState, window), fromState: true };
}

export const distanceFigure = (o: Pick<UsageObservations, 'odometer'>, w: UsageWindow, edges?: readonly number[]): CounterFigure =>
  counterFigure('meters', counterSeries('distance', 'odometer', o.odometer, w), w, edges);

export const idleFigure = (o: Pick<UsageObservations, 'totalIdleTime'>, w: UsageWindow, edges?: readonly number[]): CounterFigure =>
  counterFigure('seconds', counterSeries('idleSeconds', 'totalIdleTime', o.totalIdleTime, w), w, edges);

export function engineRuntimeFigure(o: Pick<UsageObservations, 'engineHours' | 'engineState'>, w: UsageWindow, edges?: readonly number[]): CounterFigure {
  const { series, fromState } = engineRuntimeSeries(o, w);
  const figure = counterFigure('seconds', series, w, edges);
  if (fromState && figure.status !== 'missing') figure.limitations = sortLimitations([...figure.limitations, 'engine_runtime_from_engine_state']);
  return figure;
}

export interface UtilizationFigures {
  engineRuntime: CounterFigure;
  engineNotRunning: CounterFigure;
  distance: CounterFigure;
  idleTime: CounterFigure;
  /** engineRuntime / its observed time × 100, 0-100; null when nothing was observed. */
  engineOnPercentOfObservedTime: number | null;
  limitations: UsageLimitation[];
}

/** The candidate views of a vehicle's usage from its raw observations (each with an observation within reach of the window). */
export function rawUsageViews(o: UsageObservations, w: UsageWindow): UtilizationViews {
  const { series, fromState } = engineRuntimeSeries(o, w);
  const live = (list: SegmentSeries[]) => list.filter((c) => c.sampleTimesMs.length > 0).map(rawView);
  return { engine: live(series), engineFromState: fromState, odometer: live(counterSeries('distance', 'odometer', o.odometer, w)), idle: live(counterSeries('idleSeconds', 'totalIdleTime', o.totalIdleTime, w)) };
}

/** Utilization (definition engine_runtime_over_observed_time_v1): runtime and not-running over the same observed engine intervals. */
export function utilizationFigures(o: UsageObservations, w: UsageWindow, edges?: readonly number[]): UtilizationFigures {
  return utilizationOf(rawUsageViews(o, w), w, edges);
}

/** Engine runtime over views, naming the engine-state fallback. */
export function engineRuntimeFigureOf(v: Pick<UtilizationViews, 'engine' | 'engineFromState'>, w: UsageWindow, edges?: readonly number[]): CounterFigure {
  const figure = counterFigureOf('seconds', v.engine, w, edges);
  if (v.engineFromState && figure.status !== 'missing') figure.limitations = sortLimitations([...figure.limitations, 'engine_runtime_from_engine_state']);
  return figure;
}

/** The candidate series of a utilization, however stored (each with an observation within reach of the window). */
export interface UtilizationViews {
  engine: SeriesView[];
  engineFromState: boolean;
  odometer: SeriesView[];
  idle: SeriesView[];
}

export function utilizationOf(v: UtilizationViews, w: UsageWindow, edges?: readonly number[]): UtilizationFigures {
  const engineRuntime = engineRuntimeFigureOf(v, w, edges);
  const engineNotRunning = counterFigureOf('seconds', v.engine.map(complementView), w, edges);
  engineNotRunning.limitations = engineRuntime.limitations;
  const distance = counterFigureOf('meters', v.odometer, w, edges);
  const idleTime = counterFigureOf('seconds', v.idle, w, edges);
  const running = engineRuntime.value;
  const observed = engineRuntime.coverageSeconds;
  const engineOnPercentOfObservedTime = running === null || observed === 0 ? null : round3(Math.min(100, (running / observed) * 100));
  const limitations = sortLimitations([engineRuntime, distance, idleTime].flatMap((f) => f.limitations));
  return { engineRuntime, engineNotRunning, distance, idleTime, engineOnPercentOfObservedTime, limitations };
}
