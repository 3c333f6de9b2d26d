/**
 * `telemetry.read.usage.<report>` request/reply endpoints (v1, gateway → telemetry-ingest) and the
 * public shapes they answer (spec 2.10): Counter, CounterReport, Utilization, FleetUtilization. The
 * definitions of every figure are docs/metrics.md; the formulas libs/domain/src/usage.
 *
 * Decisions kept here:
 * - a Counter is `partial`/`complete` WITH a number, or `missing`/`insufficient_data` with
 *   `value: null` — a union, so unknown usage can never travel as a zero (global rule 1);
 * - an interval's `amount` is null when nothing inside it was observed;
 * - the fleet page is keyset by vehicle id (`after`), the gateway wraps it in the spec's `nextCursor`;
 *   its reply is framed (framed-reply.ts): the walk in `meta`, the Utilization array as the JSON text
 *   the byte budget was counted on in `body`, forwarded by the gateway as bytes.
 */
import { vehicleIdSchema } from '@switchyard/contracts';
import { BUCKET_SIZES, MAX_OBSERVATION_GAP_SECONDS, USAGE_LIMITATIONS, UTILIZATION_DEFINITION } from '@switchyard/domain';
import { z } from 'zod';
import { framedReply } from '../framed-reply.js';
import { isoDateTimeV1 } from './directory-read.v1.js';
import { pageCursorV1, wireDateTimeV1 } from './public-wire.v1.js';
import { windowV1 } from './telemetry-read.v1.js';

const amountV1 = z.number().finite().min(0);

export const usageLimitationV1 = z.enum(Object.keys(USAGE_LIMITATIONS) as [keyof typeof USAGE_LIMITATIONS, ...(keyof typeof USAGE_LIMITATIONS)[]]).meta({
  id: 'UsageLimitation',
  description: Object.entries(USAGE_LIMITATIONS)
    .map(([k, v]) => `\`${k}\`: ${v}`)
    .join('; '),
});

export const counterIntervalV1 = z
  .object({
    startTime: wireDateTimeV1,
    endTime: wireDateTimeV1,
    amount: amountV1.nullable().describe('The usage inside this bucket (valid intervals pro rata of their time inside it); null when nothing inside it was observed — unknown, not 0.'),
  })
  .strict()
  .meta({ id: 'CounterInterval', description: 'One local hour or local day of the requested time zone, cut to the window.' });

const counterFields = {
  unit: z.enum(['meters', 'seconds']),
  coverageSeconds: amountV1.describe('Valid observed time inside the window (intervals between consecutive observations at most maxObservationGapSeconds apart, not excluded).'),
  coveragePercent: z.number().min(0).max(100).optional().describe('coverageSeconds over the window length, × 100.'),
  sampleCount: z.number().int().min(0).optional().describe('Observations of the counted series inside the window.'),
  excludedIntervals: z.number().int().min(0).optional().describe('Intervals where the cumulative counter went backwards (reset, rollover, device swap) or rose implausibly fast; never counted as usage.'),
  sources: z.array(z.string().min(1)).optional().describe('The counted series, `<metric>/<provider source>` (e.g. `engineState/motive:type` when engine runtime comes from engine states).'),
  intervals: z.array(counterIntervalV1).optional().describe('Only when `interval` and `timeZone` are asked.'),
};

export const counterV1 = z
  .discriminatedUnion('status', [
    z.object({ status: z.enum(['partial', 'complete']), value: amountV1, ...counterFields }).strict(),
    z.object({ status: z.enum(['missing', 'insufficient_data']), value: z.null(), ...counterFields }).strict(),
  ])
  .meta({
    id: 'Counter',
    description:
      '`missing`: no observation of the metric near the window (value null). `insufficient_data`: observations but no valid observed interval inside the window (value null). `partial`: valid observed time less than the window. `complete`: the whole window observed. Definitions: docs/metrics.md.',
  });
export type CounterV1 = z.output<typeof counterV1>;

export const COUNTER_REPORT_DEFINITIONS = {
  distance: 'odometer_over_valid_observed_intervals_v1',
  engineHours: 'engine_runtime_over_valid_observed_intervals_v1',
  idling: 'idle_counter_over_valid_observed_intervals_v1',
} as const;
export const COUNTER_REPORTS = ['distance', 'engineHours', 'idling'] as const;
export type CounterReportName = (typeof COUNTER_REPORTS)[number];

export const counterReportV1 = z
  .object({
    vehicleId: vehicleIdSchema,
    window: windowV1,
    metric: counterV1,
    definition: z.enum(Object.values(COUNTER_REPORT_DEFINITIONS) as [string, ...string[]]).optional(),
    limitations: z.array(usageLimitationV1).optional().describe('Every reason that applied to the counted series in the window.'),
  })
  .strict()
  .meta({ id: 'CounterReport', description: 'One usage counter of one vehicle over a window (distance, engine hours or idling).' });
export type CounterReportV1 = z.output<typeof counterReportV1>;

export const utilizationV1 = z
  .object({
    vehicleId: vehicleIdSchema,
    window: windowV1,
    definition: z.literal(UTILIZATION_DEFINITION),
    engineRuntime: counterV1,
    engineNotRunning: counterV1,
    distance: counterV1,
    idleTime: counterV1.optional(),
    engineOnPercentOfObservedTime: z.number().min(0).max(100).nullable().describe('engineRuntime.value / engineRuntime.coverageSeconds × 100; null when nothing was observed.'),
    limitations: z.array(usageLimitationV1).optional(),
  })
  .strict()
  .meta({
    id: 'Utilization',
    description: `Observed engine runtime (not productive work) of one vehicle over a window, with distance and idle time. maxObservationGapSeconds = ${MAX_OBSERVATION_GAP_SECONDS}.`,
  });
export type UtilizationV1 = z.output<typeof utilizationV1>;

export const fleetUtilizationV1 = z
  .object({
    window: windowV1,
    vehicles: z.array(utilizationV1),
    nextCursor: pageCursorV1.nullable().describe('Cursor of the next page (pass it back as `cursor` with the same parameters); null on the last page.'),
  })
  .strict()
  .meta({ id: 'FleetUtilization', description: 'Utilization of every visible vehicle of the connection, ascending vehicle id. Hidden vehicles never appear and are never counted.' });
export type FleetUtilizationV1 = z.output<typeof fleetUtilizationV1>;

// --- RPCs -------------------------------------------------------------------------------------

export const usageBucketsV1 = z.object({ size: z.enum(BUCKET_SIZES), timeZone: z.string().min(1).max(64) }).strict();
const usageWindowFields = { startTime: isoDateTimeV1, endTime: isoDateTimeV1, buckets: usageBucketsV1.optional() };

/** telemetry.read.usage.counter: one CounterReport. */
export const usageCounterRequestV1 = z.object({ connectionId: z.uuid(), vehicleId: vehicleIdSchema, report: z.enum(COUNTER_REPORTS), ...usageWindowFields }).strict();
export const usageCounterReplyV1 = z.object({ report: counterReportV1 }).strict();
export type UsageCounterRequestV1 = z.output<typeof usageCounterRequestV1>;
export type UsageCounterReplyV1 = z.output<typeof usageCounterReplyV1>;

/** telemetry.read.usage.utilization: one vehicle's Utilization. */
export const usageUtilizationRequestV1 = z.object({ connectionId: z.uuid(), vehicleId: vehicleIdSchema, ...usageWindowFields }).strict();
export const usageUtilizationReplyV1 = z.object({ utilization: utilizationV1 }).strict();
export type UsageUtilizationRequestV1 = z.output<typeof usageUtilizationRequestV1>;
export type UsageUtilizationReplyV1 = z.output<typeof usageUtilizationReplyV1>;

/**
 * telemetry.read.usage.fleet: one page of the fleet's Utilization, keyset by vehicle id: at most
 * `limit` vehicles and at most `maxBytes` of their JSON (at least one vehicle), so a page of hourly
 * intervals still fits one NATS reply — the page ends early and `next` continues.
 */
export const usageFleetRequestV1 = z
  .object({ connectionId: z.uuid(), limit: z.number().int().min(1).max(100), maxBytes: z.number().int().min(1024), after: vehicleIdSchema.optional(), ...usageWindowFields })
  .strict();
/** A framed reply: `next` (the page's last vehicle) present exactly when more follow; `body` the Utilization array. */
export const usageFleetReplyV1 = framedReply(z.object({ hasMore: z.boolean(), next: vehicleIdSchema.optional() }).strict());
export type UsageFleetRequestV1 = z.output<typeof usageFleetRequestV1>;
export type UsageFleetReplyV1 = z.output<typeof usageFleetReplyV1>;
