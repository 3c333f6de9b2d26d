/**
 * GET /v1/connections/{id}/vehicles/{vehicleId}/telemetry, …/locations and
 * …/vehicles/{vehicleId}/history (spec 2.10, 4.2, 4.4): stored reads served by the telemetry-ingest
 * context over `telemetry.read.*` (no provider contact). The guard authorizes (consumer key with a
 * grant on the connection, else 404), the controller checks the query and the cursor, the context
 * answers from its own schema.
 * Decisions:
 * - vehicle ids are the directory's `vcl_` ids only; a provider's own id is 400 `invalid_path`;
 * - an unknown vehicle (neither approved by the connection nor with stored telemetry), one of another
 *   connection and one hidden by the connection's visibility rules are all 404 `not_found`,
 *   indistinguishable; an approved vehicle without readings answers `missing` metrics;
 * - telemetry and locations need the key's `read` grant; history needs its `history` grant (the
 *   stored observation record of a vehicle over time is what that permission guards; a key without
 *   it gets 404 like any connection route, spec 5 rule 4);
 * - locations pages by vehicle id (at most 100 per page) through the one pager of the stored lists
 *   (stored-read-pager.ts: its `{h, p}` cursor; the route has no `expand`);
 * - refresh (POST …/refresh, no body, the key's `read` grant): ONE request to the orchestrator's
 *   `sync.collection.refresh` (decision 0019), which answers the whole route: telemetry-ingest's
 *   stored read first (404 exactly as the telemetry route, before any slot is claimed), the asset's
 *   slot (once per 30 s across every process, state in PostgreSQL), the provider asked through the
 *   collectors' adapter, sealed credentials and budget, the readings published for storage, and
 *   telemetry-ingest's read again with them laid over (they may not be committed yet). A failed
 *   provider read is still 200: `refreshStatus: failed`, the stored readings of the metrics it could
 *   not refresh marked `fallback: true` (stale by their age). Rate limited: 429 `rate_limited` with
 *   `Retry-After`;
 * - history: `metric` and a window of at most 31 days; its cursor carries the metric and window it
 *   was issued for, so a cursor passed with other ones is 400 `cursor_parameters_changed` (any
 *   other bad cursor is `invalid_cursor`). The last page also carries a cursor: it continues after
 *   the last reading served with a fresh snapshot (readings committed since, with a later time).
 */
import { Controller, Get, HttpCode, Inject, Post, Query, Req } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { HISTORY_PAGE, HISTORY_WINDOW_MAX_DAYS, HISTORY_WINDOW_MAX_MS, LOCATIONS_PAGE, parseLimit, REFRESH_MIN_INTERVAL_S, vehicleIdSchema } from '@switchyard/contracts';
import { ID_PATTERNS, isTelemetryMetric } from '@switchyard/domain';
import {
  fleetLocationsV1,
  historyPositionV1,
  historyV1,
  nextCursorLink,
  readHorizonV1,
  RPCS,
  telemetryV1,
} from '@switchyard/messaging';
import { z } from 'zod';
import { ConsumerAuth } from '../auth/auth.guards.js';
import { Principal } from '../auth/principal.decorator.js';
import type { AuthenticatedRequest, ConsumerPrincipal } from '../auth/principal.js';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../config.js';
import { ErrorBodyDto } from '../dto/error.dto.js';
import { HistoryQueryDto, ListLocationsQueryDto } from '../dto/telemetry.dto.js';
import { ApiError, invalid } from '../http/api-error.js';
import { EntityId } from '../http/entity-ids.js';
import { parseInstant } from '../http/instant.js';
import { NO_BODY_ROUTE } from '../http/error.filter.js';
import { jsonObject, jsonText, raw, type JsonBody } from '../http/json-body.js';
import { requireNoBody } from '../http/no-body.js';
import { ApiZodResponse } from '../openapi/zod-schemas.js';
import { ContextClient } from '../services/context-client.service.js';
import { ReadCursorCodec } from '../services/read-cursor.js';
import { resultsByteBudget } from '../services/read-query.js';
import { StoredReadPager } from '../services/stored-read-pager.js';

const HISTORY_ROUTE = 'GET /v1/connections/{id}/vehicles/{vehicleId}/history';

/** The history cursor: the walk's horizon and position, and the parameters it belongs to. */
const historyCursorV1 = z.object({ h: readHorizonV1.optional(), p: historyPositionV1.optional(), v: z.string(), m: z.string(), s: z.string(), e: z.string() }).strict();
type HistoryCursor = z.output<typeof historyCursorV1>;

/** The window of a history query, checked in the order the reason codes are documented. */
function windowOf(startTime: string | undefined, endTime: string | undefined): { startTime: string; endTime: string } {
  // The one request date-time parser (http/instant.ts, decision 0016); echoed (and bound into the cursor) in its canonical wire form.
  const instant = (name: 'startTime' | 'endTime', raw: string | undefined) => {
    if (raw === undefined) throw invalid('invalid_query', 'query', name, 'malformed');
    const parsed = parseInstant(raw);
    if (!parsed.ok) throw invalid('invalid_query', 'query', name, parsed.reason);
    return parsed;
  };
  const [start, end] = [instant('startTime', startTime), instant('endTime', endTime)];
  if (start.ms >= end.ms) throw new ApiError('reversed_window');
  if (end.ms - start.ms > HISTORY_WINDOW_MAX_MS) throw new ApiError('window_too_long');
  return { startTime: start.iso, endTime: end.iso };
}

const VEHICLE_ID_PARAM = ApiParam({
  name: 'vehicleId',
  description: "Vehicle id (`vcl_` + 26 Crockford base32 characters), the directory's id. The provider's own vehicle id is not accepted (400 `invalid_path`).",
  schema: { type: 'string', pattern: ID_PATTERNS.vehicle },
});
const NOT_FOUND_VEHICLE =
  "A vehicle the connection neither approves nor has stored telemetry of, one of another connection, or one hidden by the connection's include/exclude lists or status filter is 404 `not_found`; an approved vehicle without stored readings answers every metric `missing`.";

@ApiTags('telemetry')
@Controller('v1/connections/:id')
@ApiParam({ name: 'id', description: 'Connection id (uuid).', schema: { type: 'string' } })
export class TelemetryController {
  private readonly locationPages: StoredReadPager<string>;
  private readonly historyCursors: ReadCursorCodec<HistoryCursor>;
  private readonly maxBytes: number;

  constructor(
    private readonly contexts: ContextClient,
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
  ) {
    this.locationPages = new StoredReadPager(settings, { route: 'GET /v1/connections/{id}/locations', position: vehicleIdSchema, range: LOCATIONS_PAGE });
    this.historyCursors = new ReadCursorCodec(settings.cursorSecret, HISTORY_ROUTE, historyCursorV1);
    this.maxBytes = resultsByteBudget(settings.responseByteLimit);
  }

  @Get('vehicles/:vehicleId/telemetry')
  @ConsumerAuth('read')
  @ApiOperation({
    operationId: 'getVehicleTelemetry',
    summary: 'Read the latest stored telemetry of one vehicle',
    description: [
      'The newest stored reading of each metric (no provider contact). `location` and `odometer` are always present.',
      'An optional metric (`engineHours`, `totalIdleTime`, `speed`, `heading`, `fuelPercent`, `batteryVoltage`, `engineState`) is present when the connection covers it: the `extendedTelemetry` opt-in is on, `engineHours` is among the selected signals, and the provider does not mark the metric unsupported (catalog `fields`); absent otherwise.',
      "Each metric is `available`, `stale` (older than the field's `freshnessSeconds` in the catalog) or `missing` (`reading: null`, never a zero); `units` tells a converted provider unit.",
      NOT_FOUND_VEHICLE,
    ].join(' '),
  })
  @VEHICLE_ID_PARAM
  @ApiZodResponse(200, telemetryV1)
  @ApiResponse({ status: 400, description: 'The vehicleId is not a vcl_ id (`invalid_path`); any query parameter (`invalid_query`).', type: ErrorBodyDto })
  async telemetry(@Principal() principal: ConsumerPrincipal, @EntityId('vehicle', 'vehicleId') vehicleId: string): Promise<JsonBody> {
    return jsonText(telemetryV1, (await this.contexts.request(RPCS.telemetry.latest, { connectionId: principal.connectionId, vehicleId })).body);
  }

  @Post('vehicles/:vehicleId/refresh')
  // Any body, JSON or not, within the size limit or over it, is 400 invalid_body (decision 0016).
  @RouteConfig(NO_BODY_ROUTE)
  @HttpCode(200)
  @ConsumerAuth('read')
  @ApiOperation({
    operationId: 'refreshVehicleTelemetry',
    summary: 'Ask the provider now for one vehicle\'s latest readings',
    description: [
      `No body. Contacts the provider for this vehicle now (sharing the account's request budget with collection) and answers Telemetry with \`refreshStatus\`: \`fetched\` (an odometer came back; its \`observedAt\` tells how fresh — a refresh cannot make the vehicle report a new sample), \`no_new_odometer\` (the provider answered without one), or \`failed\` (the provider read of odometer and location failed, or the connection is paused: still 200, with the stored readings, those the refresh could not renew marked \`fallback: true\` and \`stale\` by their age).`,
      'A failure of an optional metric never degrades odometer or location: only that metric is marked `fallback`.',
      'The readings fetched are stored like collected ones, so the next read and the history show them.',
      `At most once per vehicle every ${REFRESH_MIN_INTERVAL_S} seconds, whichever key or process asks: then 429 \`rate_limited\` with \`Retry-After\`.`,
      NOT_FOUND_VEHICLE,
    ].join(' '),
  })
  @VEHICLE_ID_PARAM
  @ApiZodResponse(200, telemetryV1)
  @ApiResponse({
    status: 400,
    description: 'The vehicleId is not a vcl_ id (`invalid_path`); a body was sent, this route takes none (`invalid_body`): any body, whatever its media type or size; any query parameter (`invalid_query`).',
    type: ErrorBodyDto,
  })
  @ApiResponse({
    status: 429,
    description: `This vehicle was refreshed less than ${REFRESH_MIN_INTERVAL_S} seconds ago (\`rate_limited\`); retry after \`Retry-After\` seconds.`,
    type: ErrorBodyDto,
    headers: { 'Retry-After': { description: 'Seconds until this vehicle may be refreshed again.', schema: { type: 'integer' } } },
  })
  async refresh(@Req() req: AuthenticatedRequest, @Principal() principal: ConsumerPrincipal, @EntityId('vehicle', 'vehicleId') vehicleId: string): Promise<JsonBody> {
    requireNoBody(req);
    // One request (issue 24 item 9): the orchestrator applies telemetry-ingest's 404 rule before it claims the slot, fetches, and answers the body.
    const refreshed = await this.contexts.request(RPCS.collection.refresh, { connectionId: principal.connectionId, vehicleId });
    if (refreshed.meta.outcome === 'rate_limited') throw new ApiError('rate_limited', { 'Retry-After': String(refreshed.meta.retryAfterSeconds) });
    return jsonText(telemetryV1, refreshed.body);
  }

  @Get('locations')
  @ConsumerAuth('read')
  @ApiOperation({
    operationId: 'listFleetLocations',
    summary: 'List the latest stored location of every vehicle',
    description: `The latest stored location of every visible vehicle of the connection that has stored telemetry, ascending vehicle id, at most ${LOCATIONS_PAGE.max} per page (default ${LOCATIONS_PAGE.default}) and at most the response byte limit (no provider contact). Each entry is the location status object of Telemetry. Vehicles hidden by the connection's visibility rules never appear.`,
  })
  @ApiZodResponse(200, fleetLocationsV1)
  @ApiResponse({
    status: 400,
    description: `Unknown, repeated or malformed parameter, limit outside ${LOCATIONS_PAGE.min}-${LOCATIONS_PAGE.max} (\`invalid_query\`); a malformed, tampered or expired cursor, or one of another connection or key, or issued before a grant change (\`invalid_cursor\`).`,
    type: ErrorBodyDto,
  })
  async locations(@Principal() principal: ConsumerPrincipal, @Query() query: ListLocationsQueryDto): Promise<JsonBody> {
    const { reply, link } = await this.locationPages.page(principal, query, {}, (frame) => this.contexts.request(RPCS.telemetry.locations, { connectionId: principal.connectionId, ...frame }));
    return jsonObject(fleetLocationsV1, { locations: raw(reply.body), ...nextCursorLink(link.next), retrieval: 'stored' });
  }

  @Get('vehicles/:vehicleId/history')
  @ConsumerAuth('history')
  @ApiOperation({
    operationId: 'getVehicleHistory',
    summary: 'Read stored observations of one metric in a window',
    description: [
      `Stored observations of one metric of one vehicle with startTime <= observed_at < endTime, in time order (observed_at, then source); a window spans at most ${HISTORY_WINDOW_MAX_DAYS} days; at most ${HISTORY_PAGE.max} readings per page (default ${HISTORY_PAGE.default}) and at most the response byte limit (no provider contact).`,
      'Needs the consumer key\'s `history` grant on the connection (a key with only `read` gets 404): history is the stored record of a vehicle over time.',
      'Continue with `nextCursor` and the same metric and window: a walk never repeats a reading (each has a unique `sequence`) and keeps to the readings committed before its first page, so readings ingested meanwhile never shift or duplicate its pages.',
      NOT_FOUND_VEHICLE,
    ].join(' '),
  })
  @VEHICLE_ID_PARAM
  @ApiZodResponse(200, historyV1)
  @ApiResponse({
    status: 400,
    description: `\`unknown_metric\`: metric missing or not a telemetry metric. \`invalid_query\`: startTime or endTime missing or not a date-time, limit outside ${HISTORY_PAGE.min}-${HISTORY_PAGE.max}, an unknown or repeated parameter. \`reversed_window\`: startTime not before endTime. \`window_too_long\`: more than ${HISTORY_WINDOW_MAX_DAYS} days. \`cursor_parameters_changed\`: a cursor of this vehicle's history passed with another metric or window. \`invalid_cursor\`: any other malformed, tampered, expired or foreign cursor. \`invalid_path\`: the vehicleId is not a vcl_ id.`,
    type: ErrorBodyDto,
  })
  async history(@Principal() principal: ConsumerPrincipal, @EntityId('vehicle', 'vehicleId') vehicleId: string, @Query() query: HistoryQueryDto): Promise<JsonBody> {
    const metric = query.metric;
    if (!isTelemetryMetric(metric)) throw new ApiError('unknown_metric');
    const window = windowOf(query.startTime, query.endTime);
    const limit = parseLimit(query.limit, HISTORY_PAGE);
    if (!limit.ok) throw new ApiError('invalid_query');
    let cursor: HistoryCursor | undefined;
    if (query.cursor !== undefined) {
      cursor = this.historyCursors.decode(principal, {}, query.cursor);
      if (!cursor || cursor.v !== vehicleId) throw new ApiError('invalid_cursor');
      if (cursor.m !== metric || cursor.s !== window.startTime || cursor.e !== window.endTime) throw new ApiError('cursor_parameters_changed');
    }
    const { meta, body } = await this.contexts.request(RPCS.telemetry.history, {
      connectionId: principal.connectionId,
      vehicleId,
      metric,
      ...window,
      limit: limit.value,
      maxBytes: this.maxBytes,
      ...(cursor?.h ? { horizon: cursor.h } : {}),
      ...(cursor?.p ? { after: cursor.p } : {}),
    });
    // The last page's cursor has no horizon: the context takes a fresh snapshot when it is used.
    const position = meta.last ?? cursor?.p;
    const next: HistoryCursor = { ...(meta.hasMore ? { h: meta.horizon } : {}), ...(position ? { p: position } : {}), v: vehicleId, m: metric, s: window.startTime, e: window.endTime };
    return jsonObject(historyV1, { vehicleId, window, readings: raw(body), nextCursor: this.historyCursors.encode(principal, {}, next), hasMore: meta.hasMore });
  }
}
