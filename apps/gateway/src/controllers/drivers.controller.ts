/**
 * GET /v1/connections/{id}/drivers (DriverDirectory) and …/drivers/{driverId} (DriverResult), spec
 * 2.5, 4.2: the stored-read pattern of trips.controller.ts — the guard authorizes (consumer key with
 * a read grant on the connection, else 404), the controller parses limit, expand and the cursor
 * (read-cursor.ts: bound to key, connection, grant version; the drivers route has no filters), the
 * directory answers from its last complete driver directory (decision 0014) over `directory.read.drivers.*` (no
 * provider contact), and the controller signs the next position and the walk's horizon into `next`.
 */
import { Controller, Get, Inject, Param, Query, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { PAGE_RANGES, parseLimit } from '@switchyard/contracts';
import { ID_PATTERNS, isDriverId } from '@switchyard/domain';
import { DIRECTORY_DRIVERS_RPCS, readHorizonV1, type DatasetStatusV1 } from '@switchyard/messaging';
import { z } from 'zod';
import { ConsumerAuth } from '../auth/auth.guards.js';
import { consumerPrincipalOf, type AuthenticatedRequest } from '../auth/principal.js';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../config.js';
import { DRIVER_EXPANDABLE, DriverDirectoryDto, DriverDto, DriverExpandQueryDto, DriverResultDto, ListDriversQueryDto } from '../dto/driver.dto.js';
import { ErrorBodyDto } from '../dto/error.dto.js';
import { ApiError } from '../http/api-error.js';
import { ContextClient } from '../services/context-client.service.js';
import { ReadCursorCodec } from '../services/read-cursor.js';
import { parseExpand, resultsByteBudget } from '../services/read-query.js';

const cursorSchema = z.object({ h: readHorizonV1, p: z.string().regex(new RegExp(ID_PATTERNS.driver)) }).strict();
/** The drivers route has no filters; the binding still names the route, key, connection and grant. */
const NO_FILTERS = {};

/** The DriverDirectory / DriverResult fields that describe the stored dataset. */
const frameOf = (d: DatasetStatusV1) => ({ status: d.status, retrieval: 'stored' as const, fetchedAt: d.fetchedAt, capturedAt: d.capturedAt, errorCode: d.errorCode });

@ApiTags('drivers')
@Controller('v1/connections/:id/drivers')
@ApiParam({ name: 'id', description: 'Connection id (uuid).', schema: { type: 'string' } })
export class DriversController {
  private readonly cursors: ReadCursorCodec<z.output<typeof cursorSchema>>;
  private readonly maxBytes: number;

  constructor(
    private readonly contexts: ContextClient,
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
  ) {
    this.cursors = new ReadCursorCodec(settings.cursorSecret, 'GET /v1/connections/{id}/drivers', cursorSchema);
    this.maxBytes = resultsByteBudget(settings.responseByteLimit);
  }

  @Get()
  @ConsumerAuth('read')
  @ApiOperation({
    operationId: 'listDrivers',
    summary: 'List the stored driver directory',
    description: [
      'Drivers of the last complete driver directory of the connection (no provider contact): exactly the drivers the last collection pass that reached its final page carried, ascending id, at most `limit` (1-100, default 100) per page.',
      'A pass still in progress shows nothing until its final page; a driver a newer complete pass lacks is no longer listed. `pending` with no results until the first pass completes; fetchedAt and capturedAt are the served pass\'s newest and final page fetch times.',
      'Pass `next` back as `cursor` (limit and expand may change): a walk stays on the pass its first page served, even when a newer pass completes meanwhile. Drivers whose stored record lacks a status or a valid source id are not listed.',
    ].join(' '),
  })
  @ApiOkResponse({ type: DriverDirectoryDto })
  @ApiResponse({
    status: 400,
    description: `Unknown, repeated or malformed parameter, limit outside ${PAGE_RANGES.drivers.min}-${PAGE_RANGES.drivers.max}, an unknown expand (\`invalid_query\`); a cursor that is malformed, tampered, expired, of another connection or key, or issued before a grant change (\`invalid_cursor\`).`,
    type: ErrorBodyDto,
  })
  async list(@Req() req: AuthenticatedRequest, @Query() query: ListDriversQueryDto): Promise<DriverDirectoryDto> {
    const principal = consumerPrincipalOf(req);
    const limit = parseLimit(query.limit, PAGE_RANGES.drivers);
    if (!limit.ok) throw new ApiError('invalid_query');
    const expand = parseExpand(query.expand, DRIVER_EXPANDABLE);
    const position = query.cursor === undefined ? undefined : this.cursors.decode(principal, NO_FILTERS, query.cursor);
    if (query.cursor !== undefined && !position) throw new ApiError('invalid_cursor');
    const reply = await this.contexts.request(DIRECTORY_DRIVERS_RPCS.list, {
      connectionId: principal.connectionId,
      limit: limit.value,
      maxBytes: this.maxBytes,
      expand,
      ...(position ? { horizon: position.h, after: position.p } : {}),
    });
    const next = reply.hasMore && reply.next ? this.cursors.encode(principal, NO_FILTERS, { h: reply.horizon, p: reply.next }) : undefined;
    return { ...frameOf(reply.dataset), results: reply.drivers as DriverDto[], ...(next ? { next } : {}) };
  }

  @Get(':driverId')
  @ConsumerAuth('read')
  @ApiOperation({
    operationId: 'getDriver',
    summary: 'Read one stored driver',
    description: [
      'One driver by drv_ id. A driver of the last complete driver directory answers with the directory\'s status and times.',
      'A driver an earlier complete directory listed but the last one does not (removed at the provider) answers its last known record as `stale` (or `degraded`), fetchedAt being that record\'s fetch time, before capturedAt.',
      'A driver no complete directory listed yet (seen only by a pass still in progress, or before the first pass completes) and a driver of another connection are 404.',
    ].join(' '),
  })
  @ApiParam({ name: 'driverId', description: 'Driver id (`drv_` + 26 Crockford base32 characters).', schema: { type: 'string', pattern: ID_PATTERNS.driver } })
  @ApiOkResponse({ type: DriverResultDto })
  @ApiResponse({ status: 400, description: 'The driverId is not a drv_ id (`invalid_path`); an unknown parameter or expand value (`invalid_query`).', type: ErrorBodyDto })
  async get(@Req() req: AuthenticatedRequest, @Param('driverId') driverId: string, @Query() query: DriverExpandQueryDto): Promise<DriverResultDto> {
    const principal = consumerPrincipalOf(req);
    if (!isDriverId(driverId)) throw new ApiError('invalid_path');
    const expand = parseExpand(query.expand, DRIVER_EXPANDABLE);
    const { dataset, driver } = await this.contexts.request(DIRECTORY_DRIVERS_RPCS.get, { connectionId: principal.connectionId, driverId, expand });
    return { ...frameOf(dataset), driver: driver as DriverDto };
  }
}
