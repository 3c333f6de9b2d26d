/**
 * `telemetry.read.freshness` (v1, gateway → telemetry-ingest) and the public shape it answers,
 * ConnectionFreshness: how fresh a connection's stored data is, per signal — an addition beyond the
 * contract's 36 operations (issue 27 item 3; decision 0041), served from stored data only.
 *
 * Per signal (each telemetry metric the connection covers, and `faults` when selected):
 * - data age: now − the newest stored observedAt of each vehicle (newest, p50, p95, oldest);
 * - provider lag: fetchedAt − observedAt of the readings stored in the window;
 * - pipeline lag: the owning context's commit − fetchedAt of those readings;
 * - sample interval: the median gap between consecutive readings of one vehicle in the window;
 * - coverage: vehicles with a reading observed in the last collection interval ÷ vehicles.
 * Vehicles are the connection's approved ones that its reads show (the one visibility rule).
 *
 * Missing data is unknown, never zero: a figure that cannot be computed is an `UnknownFigure`
 * (`missing` or `unsupported`, with a reason), and a signal without any stored reading is `missing`
 * with `no_readings` — it has no age. Quantiles are percentile_cont (linear interpolation);
 * seconds are rounded to milliseconds; a lag below zero (a provider clock ahead of ours) counts as 0.
 */
import { TELEMETRY_METRICS } from '@switchyard/domain';
import { z } from 'zod';
import { framedReply } from '../framed-reply.js';
import { providerV1 } from './connection-config.v1.js';
import { wireDateTimeV1 } from './public-wire.v1.js';
import { windowV1 } from './telemetry-read.v1.js';

/** The signals a freshness figure is given for: every telemetry metric, and fault observations. */
export const FRESHNESS_SIGNALS = [...TELEMETRY_METRICS, 'faults'] as const;
export type FreshnessSignal = (typeof FRESHNESS_SIGNALS)[number];

/** Why a figure is unknown (never a zero). */
export const UNKNOWN_FIGURE_REASONS = [
  'no_vehicles',
  'no_readings',
  'no_readings_in_window',
  'fewer_than_two_readings_per_vehicle',
  'commit_time_unknown',
  'not_kept_for_faults',
] as const;

const seconds = (what: string) => z.number().finite().min(0).describe(`${what}, in seconds (millisecond precision).`);
const count = (what: string) => z.number().int().min(0).describe(what);

export const unknownFigureV1 = z
  .object({
    status: z.enum(['missing', 'unsupported']).describe('`missing`: no data to compute it from; `unsupported`: this context does not keep what it needs for this signal.'),
    reason: z.enum(UNKNOWN_FIGURE_REASONS).describe(
      '`no_vehicles`: the connection approves no vehicle its reads show; `no_readings`: no stored reading of the signal; `no_readings_in_window`: none stored in the window; `fewer_than_two_readings_per_vehicle`: no vehicle has two readings in the window; `commit_time_unknown`: the readings\' ingest records are gone (kept 7 days); `not_kept_for_faults`: fault observations keep no fetch or commit time per reading.',
    ),
  })
  .strict()
  .meta({ id: 'UnknownFigure', description: 'A freshness figure that cannot be computed: unknown, never a zero.' });

const figure = <T extends z.ZodRawShape>(id: string, description: string, shape: T) =>
  z.discriminatedUnion('status', [z.object({ status: z.literal('available'), ...shape }).strict(), unknownFigureV1]).meta({ id, description });

export const dataAgeV1 = figure('DataAge', 'now − the newest stored observedAt of each vehicle with a reading.', {
  newestSeconds: seconds('Age of the freshest vehicle'),
  p50Seconds: seconds('Median over the vehicles'),
  p95Seconds: seconds('95th percentile over the vehicles'),
  maxSeconds: seconds('Age of the stalest vehicle'),
  vehicles: count('Vehicles with a stored reading of the signal.'),
});

export const lagV1 = figure('Lag', 'A lag over the readings stored in the window.', {
  p50Seconds: seconds('Median over the readings'),
  p95Seconds: seconds('95th percentile over the readings'),
  readings: count('Readings it is computed from.'),
});

export const sampleIntervalV1 = figure('SampleInterval', 'The median gap between consecutive readings of one vehicle in the window.', {
  medianSeconds: seconds('Median gap'),
  gaps: count('Gaps it is computed from (consecutive reading pairs).'),
});

export const coverageV1 = figure('Coverage', 'Vehicles with a reading observed in the last collection interval, of the vehicles the reads show.', {
  vehiclesReporting: count('Vehicles with a reading observed in the last collection interval.'),
  vehicles: count('Approved vehicles the reads show.'),
  ratio: z.number().min(0).max(1).describe('vehiclesReporting ÷ vehicles.'),
});

export const signalFreshnessV1 = z
  .object({
    signal: z.enum(FRESHNESS_SIGNALS),
    status: z
      .enum(['available', 'stale', 'missing'])
      .describe('`available`: data age p95 within `dataAgeBoundSeconds`; `stale`: over it; `missing`: no stored reading of the signal (no age).'),
    reason: z.enum(['data_age_over_bound', 'no_readings', 'no_vehicles']).nullable().describe('Why the signal is `stale` or `missing`; null when `available`.'),
    newestObservedAt: wireDateTimeV1.nullable().describe('The newest stored observedAt of the signal over the vehicles; null without a reading.'),
    dataAge: dataAgeV1,
    providerLag: lagV1.describe('fetchedAt − observedAt: how late the provider had the reading when Switchyard fetched it.'),
    pipelineLag: lagV1.describe("The owning context's commit − fetchedAt: fetch to stored."),
    sampleInterval: sampleIntervalV1,
    coverage: coverageV1,
  })
  .strict()
  .meta({ id: 'SignalFreshness', description: 'How fresh one signal of the connection is.' });
export type SignalFreshnessV1 = z.output<typeof signalFreshnessV1>;

export const connectionFreshnessV1 = z
  .object({
    connectionId: z.uuid(),
    provider: providerV1,
    measuredAt: wireDateTimeV1.describe('The "now" every age is measured from.'),
    collectionIntervalSeconds: z.number().int().min(1).describe('The scheduled collection interval (the scheduler window); coverage looks this far back.'),
    dataAgeBoundSeconds: z.number().int().min(1).describe('collectionIntervalSeconds + 60: the data age a signal stays `available` within at p95.'),
    window: windowV1.describe('The observation window of the lags and the sample interval: readings observed in it.'),
    vehicles: count('Approved vehicles of the connection its reads show.'),
    signals: z.array(signalFreshnessV1).describe('The signals the connection collects: the telemetry metrics it covers (the rule of the telemetry read) and `faults` when selected.'),
    retrieval: z.literal('stored').describe('Always `stored`: served from stored data, no provider is contacted.'),
  })
  .strict()
  .meta({
    id: 'ConnectionFreshness',
    description:
      'Data freshness per signal of one connection — an addition beyond the specification\'s 36 operations (Switchyard issue 27): data age, provider lag, pipeline lag, sample interval and coverage. Served from stored data; a figure that cannot be computed is an UnknownFigure, never a zero.',
  });
export type ConnectionFreshnessV1 = z.output<typeof connectionFreshnessV1>;

/** telemetry.read.freshness: the ConnectionFreshness of one connection. */
export const connectionFreshnessRequestV1 = z.object({ connectionId: z.uuid() }).strict();
/** A framed reply (framed-reply.ts): the ConnectionFreshness body as JSON text. */
export const connectionFreshnessReplyV1 = framedReply(z.object({}).strict());
export type ConnectionFreshnessRequestV1 = z.output<typeof connectionFreshnessRequestV1>;
export type ConnectionFreshnessReplyV1 = z.output<typeof connectionFreshnessReplyV1>;
