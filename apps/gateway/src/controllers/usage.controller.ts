/**
 * GET /v1/connections/{id}/vehicles/{vehicleId}/distance, …/engine-hours, …/idling, …/utilization
 * and the fleet's GET /v1/connections/{id}/utilization (spec 2.10, 4.4): usage reports served by the
 * telemetry-ingest context over `telemetry.read.usage.*` from stored observations (no provider
 * contact). Every figure is defined in docs/metrics.md (formulas libs/domain/src/usage).
 * Decisions:
 * - authorization and visibility as the telemetry reads: the key's `read` grant on the connection
 *   (else 404); `vcl_` ids only (400 `invalid_path`); an unknown or hidden vehicle is 404
 *   `not_found`, and the fleet report never lists or counts a hidden one;
 * - the window: `startTime` inclusive, `endTime` exclusive, at most USAGE_WINDOW_MAX_DAYS, echoed
 *   in the wire form; `interval` (hour|day) and `timeZone` (IANA) together ask for `intervals`;
 * - the fleet page goes through the one pager of the stored lists (stored-read-pager.ts; its `{p}`
 *   cursor, bound to the key, connection and the window, interval and time zone: any other use is
 *   `invalid_cursor`); the context's page (the read frame's rule, a framed reply) is forwarded as
 *   bytes.
 */
import { applyDecorators, Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { FLEET_UTILIZATION_PAGE, USAGE_HOURLY_MAX_DAYS, USAGE_HOURLY_MAX_MS, USAGE_WINDOW_MAX_DAYS, USAGE_WINDOW_MAX_MS, vehicleIdSchema } from '@switchyard/contracts';
import { BUCKET_SIZES, ID_PATTERNS, isTimeZone, MAX_OBSERVATION_GAP_SECONDS, type BucketSize } from '@switchyard/domain';
import { counterReportV1, fleetUtilizationV1, nextCursorLink, RPCS, utilizationV1, type CounterReportName, type CounterReportV1, type UtilizationV1 } from '@switchyard/messaging';
import { ConsumerAuth } from '../auth/auth.guards.js';
import { Principal } from '../auth/principal.decorator.js';
import type { ConsumerPrincipal } from '../auth/principal.js';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../config.js';
import { ErrorBodyDto } from '../dto/error.dto.js';
import { FleetUtilizationQueryDto, UsageQueryDto } from '../dto/usage.dto.js';
import { ApiError, invalid } from '../http/api-error.js';
import { EntityId } from '../http/entity-ids.js';
import { parseInstant } from '../http/instant.js';
import { jsonObject, raw, type JsonBody } from '../http/json-body.js';
import { ApiZodResponse } from '../openapi/zod-schemas.js';
import { ContextClient } from '../services/context-client.service.js';
import { StoredReadPager } from '../services/stored-read-pager.js';

interface UsageWindow {
  startTime: string;
  endTime: string;
  buckets?: { size: BucketSize; timeZone: string };
}

/** The window and buckets of a usage query, checked in the order the reason codes are documented. */
export function usageWindowOf(query: UsageQueryDto): UsageWindow {
  const instant = (name: 'startTime' | 'endTime') => {
    const raw = query[name];
    if (raw === undefined) throw invalid('invalid_query', 'query', name, 'malformed');
    const parsed = parseInstant(raw);
    if (!parsed.ok) throw invalid('invalid_query', 'query', name, parsed.reason);
    return parsed;
  };
  const [start, end] = [instant('startTime'), instant('endTime')];
  if (start.ms >= end.ms) throw new ApiError('reversed_window');
  if (end.ms - start.ms > USAGE_WINDOW_MAX_MS) throw new ApiError('window_too_long');
  const window = { startTime: start.iso, endTime: end.iso };
  if (query.interval === undefined && query.timeZone === undefined) return window;
  if (query.interval === undefined || !(BUCKET_SIZES as readonly string[]).includes(query.interval)) throw invalid('invalid_query', 'query', 'interval', 'not_allowed');
  if (!isTimeZone(query.timeZone)) throw invalid('invalid_time_zone', 'query', 'timeZone', 'not_allowed');
  const size = query.interval as BucketSize;
  if (size === 'hour' && end.ms - start.ms > USAGE_HOURLY_MAX_MS) throw new ApiError('too_many_intervals');
  return { ...window, buckets: { size, timeZone: query.timeZone } };
}

const VEHICLE_ID_PARAM = ApiParam({
  name: 'vehicleId',
  description: "Vehicle id (`vcl_` + 26 Crockford base32 characters), the directory's id. The provider's own vehicle id is not accepted (400 `invalid_path`).",
  schema: { type: 'string', pattern: ID_PATTERNS.vehicle },
});
const DEFINITIONS =
  `Served from stored observations (no provider contact), as defined in docs/metrics.md: usage accumulates only over valid observed intervals — consecutive observations at most maxObservationGapSeconds (${MAX_OBSERVATION_GAP_SECONDS}) apart; a longer gap is unobserved, never zero; a cumulative counter that goes backwards (reset, rollover, device swap) or rises implausibly fast is an excluded interval (\`excludedIntervals\`, \`limitations\`). A counter is \`missing\` (no observations, value null), \`insufficient_data\` (value null), \`partial\` or \`complete\`.`;
const WINDOW_TEXT = `The window is startTime (inclusive) to endTime (exclusive), at most ${USAGE_WINDOW_MAX_DAYS} days, echoed in \`window\`. With \`interval\` (hour or day) and \`timeZone\` (IANA), each counter carries \`intervals\`: the window cut at local hour or day edges, an interval across an edge split pro rata; hourly over at most ${USAGE_HOURLY_MAX_DAYS} days.`;
const NOT_FOUND_VEHICLE =
  "A vehicle the connection neither approves nor has stored telemetry of, one of another connection, or one hidden by the connection's include/exclude lists or status filter is 404 `not_found`; an approved vehicle without stored readings answers every counter `missing`.";
const BAD_WINDOW = `\`invalid_query\`: startTime or endTime missing or not a date-time, an unknown or repeated parameter, interval not hour or day, or timeZone without interval. \`reversed_window\`: startTime not before endTime. \`window_too_long\`: more than ${USAGE_WINDOW_MAX_DAYS} days. \`invalid_time_zone\`: timeZone missing with interval, or not an IANA zone. \`too_many_intervals\`: interval=hour over more than ${USAGE_HOURLY_MAX_DAYS} days.`;

/** The decorators of one CounterReport route. */
const counterRoute = (operationId: string, summary: string, what: string) =>
  applyDecorators(
    ConsumerAuth('read'),
    ApiOperation({ operationId, summary, description: [what, DEFINITIONS, WINDOW_TEXT, NOT_FOUND_VEHICLE].join(' ') }),
    VEHICLE_ID_PARAM,
    ApiZodResponse(200, counterReportV1),
    ApiResponse({ status: 400, description: `${BAD_WINDOW} \`invalid_path\`: the vehicleId is not a vcl_ id.`, type: ErrorBodyDto }),
  );

const DISTANCE = counterRoute('getVehicleDistance', 'Distance of one vehicle over a window', 'Distance in meters accumulated across valid observed odometer intervals.');
const ENGINE_HOURS = counterRoute(
  'getVehicleEngineHours',
  'Engine runtime of one vehicle over a window',
  'Engine runtime in seconds across valid observed intervals of the engine-hours counter, or of engine-state intervals where no counter is observed (`sources` says which).',
);
const IDLING = counterRoute('getVehicleIdling', 'Idle time of one vehicle over a window', "Idle duration in seconds from the provider's cumulative idle counter (`missing` where the provider has none).");

@ApiTags('usage')
@Controller('v1/connections/:id')
@ApiParam({ name: 'id', description: 'Connection id (uuid).', schema: { type: 'string' } })
export class UsageController {
  private readonly fleetPages: StoredReadPager<string>;

  constructor(
    private readonly contexts: ContextClient,
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
  ) {
    this.fleetPages = new StoredReadPager(settings, { route: 'GET /v1/connections/{id}/utilization', position: vehicleIdSchema, range: FLEET_UTILIZATION_PAGE, cursor: { horizon: false, key: 'p' } });
  }

  private async counter(principal: ConsumerPrincipal, vehicleId: string, query: UsageQueryDto, report: CounterReportName): Promise<CounterReportV1> {
    const window = usageWindowOf(query);
    return (await this.contexts.request(RPCS.telemetry.usage.counter, { connectionId: principal.connectionId, vehicleId, report, ...window })).report;
  }

  @Get('vehicles/:vehicleId/distance')
  @DISTANCE
  distance(@Principal() principal: ConsumerPrincipal, @EntityId('vehicle', 'vehicleId') vehicleId: string, @Query() query: UsageQueryDto): Promise<CounterReportV1> {
    return this.counter(principal, vehicleId, query, 'distance');
  }

  @Get('vehicles/:vehicleId/engine-hours')
  @ENGINE_HOURS
  engineHours(@Principal() principal: ConsumerPrincipal, @EntityId('vehicle', 'vehicleId') vehicleId: string, @Query() query: UsageQueryDto): Promise<CounterReportV1> {
    return this.counter(principal, vehicleId, query, 'engineHours');
  }

  @Get('vehicles/:vehicleId/idling')
  @IDLING
  idling(@Principal() principal: ConsumerPrincipal, @EntityId('vehicle', 'vehicleId') vehicleId: string, @Query() query: UsageQueryDto): Promise<CounterReportV1> {
    return this.counter(principal, vehicleId, query, 'idling');
  }

  @Get('vehicles/:vehicleId/utilization')
  @ConsumerAuth('read')
  @ApiOperation({
    operationId: 'getVehicleUtilization',
    summary: 'Utilization of one vehicle over a window',
    description: [
      'Observed engine runtime (`engine_runtime_over_observed_time_v1`: usage is observed engine runtime, not productive work): `engineRuntime` and `engineNotRunning` over the same observed engine intervals, `distance`, `idleTime`, and `engineOnPercentOfObservedTime` = engineRuntime / its observed time × 100 (null when nothing was observed).',
      DEFINITIONS,
      WINDOW_TEXT,
      NOT_FOUND_VEHICLE,
    ].join(' '),
  })
  @VEHICLE_ID_PARAM
  @ApiZodResponse(200, utilizationV1)
  @ApiResponse({ status: 400, description: `${BAD_WINDOW} \`invalid_path\`: the vehicleId is not a vcl_ id.`, type: ErrorBodyDto })
  async utilization(@Principal() principal: ConsumerPrincipal, @EntityId('vehicle', 'vehicleId') vehicleId: string, @Query() query: UsageQueryDto): Promise<UtilizationV1> {
    const window = usageWindowOf(query);
    return (await this.contexts.request(RPCS.telemetry.usage.utilization, { connectionId: principal.connectionId, vehicleId, ...window })).utilization;
  }

  @Get('utilization')
  @ConsumerAuth('read')
  @ApiOperation({
    operationId: 'getFleetUtilization',
    summary: 'Utilization of every visible vehicle over a window',
    description: [
      `The Utilization of every visible vehicle of the connection (approved or with stored telemetry), ascending vehicle id, at most ${FLEET_UTILIZATION_PAGE.max} per page (default ${FLEET_UTILIZATION_PAGE.default}) and at most the response byte limit: a page may hold fewer (hourly intervals make a report large), \`nextCursor\` continues; vehicles hidden by the connection's visibility rules never appear and are never counted. A vehicle without observations is listed with \`missing\` counters.`,
      DEFINITIONS,
      WINDOW_TEXT,
    ].join(' '),
  })
  @ApiZodResponse(200, fleetUtilizationV1)
  @ApiResponse({
    status: 400,
    description: `${BAD_WINDOW} \`invalid_query\` also: limit outside ${FLEET_UTILIZATION_PAGE.min}-${FLEET_UTILIZATION_PAGE.max}. \`invalid_cursor\`: a malformed, tampered or expired cursor, or one issued for another window, interval, time zone, key or connection.`,
    type: ErrorBodyDto,
  })
  async fleet(@Principal() principal: ConsumerPrincipal, @Query() query: FleetUtilizationQueryDto): Promise<JsonBody> {
    const window = usageWindowOf(query);
    // The window, interval and time zone are the cursor's filters.
    const { reply, link } = await this.fleetPages.page(principal, query, window, (frame) => this.contexts.request(RPCS.telemetry.usage.fleet, { connectionId: principal.connectionId, ...frame, ...window }));
    return jsonObject(fleetUtilizationV1, { window: { startTime: window.startTime, endTime: window.endTime }, vehicles: raw(reply.body), ...nextCursorLink(link.next) });
  }
}
