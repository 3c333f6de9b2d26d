/**
 * GET /v1/connections/{id}/trips and …/trips/{tripId} (spec 2.7, 4.2; consumer key with a read
 * grant on the connection, else 404). The stored-read pattern every directory resource follows:
 * the guard authorizes; the controller parses the query (read-query.ts: id lists, expand, window,
 * limit; unknown parameters are refused by the validation pipe) and the cursor (read-cursor.ts,
 * bound to key, connection, grant version and filters); the directory answers from its store over
 * `directory.read.trips.*`; the controller signs the next position and the walk's horizon into
 * `next` and adds the page frame. Filters bound to the cursor: from, to, vehicleIds, driverIds.
 */
import { Controller, Get, Inject, Param, Query, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { parseLimit, PAGE_RANGES, TRIP_FILTER_IDS } from '@switchyard/contracts';
import { ID_PATTERNS, isTripId } from '@switchyard/domain';
import { DIRECTORY_TRIPS_RPCS, readHorizonV1, tripPositionV1, type TripV1 } from '@switchyard/messaging';
import { z } from 'zod';
import { ConsumerAuth } from '../auth/auth.guards.js';
import { consumerPrincipalOf as principalOf, type AuthenticatedRequest } from '../auth/principal.js';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../config.js';
import { ErrorBodyDto } from '../dto/error.dto.js';
import { ListTripsQueryDto, TRIP_EXPANDABLE, TripDto, TripExpandQueryDto, TripPageDto } from '../dto/trip.dto.js';
import { ApiError } from '../http/api-error.js';
import { ContextClient } from '../services/context-client.service.js';
import { ReadCursorCodec } from '../services/read-cursor.js';
import { parseExpand, parseIdList, parseWindow, resultsByteBudget } from '../services/read-query.js';

const cursorSchema = z.object({ h: readHorizonV1, p: tripPositionV1 }).strict();

@ApiTags('trips')
@Controller('v1/connections/:id/trips')
@ApiParam({ name: 'id', description: 'Connection id (uuid).', schema: { type: 'string' } })
export class TripsController {
  private readonly cursors: ReadCursorCodec<z.output<typeof cursorSchema>>;
  private readonly maxBytes: number;

  constructor(
    private readonly contexts: ContextClient,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {
    this.cursors = new ReadCursorCodec(settings.cursorSecret, 'GET /v1/connections/{id}/trips', cursorSchema);
    this.maxBytes = resultsByteBudget(settings.responseByteLimit);
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
  @ApiOkResponse({ type: TripPageDto })
  @ApiResponse({
    status: 400,
    description: `Unknown, repeated or malformed parameter, limit outside ${PAGE_RANGES.trips.min}-${PAGE_RANGES.trips.max}, more than ${TRIP_FILTER_IDS} vehicle or driver ids, a malformed id, from not before to, an unknown expand (\`invalid_query\`); a cursor that is malformed, tampered, expired, from other filters, another connection or key, or issued before a grant change (\`invalid_cursor\`).`,
    type: ErrorBodyDto,
  })
  async list(@Req() req: AuthenticatedRequest, @Query() query: ListTripsQueryDto): Promise<TripPageDto> {
    const principal = principalOf(req);
    const limit = parseLimit(query.limit, PAGE_RANGES.trips);
    if (!limit.ok) throw new ApiError('invalid_query');
    const window = parseWindow(query.from, query.to);
    const vehicleIds = parseIdList(query.vehicleIds, 'vehicle', TRIP_FILTER_IDS);
    const driverIds = parseIdList(query.driverIds, 'driver', TRIP_FILTER_IDS);
    const expand = parseExpand(query.expand, TRIP_EXPANDABLE);
    const filters = { ...window, vehicleIds, driverIds };
    const position = query.cursor === undefined ? undefined : this.cursors.decode(principal, filters, query.cursor);
    if (query.cursor !== undefined && !position) throw new ApiError('invalid_cursor');
    const reply = await this.contexts.request(DIRECTORY_TRIPS_RPCS.list, {
      connectionId: principal.connectionId,
      limit: limit.value,
      maxBytes: this.maxBytes,
      ...window,
      vehicleIds,
      driverIds,
      expand,
      ...(position ? { horizon: position.h, after: position.p } : {}),
    });
    const next = reply.hasMore && reply.next ? this.cursors.encode(principal, filters, { h: reply.horizon, p: reply.next }) : undefined;
    const { dataset, coverage, trips } = reply;
    return {
      status: dataset.status,
      retrieval: 'stored',
      results: trips as TripDto[],
      ...(next ? { next } : {}),
      coverage,
      publishedAt: dataset.publishedAt,
      errorCode: dataset.errorCode,
    };
  }

  @Get(':tripId')
  @ConsumerAuth('read')
  @ApiOperation({
    operationId: 'getTrip',
    summary: 'Read one stored trip',
    description: "One current stored trip of the connection by trp_ id. A trip of another connection, or of a vehicle hidden by the connection's visibility rules, is 404.",
  })
  @ApiParam({ name: 'tripId', description: 'Trip id (`trp_` + 26 Crockford base32 characters).', schema: { type: 'string', pattern: ID_PATTERNS.trip } })
  @ApiOkResponse({ type: TripDto })
  @ApiResponse({ status: 400, description: 'The tripId is not a trp_ id (`invalid_path`); an unknown parameter or expand value (`invalid_query`).', type: ErrorBodyDto })
  async get(@Req() req: AuthenticatedRequest, @Param('tripId') tripId: string, @Query() query: TripExpandQueryDto): Promise<TripV1> {
    const principal = principalOf(req);
    if (!isTripId(tripId)) throw new ApiError('invalid_path');
    const expand = parseExpand(query.expand, TRIP_EXPANDABLE);
    return (await this.contexts.request(DIRECTORY_TRIPS_RPCS.get, { connectionId: principal.connectionId, tripId, expand })).trip;
  }
}
