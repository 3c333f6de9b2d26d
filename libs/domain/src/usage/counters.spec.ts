/**
 * The formulas of docs/metrics.md on its worked example (worked-example.ts): every figure below is
 * the one the document computes by hand.
 * Mutations tried: counting a backwards interval as usage (delta < 0 not excluded) fails
 * "distance"; dropping the pro-rata factor at the window edge fails "distance" and the Kathmandu
 * buckets; treating a gap as observed fails "distance" (coverage); not clamping a duration rise to
 * the elapsed time fails "engine runtime".
 */
import { describe, expect, it } from '@jest/globals';
import { counterSegment, distanceFigure, engineRuntimeFigure, idleFigure, utilizationFigures } from './counters.js';
import { rollupView, SLOT_MS, summedSlotStarts, sumSlots } from './rollups.js';
import { bucketEdges } from './time-buckets.js';
import { WORKED_ENGINE_HOURS, WORKED_ENGINE_STATES, WORKED_ODOMETER, WORKED_WINDOW } from './worked-example.js';

const iso = (ms: number) => new Date(ms).toISOString();
const w = WORKED_WINDOW;

describe('the worked example of docs/metrics.md', () => {
  it('distance: valid odometer intervals pro rata, the reset excluded, the gap unobserved', () => {
    expect(distanceFigure({ odometer: WORKED_ODOMETER }, w)).toEqual({
      status: 'partial',
      value: 37_000,
      unit: 'meters',
      coverageSeconds: 3600,
      coveragePercent: 50,
      sampleCount: 5,
      excludedIntervals: 1,
      sources: ['odometer/samsara:obdOdometerMeters'],
      limitations: ['counter_decreased', 'unobserved_gaps'],
    });
  });

  it('engine runtime from the engine-hours counter: the jump excluded, a rise above the elapsed time counted as the elapsed time', () => {
    const f = engineRuntimeFigure({ engineHours: WORKED_ENGINE_HOURS, engineState: WORKED_ENGINE_STATES }, w);
    expect(f).toEqual({
      status: 'partial',
      value: 4100,
      unit: 'seconds',
      coverageSeconds: 6000,
      coveragePercent: 83.333,
      sampleCount: 6,
      excludedIntervals: 1,
      sources: ['engineHours/samsara:obdEngineSeconds'],
      limitations: ['implausible_increase'],
    });
  });

  it('utilization: runtime and not-running over the same observed time; idle missing, never 0', () => {
    const u = utilizationFigures({ odometer: WORKED_ODOMETER, engineHours: WORKED_ENGINE_HOURS, totalIdleTime: [], engineState: [] }, w);
    expect(u.engineRuntime.value).toBe(4100);
    expect(u.engineNotRunning).toMatchObject({ status: 'partial', value: 1900, coverageSeconds: 6000 });
    expect(u.engineOnPercentOfObservedTime).toBe(68.333);
    expect(u.distance.value).toBe(37_000);
    expect(u.idleTime).toEqual({ status: 'missing', value: null, unit: 'seconds', coverageSeconds: 0, coveragePercent: 0, sampleCount: 0, excludedIntervals: 0, sources: [], limitations: [] });
    expect(u.limitations).toEqual(['counter_decreased', 'implausible_increase', 'unobserved_gaps']);
  });

  it('engine runtime from engine-state intervals when no counter is observed (named in sources and limitations)', () => {
    const u = utilizationFigures({ odometer: [], engineHours: [], totalIdleTime: [], engineState: WORKED_ENGINE_STATES }, w);
    expect(u.engineRuntime).toMatchObject({ status: 'partial', value: 2700, coverageSeconds: 3600, sampleCount: 4, sources: ['engineState/motive:type'] });
    expect(u.engineRuntime.limitations).toEqual(['unobserved_gaps', 'engine_runtime_from_engine_state']);
    expect(u.engineNotRunning.value).toBe(900);
    expect(u.engineOnPercentOfObservedTime).toBe(75);
    expect(u.distance.status).toBe('missing');
  });

  it('hourly buckets in Asia/Kathmandu (+05:45): an interval across a bucket edge is split pro rata', () => {
    const f = distanceFigure({ odometer: WORKED_ODOMETER }, w, bucketEdges('Asia/Kathmandu', 'hour', w.startMs, w.endMs));
    expect(f.intervals?.map((i) => [iso(i.startMs), iso(i.endMs), i.amount])).toEqual([
      ['2026-03-02T08:00:00.000Z', '2026-03-02T08:15:00.000Z', 8750],
      ['2026-03-02T08:15:00.000Z', '2026-03-02T09:15:00.000Z', 23_250],
      ['2026-03-02T09:15:00.000Z', '2026-03-02T10:00:00.000Z', 5000],
    ]);
  });

  it('a bucket without observed time has amount null', () => {
    const f = distanceFigure({ odometer: WORKED_ODOMETER }, w, bucketEdges('UTC', 'hour', w.startMs, w.endMs + 3 * 3_600_000));
    expect(f.intervals?.map((i) => i.amount)).toEqual([32_000, 5000, 5000, null, null]);
  });
});

describe('status', () => {
  it('missing: no observation within the maximum gap of the window', () => {
    const far = WORKED_ODOMETER.map((o) => ({ ...o, observedAtMs: o.observedAtMs - 86_400_000 }));
    expect(distanceFigure({ odometer: far }, w)).toMatchObject({ status: 'missing', value: null, coverageSeconds: 0 });
  });
  it('insufficient_data: one observation, no interval', () => {
    expect(idleFigure({ totalIdleTime: [{ observedAtMs: w.startMs + 60_000, value: 10, source: 's' }] }, w)).toMatchObject({ status: 'insufficient_data', value: null, sampleCount: 1 });
  });
  it('complete: valid intervals cover the whole window', () => {
    const samples = [0, 1800, 3600, 5400, 7200].map((s, i) => ({ observedAtMs: w.startMs + s * 1000, value: i * 100, source: 's' }));
    expect(idleFigure({ totalIdleTime: samples }, w)).toMatchObject({ status: 'complete', value: 400, coverageSeconds: 7200, coveragePercent: 100 });
  });
  it('arrival order and duplicates change nothing', () => {
    const shuffled = [...WORKED_ODOMETER].reverse().concat(WORKED_ODOMETER.slice(2, 4));
    expect(distanceFigure({ odometer: shuffled }, w)).toEqual(distanceFigure({ odometer: WORKED_ODOMETER }, w));
  });
  it('several sources: the one with the most valid observed time counts', () => {
    const gps = [0, 600].map((s, i) => ({ observedAtMs: w.startMs + s * 1000, value: i * 10, source: 'samsara:gpsOdometerMeters' }));
    const f = distanceFigure({ odometer: [...WORKED_ODOMETER, ...gps] }, w);
    expect(f).toMatchObject({ value: 37_000, sources: ['odometer/samsara:obdOdometerMeters'] });
    expect(f.limitations).toContain('other_sources_ignored');
  });
});

describe('counterSegment plausibility', () => {
  const a = { observedAtMs: 0, value: 0 };
  it('exactly at the gap is observed, one millisecond over is a gap', () => {
    expect(counterSegment('distance', a, { observedAtMs: 1_800_000, value: 1 }).kind).toBe('valid');
    expect(counterSegment('distance', a, { observedAtMs: 1_800_001, value: 1 }).kind).toBe('gap');
  });
  it('distance at most 90 m/s plus 500 m', () => {
    expect(counterSegment('distance', a, { observedAtMs: 100_000, value: 9500 }).kind).toBe('valid');
    expect(counterSegment('distance', a, { observedAtMs: 100_000, value: 9501 })).toMatchObject({ kind: 'excluded', reason: 'implausible_increase' });
  });
});

describe('summed rollup rows', () => {
  // Mutation: rollupView counting a row by its start only (no `inside` check) → the cut range answers 900 instead of throwing.
  it('answer the buckets they were summed for and throw for a range that cuts one', () => {
    const slot = (start: number) => ({ slotStartMs: start, amount: 100, coverageMs: SLOT_MS, samples: 15, sources: [] });
    const inner = { innerStart: 0, innerEnd: 4 * SLOT_MS };
    const starts = summedSlotStarts(inner, [-5, 2 * SLOT_MS, 9 * SLOT_MS]);
    expect(starts).toEqual([0, 2 * SLOT_MS]);
    const rows = sumSlots([0, 1, 2, 3].map((n) => slot(n * SLOT_MS)), starts, inner.innerEnd);
    expect(rows.map((r) => [r.startMs, r.endMs, r.amount, r.samples])).toEqual([
      [0, 2 * SLOT_MS, 200, 30],
      [2 * SLOT_MS, 4 * SLOT_MS, 200, 30],
    ]);
    const view = rollupView('m/s', { slots: rows, intervals: [], edges: undefined, ...inner });
    expect(view.tally(0, 4 * SLOT_MS).amount).toBe(400);
    expect(view.tally(2 * SLOT_MS, 5 * SLOT_MS).amount).toBe(200);
    expect(view.samples(0, 2 * SLOT_MS)).toBe(30);
    expect(() => view.tally(0, SLOT_MS)).toThrow(/cut by the range/);
  });
});
