/**
 * GET /v1/connections/{id}/drivers (DriverDirectory) and …/drivers/{driverId} (DriverResult), spec
 * 2.5, 4.2: the stored-read pattern of trips.controller.ts — the guard authorizes (consumer key with
 * a read grant on the connection, else 404), the controller parses limit, expand and the cursor
 * (read-cursor.ts: bound to key, connection, grant version; the drivers route has no filters), the
 * directory answers from its last complete driver directory (decision 0014) over `directory.read.drivers.*` (no
 * provider contact), and the controller signs the next position and the walk's horizon into `next`.
 * The Drivers arrive as JSON text rendered by the directory's PostgreSQL (framed replies) and are
 * forwarded as bytes.
 */
import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { DRIVER_DIRECTORY_STATUSES, DRIVER_RESULT_STATUSES, driverIdSchema, PAGE_RANGES } from '@switchyard/contracts';
import { DRIVER_DIRECTORY_REASON_CODES, ID_PATTERNS } from '@switchyard/domain';
import { driverDirectoryV1, driverResultV1, RPCS, type DatasetStatusV1 } from '@switchyard/messaging';
import { ConsumerAuth } from '../auth/auth.guards.js';
import { Principal } from '../auth/principal.decorator.js';
import type { ConsumerPrincipal } from '../auth/principal.js';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../config.js';
import { DRIVER_EXPANDABLE, DriverExpandQueryDto, ListDriversQueryDto } from '../dto/driver.dto.js';
import { ErrorBodyDto } from '../dto/error.dto.js';
import { EntityId } from '../http/entity-ids.js';
import { jsonObject, raw, type JsonBody } from '../http/json-body.js';
import { ApiZodResponse } from '../openapi/zod-schemas.js';
import { ContextClient } from '../services/context-client.service.js';
import { parseExpand } from '../services/read-query.js';
import { narrowed, narrowedOrNull, StoredReadPager } from '../services/stored-read-pager.js';

/** The drivers route has no filters; the binding still names the route, key, connection and grant. */
const NO_FILTERS = {};

/** The DriverDirectory / DriverResult fields that describe the stored dataset (the directory keeps only DriverDirectory codes). */
const frameOf = (d: DatasetStatusV1) => ({ retrieval: 'stored' as const, fetchedAt: d.fetchedAt, capturedAt: d.capturedAt, errorCode: narrowedOrNull(DRIVER_DIRECTORY_REASON_CODES, d.errorCode) });

@ApiTags('drivers')
@Controller('v1/connections/:id/drivers')
@ApiParam({ name: 'id', description: 'Connection id (uuid).', schema: { type: 'string' } })
export class DriversController {
  private readonly pager: StoredReadPager<string, (typeof DRIVER_EXPANDABLE)[number]>;

  constructor(
    private readonly contexts: ContextClient,
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
  ) {
    this.pager = new StoredReadPager(settings, { route: 'GET /v1/connections/{id}/drivers', position: driverIdSchema, range: PAGE_RANGES.drivers, expandable: DRIVER_EXPANDABLE });
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
  @ApiZodResponse(200, driverDirectoryV1)
  @ApiResponse({
    status: 400,
    description: `Unknown, repeated or malformed parameter, limit outside ${PAGE_RANGES.drivers.min}-${PAGE_RANGES.drivers.max}, an unknown expand (\`invalid_query\`); a cursor that is malformed, tampered, expired, of another connection or key, or issued before a grant change (\`invalid_cursor\`).`,
    type: ErrorBodyDto,
  })
  async list(@Principal() principal: ConsumerPrincipal, @Query() query: ListDriversQueryDto): Promise<JsonBody> {
    const { reply, link } = await this.pager.page(principal, query, NO_FILTERS, (frame) => this.contexts.request(RPCS.directory.drivers.list, { connectionId: principal.connectionId, ...frame }));
    const { dataset } = reply.meta;
    return jsonObject(driverDirectoryV1, { ...frameOf(dataset), status: narrowed(DRIVER_DIRECTORY_STATUSES, dataset.status), results: raw(reply.body), ...link });
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
  @ApiZodResponse(200, driverResultV1)
  @ApiResponse({ status: 400, description: 'The driverId is not a drv_ id (`invalid_path`); an unknown parameter or expand value (`invalid_query`).', type: ErrorBodyDto })
  async get(@Principal() principal: ConsumerPrincipal, @EntityId('driver', 'driverId') driverId: string, @Query() query: DriverExpandQueryDto): Promise<JsonBody> {
    const expand = parseExpand(query.expand, DRIVER_EXPANDABLE);
    const { meta, body } = await this.contexts.request(RPCS.directory.drivers.get, { connectionId: principal.connectionId, driverId, expand });
    return jsonObject(driverResultV1, { ...frameOf(meta.dataset), status: narrowed(DRIVER_RESULT_STATUSES, meta.dataset.status), driver: raw(body) });
  }
}
