/**
 * `telemetry.read.<resource>` request/reply endpoints (v1, gateway → telemetry-ingest) and the
 * public shapes they answer (spec 2.10): Telemetry, FleetLocations, History and HistoryPoint, with
 * the per-metric status objects and UnitConversion (spec 2.1). The OpenAPI components are these
 * schemas (`.meta({ id })`).
 *
 * Decisions kept here:
 * - a metric status object is `available` or `stale` WITH a reading, or `missing` with
 *   `reading: null` — a union, so a missing value can never travel as a zero;
 * - `units` is present on a reading exactly when the provider's unit differed from the normalized
 *   one (miles or kilometers → meters, hours or milliseconds → seconds);
 * - `telemetry.read.latest` is the one "latest telemetry of one vehicle" read: the refresh route
 *   reuses it for the stored part of its answer (`refreshStatus` is set by the refresh route only);
 * - the history walk keeps to the rows visible in the PostgreSQL snapshot its first page took
 *   (`horizon`, the format of the directory reads) and pages by (observedAt, source), the
 *   observations' key: a reading is served at most once per walk and a row committed during the walk
 *   never shifts it.
 */
import { vehicleIdSchema } from '@switchyard/contracts';
import { ENGINE_STATES, TELEMETRY_METRICS } from '@switchyard/domain';
import { z } from 'zod';
import { isoDateTimeV1, readHorizonV1 } from './directory-read.v1.js';
import { framedReply } from '../framed-reply.js';
import { observationV1 } from './ingest-records.v1.js';
import { pageCursorV1, wireDateTimeV1 } from './public-wire.v1.js';


export const unitConversionV1 = z
  .union([
    z.object({ source: z.enum(['kilometers', 'miles']), normalized: z.literal('meters'), factor: z.number().positive() }).strict(),
    z.object({ source: z.enum(['milliseconds', 'hours']), normalized: z.literal('seconds'), factor: z.number().positive() }).strict(),
  ])
  .meta({
    id: 'UnitConversion',
    description: "Present when the provider's unit differed from the normalized one: `normalized = source value × factor` (e.g. miles → meters, factor 1609.344).",
  });
export type UnitConversionV1 = z.output<typeof unitConversionV1>;

const latLon = z.object({ latitude: z.number().min(-90).max(90), longitude: z.number().min(-180).max(180) }).strict();
const nonNegative = z.number().finite().min(0);

/** The value shape of each metric (spec 2.10). */
export const METRIC_VALUES = {
  location: latLon.describe('WGS84 degrees.'),
  odometer: z.object({ meters: nonNegative }).strict(),
  engineHours: z.object({ seconds: nonNegative }).strict(),
  totalIdleTime: z.object({ seconds: nonNegative }).strict(),
  speed: z.object({ value: nonNegative.describe('Meters per second.') }).strict(),
  heading: z.object({ value: z.number().min(0).max(360).describe('Degrees clockwise from north.') }).strict(),
  fuelPercent: z.object({ value: z.number().min(0).max(100) }).strict(),
  batteryVoltage: z.object({ value: nonNegative.describe('Volts.') }).strict(),
  engineState: z.object({ state: z.enum(ENGINE_STATES) }).strict(),
} as const satisfies Record<(typeof TELEMETRY_METRICS)[number], z.ZodType>;
export type TelemetryMetricName = keyof typeof METRIC_VALUES;

const readingOf = <V extends z.ZodType>(value: V) =>
  z
    .object({
      value,
      source: z.string().min(1).describe('The provider field the value came from, e.g. `samsara:obdOdometerMeters`.'),
      observedAt: wireDateTimeV1.describe('When the vehicle reported the value.'),
      fetchedAt: wireDateTimeV1.describe('When Switchyard fetched it from the provider.'),
      units: unitConversionV1.optional(),
    })
    .strict();

const STATUS_TEXT =
  "`available`: the newest stored reading, within the field's `freshnessSeconds` (catalog). `stale`: the newest stored reading is older than that. `missing`: nothing valid is stored (`reading` null; never a zero).";

const metricStatusOf = <V extends z.ZodType>(metric: string, value: V) =>
  z
    .discriminatedUnion('status', [
      z.object({ status: z.enum(['available', 'stale']), reading: readingOf(value), fallback: z.boolean().optional() }).strict(),
      z.object({ status: z.literal('missing'), reading: z.null(), fallback: z.boolean().optional() }).strict(),
    ])
    .meta({ id: `${metric[0]?.toUpperCase()}${metric.slice(1)}Status`, description: `The ${metric} status object. ${STATUS_TEXT}` });

export const METRIC_STATUSES = {
  location: metricStatusOf('location', METRIC_VALUES.location),
  odometer: metricStatusOf('odometer', METRIC_VALUES.odometer),
  engineHours: metricStatusOf('engineHours', METRIC_VALUES.engineHours),
  totalIdleTime: metricStatusOf('totalIdleTime', METRIC_VALUES.totalIdleTime),
  speed: metricStatusOf('speed', METRIC_VALUES.speed),
  heading: metricStatusOf('heading', METRIC_VALUES.heading),
  fuelPercent: metricStatusOf('fuelPercent', METRIC_VALUES.fuelPercent),
  batteryVoltage: metricStatusOf('batteryVoltage', METRIC_VALUES.batteryVoltage),
  engineState: metricStatusOf('engineState', METRIC_VALUES.engineState),
} as const;

export const REFRESH_STATUSES = ['fetched', 'no_new_odometer', 'failed'] as const;

const OPTIONAL_TEXT =
  "Present when the connection covers it: the `extendedTelemetry` opt-in is on, the metric is selected when it is one of the selectable signals (`engineHours`), and the provider does not mark it unsupported (catalog `fields[].availability`). Absent otherwise.";

export const telemetryV1 = z
  .object({
    vehicleId: vehicleIdSchema,
    location: METRIC_STATUSES.location,
    odometer: METRIC_STATUSES.odometer,
    engineHours: METRIC_STATUSES.engineHours.optional().describe(OPTIONAL_TEXT),
    totalIdleTime: METRIC_STATUSES.totalIdleTime.optional().describe(OPTIONAL_TEXT),
    speed: METRIC_STATUSES.speed.optional().describe(OPTIONAL_TEXT),
    heading: METRIC_STATUSES.heading.optional().describe(OPTIONAL_TEXT),
    fuelPercent: METRIC_STATUSES.fuelPercent.optional().describe(OPTIONAL_TEXT),
    batteryVoltage: METRIC_STATUSES.batteryVoltage.optional().describe(OPTIONAL_TEXT),
    engineState: METRIC_STATUSES.engineState.optional().describe(OPTIONAL_TEXT),
    faultsObservedAt: wireDateTimeV1.nullable().describe('The time up to which this vehicle\'s faults were read from the provider — the latest complete snapshot read, or the end of the latest window of fault records read — also when no fault was found; not the provider\'s time of the last change. Null before the first read.'),
    refreshStatus: z.enum(REFRESH_STATUSES).optional().describe('Only on the refresh response.'),
  })
  .strict()
  .meta({
    id: 'Telemetry',
    description:
      'The latest stored reading of each metric of one vehicle (served from stored data; no provider is contacted). `location` and `odometer` are always present; an optional metric is present when the connection covers it.',
  });
export type TelemetryV1 = z.output<typeof telemetryV1>;

export const fleetLocationV1 = z.object({ vehicleId: vehicleIdSchema, location: METRIC_STATUSES.location }).strict().meta({ id: 'FleetLocation', description: 'The latest stored location of one vehicle.' });
export type FleetLocationV1 = z.output<typeof fleetLocationV1>;

export const fleetLocationsV1 = z
  .object({
    locations: z.array(fleetLocationV1),
    nextCursor: pageCursorV1
      .nullable()
      .describe('Cursor of the next page (pass it back as `cursor`); null on the last page. Tied to the consumer key, its grant and the connection; otherwise 400 `invalid_cursor`; expires after 24 hours.'),
    retrieval: z.literal('stored').describe('Always `stored`: served from stored data, no provider is contacted.'),
  })
  .strict()
  .meta({
    id: 'FleetLocations',
    description: 'The latest stored location of every visible vehicle of the connection that has stored telemetry, ascending vehicle id, at most 100 per page. Hidden vehicles never appear.',
  });
export type FleetLocationsV1 = z.output<typeof fleetLocationsV1>;

export const windowV1 = z.object({ startTime: wireDateTimeV1, endTime: wireDateTimeV1 }).strict().meta({ id: 'Window', description: 'A time window: startTime inclusive, endTime exclusive.' });

const historyPointOf = <M extends TelemetryMetricName>(metric: M) =>
  z
    .object({
      sequence: z.string().regex(/^[1-9]\d{0,18}$/).describe('Unique id of the stored observation (decimal text). Not an order: readings come in time order.'),
      metric: z.literal(metric),
      source: z.string().min(1),
      observed_at: wireDateTimeV1,
      fetched_at: wireDateTimeV1,
      value: METRIC_VALUES[metric],
      units: unitConversionV1.nullable().optional(),
    })
    .strict();

export const historyPointV1 = z
  .discriminatedUnion('metric', [
    historyPointOf('location'),
    historyPointOf('odometer'),
    historyPointOf('engineHours'),
    historyPointOf('totalIdleTime'),
    historyPointOf('speed'),
    historyPointOf('heading'),
    historyPointOf('fuelPercent'),
    historyPointOf('batteryVoltage'),
    historyPointOf('engineState'),
  ])
  .meta({ id: 'HistoryPoint', description: 'One stored observation; `units` says how the provider value was converted (null when no conversion was needed).' });
export type HistoryPointV1 = z.output<typeof historyPointV1>;

export const historyV1 = z
  .object({
    vehicleId: vehicleIdSchema,
    window: windowV1,
    readings: z.array(historyPointV1),
    nextCursor: pageCursorV1.describe(
        'Pass it back as `cursor` with the same metric and window. While `hasMore`, it continues this walk: readings committed after its first page do not appear in it, and no reading appears twice. On the last page it continues after the last reading served and sees readings committed since (with a later observed time).',
      ),
    hasMore: z.boolean(),
  })
  .strict()
  .meta({ id: 'History', description: 'Stored observations of one metric of one vehicle in a window, in time order (observed_at, then source).' });
export type HistoryV1 = z.output<typeof historyV1>;

// --- RPCs -------------------------------------------------------------------------------------

/**
 * telemetry.read.latest: the stored Telemetry of one vehicle. `refresh` (the refresh route only):
 * readings a provider just returned for this vehicle, published for storage but perhaps not
 * committed yet, served where newer than the stored ones; the metrics whose provider call failed,
 * whose stored readings are then marked `fallback: true`; and the refresh's outcome, answered as
 * `refreshStatus`.
 */
export const latestTelemetryRequestV1 = z
  .object({
    connectionId: z.uuid(),
    vehicleId: vehicleIdSchema,
    refresh: z
      .object({ observations: z.array(observationV1).max(200), failedMetrics: z.array(z.enum(TELEMETRY_METRICS)), outcome: z.enum(REFRESH_STATUSES) })
      .strict()
      .optional(),
  })
  .strict();
/** A framed reply (framed-reply.ts): the Telemetry body as JSON text (with `refreshStatus` = `refresh.outcome` when asked with `refresh`). */
export const latestTelemetryReplyV1 = framedReply(z.object({}).strict());
export type LatestTelemetryRequestV1 = z.output<typeof latestTelemetryRequestV1>;
export type LatestTelemetryReplyV1 = z.output<typeof latestTelemetryReplyV1>;

/** telemetry.read.locations: one page of the connection's latest locations, keyset by vehicle id. */
export const listLocationsRequestV1 = z
  .object({
    connectionId: z.uuid(),
    limit: z.number().int().min(1).max(100),
    maxBytes: z.number().int().min(1024),
    horizon: readHorizonV1.optional(),
    after: vehicleIdSchema.optional(),
  })
  .strict();
/** A framed reply (framed-reply.ts): the walk in `meta`, the FleetLocation array as the JSON text PostgreSQL rendered in `body`. */
export const listLocationsReplyV1 = framedReply(z.object({ horizon: readHorizonV1, hasMore: z.boolean(), next: vehicleIdSchema.optional() }).strict());
export type ListLocationsRequestV1 = z.output<typeof listLocationsRequestV1>;
export type ListLocationsReplyV1 = z.output<typeof listLocationsReplyV1>;

/** The history walk's keyset position: the last reading served. */
export const historyPositionV1 = z.object({ observedAt: isoDateTimeV1, source: z.string().min(1) }).strict();
export type HistoryPositionV1 = z.output<typeof historyPositionV1>;

/** telemetry.read.history: one page of one metric in [startTime, endTime). */
export const historyRequestV1 = z
  .object({
    connectionId: z.uuid(),
    vehicleId: vehicleIdSchema,
    metric: z.enum(TELEMETRY_METRICS),
    startTime: isoDateTimeV1,
    endTime: isoDateTimeV1,
    limit: z.number().int().min(1).max(1000),
    maxBytes: z.number().int().min(1024),
    horizon: readHorizonV1.optional(),
    after: historyPositionV1.optional(),
  })
  .strict();
/** A framed reply: the walk in `meta`, the HistoryPoint array as JSON text in `body`. */
export const historyReplyV1 = framedReply(
  z
    .object({
      horizon: readHorizonV1,
      hasMore: z.boolean(),
      /** Position of the last reading served (absent on an empty page). */
      last: historyPositionV1.optional(),
    })
    .strict(),
);
export type HistoryRequestV1 = z.output<typeof historyRequestV1>;
export type HistoryReplyV1 = z.output<typeof historyReplyV1>;
