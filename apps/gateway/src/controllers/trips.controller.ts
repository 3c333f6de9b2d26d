/**
 * GET /v1/connections/{id}/trips and …/trips/{tripId} (spec 2.7, 4.2; consumer key with a read
 * grant on the connection, else 404). The stored-read pattern every directory resource follows:
 * the guard authorizes; the controller parses its filters (read-query.ts: id lists, window;
 * unknown parameters are refused by the validation pipe); the shared pager (stored-read-pager.ts)
 * parses limit, expand and the cursor (bound to key, connection, grant version and filters), asks
 * the directory over `directory.read.trips.*` and signs the next position and the walk's horizon
 * into `next`; the controller maps the reply to the public TripPage (zod, libs/messaging).
 * Filters bound to the cursor: from, to, vehicleIds, driverIds.
 */
import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { PAGE_RANGES, TRIP_FILTER_IDS } from '@switchyard/contracts';
import { ID_PATTERNS } from '@switchyard/domain';
import { RPCS, TRIP_PAGE_STATUSES, tripPageV1, tripPositionV1, tripV1, type TripPositionV1 } from '@switchyard/messaging';
import { ConsumerAuth } from '../auth/auth.guards.js';
import { Principal } from '../auth/principal.decorator.js';
import type { ConsumerPrincipal } from '../auth/principal.js';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../config.js';
import { ErrorBodyDto } from '../dto/error.dto.js';
import { ListTripsQueryDto, TRIP_EXPANDABLE, TripExpandQueryDto } from '../dto/trip.dto.js';
import { EntityId } from '../http/entity-ids.js';
import { jsonObject, jsonText, raw, type JsonBody } from '../http/json-body.js';
import { ApiZodResponse } from '../openapi/zod-schemas.js';
import { ContextClient } from '../services/context-client.service.js';
import { parseExpand, parseIdList, parseWindow } from '../services/read-query.js';
import { narrowed, StoredReadPager } from '../services/stored-read-pager.js';

@ApiTags('trips')
@Controller('v1/connections/:id/trips')
@ApiParam({ name: 'id', description: 'Connection id (uuid).', schema: { type: 'string' } })
export class TripsController {
  private readonly pager: StoredReadPager<TripPositionV1, (typeof TRIP_EXPANDABLE)[number]>;

  constructor(
    private readonly contexts: ContextClient,
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
  ) {
    this.pager = new StoredReadPager(settings, { route: 'GET /v1/connections/{id}/trips', position: tripPositionV1, range: PAGE_RANGES.trips, expandable: TRIP_EXPANDABLE });
  }

  @Get()
  @ConsumerAuth('read')
  @ApiOperation({
    operationId: 'listTrips',
    summary: 'List stored completed trips',
    description: [
      'Completed trips of the connection from stored data (no provider contact), ascending startedAt then id, whose startedAt lies in [from, to).',
      `vehicleIds and driverIds narrow to at most ${TRIP_FILTER_IDS} ids each. Trips of vehicles hidden by the connection's include/exclude lists or status filter never appear.`,
      'A page holds at most `limit` trips and at most 4,194,304 bytes; when the next trip would not fit, the page ends early and `next` continues.',
      'Pass `next` back as `cursor` with unchanged filters. Distances are kilometers, durations milliseconds.',
    ].join(' '),
  })
  @ApiZodResponse(200, tripPageV1)
  @ApiResponse({
    status: 400,
    description: `Unknown, repeated or malformed parameter, limit outside ${PAGE_RANGES.trips.min}-${PAGE_RANGES.trips.max}, more than ${TRIP_FILTER_IDS} vehicle or driver ids, a malformed id, from not before to, an unknown expand (\`invalid_query\`); a cursor that is malformed, tampered, expired, from other filters, another connection or key, or issued before a grant change (\`invalid_cursor\`).`,
    type: ErrorBodyDto,
  })
  async list(@Principal() principal: ConsumerPrincipal, @Query() query: ListTripsQueryDto): Promise<JsonBody> {
    const window = parseWindow(query.from, query.to);
    const vehicleIds = parseIdList(query.vehicleIds, 'vehicle', TRIP_FILTER_IDS);
    const driverIds = parseIdList(query.driverIds, 'driver', TRIP_FILTER_IDS);
    const filters = { ...window, vehicleIds, driverIds };
    const { reply, link } = await this.pager.page(principal, query, filters, (frame) => this.contexts.request(RPCS.directory.trips.list, { connectionId: principal.connectionId, ...frame, ...filters }));
    const { dataset, coverage } = reply.meta;
    return jsonObject(tripPageV1, {
      status: narrowed(TRIP_PAGE_STATUSES, dataset.status),
      retrieval: 'stored',
      results: raw(reply.body),
      ...link,
      coverage,
      publishedAt: dataset.publishedAt,
      errorCode: dataset.errorCode,
    });
  }

  @Get(':tripId')
  @ConsumerAuth('read')
  @ApiOperation({
    operationId: 'getTrip',
    summary: 'Read one stored trip',
    description: "One current stored trip of the connection by trp_ id. A trip of another connection, or of a vehicle hidden by the connection's visibility rules, is 404.",
  })
  @ApiParam({ name: 'tripId', description: 'Trip id (`trp_` + 26 Crockford base32 characters).', schema: { type: 'string', pattern: ID_PATTERNS.trip } })
  @ApiZodResponse(200, tripV1)
  @ApiResponse({ status: 400, description: 'The tripId is not a trp_ id (`invalid_path`); an unknown parameter or expand value (`invalid_query`).', type: ErrorBodyDto })
  async get(@Principal() principal: ConsumerPrincipal, @EntityId('trip', 'tripId') tripId: string, @Query() query: TripExpandQueryDto): Promise<JsonBody> {
    const expand = parseExpand(query.expand, TRIP_EXPANDABLE);
    return jsonText(tripV1, (await this.contexts.request(RPCS.directory.trips.get, { connectionId: principal.connectionId, tripId, expand })).body);
  }
}
