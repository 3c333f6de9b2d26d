/**
 * Property tests of the usage formulas (issue 12) against a reference written separately here from
 * docs/metrics.md — plain loops over the sorted observations, sharing no code with counters.ts or
 * time-buckets.ts. fast-check generates counter series with steps around maxObservationGapSeconds
 * (1,790-1,810 s, exactly 1,800 s, an hour), resets and rollovers (the counter drops), implausible
 * jumps, duplicates, a second source, late and out-of-order arrival (the served input is shuffled
 * and repeated), windows and hour/day buckets of time zones across DST changes.
 * Mutations tried: a gap of exactly 1,800 s treated as unobserved (`>=` for `>` in counterSegment)
 * fails "equals the reference"; day edges computed with the offset at the window start (no DST
 * correction) fails "bucket edges".
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { counterFigureOf, counterSeries, distanceFigure, engineRuntimeFigure, rawView, type CounterSample } from './counters.js';
import { ceilSlot, floorSlot, rollupPlan, rollupRows, rollupView, slotSpan, summedSlotStarts, sumSlots } from './rollups.js';
import { bucketEdges, type BucketSize } from './time-buckets.js';

// ---- the reference (docs/metrics.md, written independently) ----------------------------------

const GAP_S = 1800;
const RULES = { distance: { rate: 90, allowance: 500 }, duration: { rate: 1, allowance: 360 } };

interface RefResult {
  value: number | null;
  coverage: number;
  samples: number;
  excluded: number;
  status: string;
  source: string | null;
  buckets?: (number | null)[];
}

/** docs/metrics.md "Observations and intervals" and "Counter", applied to one counter. */
function reference(kind: 'distance' | 'duration', samples: readonly CounterSample[], start: number, end: number, edges?: number[]): RefResult {
  const rule = RULES[kind];
  // 1. observations within 1,800 s of the window; 2. a series per source, one observation per (time, source).
  const reach = samples.filter((s) => s.observedAtMs >= start - GAP_S * 1000 && s.observedAtMs <= end + GAP_S * 1000);
  const sources = [...new Set(reach.map((s) => s.source))].sort();
  let best: (RefResult & { tally: (a: number, b: number) => [number, number] }) | null = null;
  for (const source of sources) {
    const byTime = new Map<number, number>();
    for (const s of reach) if (s.source === source && !byTime.has(s.observedAtMs)) byTime.set(s.observedAtMs, s.value);
    const times = [...byTime.keys()].sort((a, b) => a - b);
    // 3. intervals between consecutive observations: gap, excluded or valid with an amount.
    const valid: { a: number; b: number; amount: number }[] = [];
    const excludedList: { a: number; b: number }[] = [];
    for (let i = 0; i + 1 < times.length; i++) {
      const a = times[i] as number;
      const b = times[i + 1] as number;
      const seconds = (b - a) / 1000;
      if (seconds > GAP_S) continue;
      const delta = (byTime.get(b) as number) - (byTime.get(a) as number);
      if (delta < 0 || delta > seconds * rule.rate + rule.allowance) excludedList.push({ a, b });
      else valid.push({ a, b, amount: kind === 'distance' ? delta : Math.min(delta, seconds) });
    }
    // 4. pro rata inside [from, to).
    const tally = (from: number, to: number): [number, number] => {
      let amount = 0;
      let covered = 0;
      for (const v of valid) {
        const inside = Math.min(v.b, to) - Math.max(v.a, from);
        if (inside > 0) {
          covered += inside;
          amount += (v.amount * inside) / (v.b - v.a);
        }
      }
      return [amount, covered];
    };
    const [amount, covered] = tally(start, end);
    const candidate = {
      value: amount,
      coverage: covered,
      samples: times.filter((t) => t >= start && t < end).length,
      excluded: excludedList.filter((x) => Math.min(x.b, end) > Math.max(x.a, start)).length,
      status: '',
      source,
      tally,
    };
    // 5. the source with the most valid observed time, then more observations, then the first name.
    if (!best || candidate.coverage > best.coverage || (candidate.coverage === best.coverage && candidate.samples > best.samples)) best = candidate;
  }
  if (!best) return { value: null, coverage: 0, samples: 0, excluded: 0, status: 'missing', source: null, ...(edges ? { buckets: edges.slice(1).map(() => null) } : {}) };
  const status = best.coverage === 0 ? 'insufficient_data' : best.coverage < end - start ? 'partial' : 'complete';
  const tally = best.tally;
  return {
    value: best.coverage === 0 ? null : best.value,
    coverage: best.coverage,
    samples: best.samples,
    excluded: best.excluded,
    status,
    source: best.source,
    ...(edges
      ? {
          buckets: edges.slice(1).map((to, i) => {
            const [amount, covered] = tally(edges[i] as number, to);
            return covered === 0 ? null : amount;
          }),
        }
      : {}),
  };
}

/** Bucket edges found by scanning every 15 minutes for a change of the local hour or day label (every zone's offset is a multiple of 15 minutes). */
function referenceEdges(zone: string, size: BucketSize, start: number, end: number): number[] {
  const f = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', timeZoneName: 'longOffset' });
  const label = (t: number) => {
    const p = Object.fromEntries(f.formatToParts(new Date(t)).map((x) => [x.type, x.value]));
    return size === 'day' ? `${p['year']}-${p['month']}-${p['day']}` : `${p['year']}-${p['month']}-${p['day']}T${p['hour']}${p['timeZoneName']}`;
  };
  const step = 900_000;
  const edges = [start];
  let current = label(start);
  for (let t = Math.floor(start / step) * step + step; t < end; t += step) {
    const l = label(t);
    if (l !== current) {
      edges.push(t);
      current = l;
    }
  }
  edges.push(end);
  return edges;
}

// ---- generators --------------------------------------------------------------------------------

/** Around the DST changes of 2026 (Europe: 29 March and 25 October at 01:00 UTC; US: 8 March, 1 November). */
const ANCHORS = ['2026-03-29T01:00:00Z', '2026-10-25T01:00:00Z', '2026-03-08T07:00:00Z', '2026-11-01T06:00:00Z', '2026-06-15T12:00:00Z'].map(Date.parse);
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'America/St_Johns'];

type Step = { dt: number; kind: 'normal' | 'reset' | 'jump' | 'duplicate'; rate: number };
const stepArb: fc.Arbitrary<Step> = fc.record({
  dt: fc.oneof(fc.integer({ min: 1, max: 900 }), fc.integer({ min: 1790, max: 1810 }), fc.constant(1800), fc.constant(1801), fc.constant(3600)),
  kind: fc.constantFrom('normal', 'normal', 'normal', 'normal', 'reset', 'jump', 'duplicate'),
  rate: fc.double({ min: 0, max: 95, noNaN: true }),
});

function buildSeries(anchor: number, offsetS: number, steps: readonly Step[], source: string, kind: 'distance' | 'duration'): CounterSample[] {
  const out: CounterSample[] = [];
  let t = anchor + offsetS * 1000;
  let v = 1_000_000;
  out.push({ observedAtMs: t, value: v, source });
  for (const s of steps) {
    if (s.kind === 'duplicate') {
      out.push({ observedAtMs: t, value: v, source });
      continue;
    }
    t += s.dt * 1000;
    const rate = kind === 'distance' ? s.rate : s.rate / 95;
    v = s.kind === 'reset' ? Math.round(v / 1000) : s.kind === 'jump' ? v + 1e7 : v + Math.round(s.dt * rate);
    out.push({ observedAtMs: t, value: v, source });
  }
  return out;
}

const scenarioArb = fc
  .record({
    anchor: fc.constantFrom(...ANCHORS),
    offsetS: fc.integer({ min: -6 * 3600, max: 0 }),
    kind: fc.constantFrom('distance' as const, 'duration' as const),
    steps: fc.array(stepArb, { minLength: 0, maxLength: 40 }),
    second: fc.option(fc.array(stepArb, { minLength: 1, maxLength: 15 }), { nil: undefined }),
    windowStartS: fc.integer({ min: -8 * 3600, max: 8 * 3600 }),
    windowLengthS: fc.integer({ min: 1, max: 30 * 3600 }),
    zone: fc.constantFrom(...ZONES),
    size: fc.constantFrom('hour' as const, 'day' as const),
    arrival: fc.array(fc.nat(), { maxLength: 50 }),
  })
  .map((s) => {
    const samples = [...buildSeries(s.anchor, s.offsetS, s.steps, 'p:a', s.kind), ...(s.second ? buildSeries(s.anchor, s.offsetS + 7, s.second, 'p:b', s.kind) : [])];
    // Late, out-of-order and re-delivered arrival: a permutation of the samples, some sent twice.
    const arrived = [...samples];
    for (const [i, r] of s.arrival.entries()) {
      const j = r % arrived.length;
      const k = i % arrived.length;
      [arrived[j], arrived[k]] = [arrived[k] as CounterSample, arrived[j] as CounterSample];
      if (r % 5 === 0) arrived.push(arrived[j] as CounterSample);
    }
    const start = s.anchor + s.windowStartS * 1000;
    return { ...s, samples, arrived, start, end: start + s.windowLengthS * 1000 };
  });

const close = (a: number | null | undefined, b: number | null | undefined) => (a === null || a === undefined || b === null || b === undefined ? a === b : Math.abs(a - b) <= 0.0011);

// ---- properties ----------------------------------------------------------------------------------

describe('usage formulas against the docs/metrics.md reference', () => {
  it('equals the reference for any series, arrival order, window and buckets', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const edges = s.windowLengthS <= 4 * 86_400 ? bucketEdges(s.zone, s.size, s.start, s.end) : undefined;
        const window = { startMs: s.start, endMs: s.end };
        const served = s.kind === 'distance' ? distanceFigure({ odometer: s.arrived }, window, edges) : engineRuntimeFigure({ engineHours: s.arrived, engineState: [] }, window, edges);
        const ref = reference(s.kind, s.samples, s.start, s.end, edges);
        expect(served.status).toBe(ref.status);
        expect(close(served.value, ref.value)).toBe(true);
        expect(close(served.coverageSeconds, ref.coverage / 1000)).toBe(true);
        expect(served.sampleCount).toBe(ref.samples);
        expect(served.excludedIntervals).toBe(ref.excluded);
        expect(served.sources).toEqual(ref.source === null ? [] : [`${s.kind === 'distance' ? 'odometer' : 'engineHours'}/${ref.source}`]);
        if (edges) {
          const amounts = served.intervals?.map((i) => i.amount);
          expect(amounts?.length).toBe(ref.buckets?.length);
          amounts?.forEach((a, i) => expect(close(a, ref.buckets?.[i])).toBe(true));
        }
        // Never negative, never more than the elapsed observed time allows.
        if (served.value !== null) {
          expect(served.value).toBeGreaterThanOrEqual(0);
          expect(served.value).toBeLessThanOrEqual(served.coverageSeconds * (s.kind === 'distance' ? 90 : 1) + 500 * (served.sampleCount + 2) + 0.01);
        }
      }),
      { numRuns: 400 },
    );
  });

  // Mutation: sumSlots putting each slot in the row before its own (findLastIndex(...) - 1, clamped) → the summed figures fail.
  it('figures from rollups (slots inside, one by one or summed per bucket; raw segments at the edges) equal the raw computation', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const window = { startMs: s.start, endMs: s.end };
        const plan = rollupPlan(window);
        if (!plan) return;
        const edges = s.windowLengthS <= 4 * 86_400 ? bucketEdges(s.zone, s.size, s.start, s.end) : undefined;
        const kind = s.kind === 'distance' ? 'distance' : 'engineSeconds';
        const everything = { startMs: -1e15, endMs: 1e15 };
        const viewsOf = (summed: boolean) =>
          counterSeries(kind, 'm', s.arrived, everything).map((series) => {
            const { slots, intervals } = rollupRows(series, floorSlot(s.start - 7200_000), ceilSlot(s.end + 7200_000));
            const near = (t: number) => plan.rawRanges.some(([a, b]) => t >= a && t <= b);
            const edgeSeries = counterSeries(kind, 'm', s.arrived.filter((o) => `m/${o.source}` === series.source && near(o.observedAtMs)), everything)[0];
            const inner = slots.filter((x) => x.slotStartMs >= plan.innerStart && x.slotStartMs < plan.innerEnd);
            const rows = summed ? sumSlots(inner, summedSlotStarts(plan, edges), plan.innerEnd) : inner.map(slotSpan);
            return rollupView(series.source, { slots: rows, intervals, edges: edgeSeries, innerStart: plan.innerStart, innerEnd: plan.innerEnd });
          });
        const rawViews = counterSeries(kind, 'm', s.arrived, window).map(rawView);
        // Candidates as the service forms them: the series with an observation within reach.
        const reach = (src: string) => s.arrived.some((o) => `m/${o.source}` === src && o.observedAtMs >= s.start - 1_800_000 && o.observedAtMs <= s.end + 1_800_000);
        const unit = s.kind === 'distance' ? 'meters' : 'seconds';
        const fromRaw = counterFigureOf(unit, rawViews, window, edges);
        for (const summed of [false, true]) {
          const fromRollups = counterFigureOf(unit, viewsOf(summed).filter((v) => reach(v.source)), window, edges);
          expect({ ...fromRollups, value: null, intervals: undefined }).toEqual({ ...fromRaw, value: null, intervals: undefined });
          expect(close(fromRollups.value, fromRaw.value)).toBe(true);
          fromRollups.intervals?.forEach((i, n) => expect(close(i.amount, fromRaw.intervals?.[n]?.amount)).toBe(true));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('bucket edges are the local hour or day changes of the zone, across DST', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ANCHORS), fc.integer({ min: -40 * 3600, max: 10 * 3600 }), fc.integer({ min: 1, max: 3 * 86_400 }), fc.constantFrom(...ZONES), fc.constantFrom('hour' as const, 'day' as const), (anchor, from, length, zone, size) => {
        const start = Math.floor((anchor + from * 1000) / 1000) * 1000;
        expect(bucketEdges(zone, size, start, start + length * 1000)).toEqual(referenceEdges(zone, size, start, start + length * 1000));
      }),
      { numRuns: 200 },
    );
  });

  it('a day across a DST change has 23 or 25 hours; the repeated hour is two buckets', () => {
    const berlin = bucketEdges('Europe/Berlin', 'day', Date.parse('2026-10-24T22:00:00Z'), Date.parse('2026-10-26T23:00:00Z'));
    expect(berlin.map((t) => new Date(t).toISOString())).toEqual(['2026-10-24T22:00:00.000Z', '2026-10-25T23:00:00.000Z', '2026-10-26T23:00:00.000Z']);
    const spring = bucketEdges('Europe/Berlin', 'day', Date.parse('2026-03-28T23:00:00Z'), Date.parse('2026-03-30T22:00:00Z'));
    expect(spring.map((t) => new Date(t).toISOString())).toEqual(['2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z', '2026-03-30T22:00:00.000Z']);
    const hours = bucketEdges('Europe/Berlin', 'hour', Date.parse('2026-10-25T00:00:00Z'), Date.parse('2026-10-25T02:00:00Z'));
    expect(hours.map((t) => new Date(t).toISOString())).toEqual(['2026-10-25T00:00:00.000Z', '2026-10-25T01:00:00.000Z', '2026-10-25T02:00:00.000Z']);
  });
});
