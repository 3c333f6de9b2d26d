/**
 * The worked example of docs/metrics.md as data: the short observation series whose figures the
 * document computes by hand. The unit tests (counters.spec.ts) and the end-to-end test of the report
 * routes (system-tests usage-reports.int-spec.ts) both use it, so the document, the formulas and
 * the served figures cannot drift apart.
 */
import type { CounterSample, StateSample, UsageWindow } from './counters.js';

const at = (hhmm: string) => Date.parse(`2026-03-02T${hhmm}:00.000Z`);

/** The window of the example: 2026-03-02 08:00 to 10:00 UTC (7,200 s). */
export const WORKED_WINDOW: UsageWindow = { startMs: at('08:00'), endMs: at('10:00') };

/** Odometer (meters) of one source: a reset at 08:40, a 50-minute gap 09:00-09:50, a duplicate at 08:30. */
export const WORKED_ODOMETER: CounterSample[] = [
  ['07:50', 100_000],
  ['08:10', 110_000],
  ['08:30', 125_000],
  ['08:30', 125_000],
  ['08:40', 1_000],
  ['09:00', 13_000],
  ['09:50', 20_000],
  ['10:10', 30_000],
].map(([t, value]) => ({ observedAtMs: at(t as string), value: value as number, source: 'samsara:obdOdometerMeters' }));

/** Engine-hours counter (seconds): an implausible jump at 09:00, a rise above the elapsed time (within the allowance) 09:20-09:40. */
export const WORKED_ENGINE_HOURS: CounterSample[] = [
  ['08:00', 36_000],
  ['08:20', 37_000],
  ['08:40', 38_200],
  ['09:00', 99_000],
  ['09:20', 99_600],
  ['09:40', 100_900],
  ['10:00', 101_000],
].map(([t, value]) => ({ observedAtMs: at(t as string), value: value as number, source: 'samsara:obdEngineSeconds' }));

/** Engine states of a provider without an engine-hours counter (the fallback). */
export const WORKED_ENGINE_STATES: StateSample[] = (
  [
    ['08:00', 'on'],
    ['08:30', 'idle'],
    ['08:45', 'off'],
    ['09:00', 'on'],
    ['10:30', 'on'],
  ] as const
).map(([t, state]) => ({ observedAtMs: at(t), state, source: 'motive:type' }));
