/**
 * GET /v1/connections/{id}/vehicles, …/vehicles/{vehicleId} and …/vehicles/{vehicleId}/metadata
 * (spec 2.3, 2.6, 4.2; consumer key with a read grant on the connection, else 404). The stored-read
 * pattern of trips.controller.ts: the guard authorizes, the controller parses the query and the
 * cursor (read-cursor.ts), the directory answers over `directory.read.vehicles.*`, the controller
 * signs the next position and horizon into the cursor and adds the page frame.
 * Decisions:
 * - the list's `view` query parameter selects the shape: `assets` (default) → `Vehicles`
 *   (nextCursor, null on the last page), `profiles` → `VehicleProfilePage` (next); `view` is the
 *   cursor's only filter, so a cursor replayed under the other view is `invalid_cursor`;
 * - `scope` of the single read is optional, defaults to and only accepts `directory`;
 * - a vehicle hidden by the connection's visibility rules is 404 by id, like one of another connection.
 */
import { Controller, Get, Inject, Param, Query, Req } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { PAGE_RANGES, parseLimit } from '@switchyard/contracts';
import { ID_PATTERNS, isEntityId } from '@switchyard/domain';
import { DIRECTORY_VEHICLES_RPCS, readHorizonV1, VEHICLE_LIST_VIEWS, type VehicleEntityV1, type VehicleListView, type VehicleMetadataResponseV1 } from '@switchyard/messaging';
import { z } from 'zod';
import { ConsumerAuth } from '../auth/auth.guards.js';
import { consumerPrincipalOf, type AuthenticatedRequest } from '../auth/principal.js';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../config.js';
import { ErrorBodyDto } from '../dto/error.dto.js';
import {
  GetVehicleQueryDto,
  ListVehiclesQueryDto,
  VehicleEntityDto,
  VehicleMetadataResponseDto,
  VehicleProfilePageDto,
  VEHICLE_EXPANDABLE,
  VehiclesDto,
} from '../dto/vehicle.dto.js';
import { ApiError } from '../http/api-error.js';
import { ContextClient } from '../services/context-client.service.js';
import { ReadCursorCodec } from '../services/read-cursor.js';
import { parseExpand, resultsByteBudget } from '../services/read-query.js';

const cursorSchema = z.object({ h: readHorizonV1, p: z.string().min(1).max(64) }).strict();

const BAD_VEHICLE_ID = 'The vehicleId is not a vcl_ id (`invalid_path`)';

function vehicleIdOf(raw: string): string {
  if (!isEntityId('vehicle', raw)) throw new ApiError('invalid_path');
  return raw;
}

const VEHICLE_ID_PARAM = ApiParam({ name: 'vehicleId', description: 'Vehicle id (`vcl_` + 26 Crockford base32 characters).', schema: { type: 'string', pattern: ID_PATTERNS.vehicle } });

@ApiTags('vehicles')
@Controller('v1/connections/:id/vehicles')
@ApiParam({ name: 'id', description: 'Connection id (uuid).', schema: { type: 'string' } })
export class VehiclesController {
  private readonly cursors: ReadCursorCodec<z.output<typeof cursorSchema>>;
  private readonly maxBytes: number;

  constructor(
    private readonly contexts: ContextClient,
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
  ) {
    this.cursors = new ReadCursorCodec(settings.cursorSecret, 'GET /v1/connections/{id}/vehicles', cursorSchema);
    this.maxBytes = resultsByteBudget(settings.responseByteLimit);
  }

  @Get()
  @ConsumerAuth('read')
  @ApiOperation({
    operationId: 'listVehicles',
    summary: 'List stored vehicles (core assets or account-bound profiles)',
    description: [
      'The stored vehicles of the connection (no provider contact), ascending vehicle id. Choose the shape with `view`:',
      '`assets` (default) returns `Vehicles` (core assets; continue with `nextCursor`), `profiles` returns a `VehicleProfilePage` (VehicleEntity profiles, at most 100 and at most 4,194,304 bytes per response; continue with `next`).',
      "Vehicles hidden by the connection's include/exclude lists or status filter never appear. Pass the cursor back as `cursor` with the same `view`.",
    ].join(' '),
  })
  @ApiExtraModels(VehiclesDto, VehicleProfilePageDto)
  @ApiOkResponse({
    description: '`Vehicles` for `view=assets`, `VehicleProfilePage` for `view=profiles`.',
    schema: { oneOf: [{ $ref: getSchemaPath(VehiclesDto) }, { $ref: getSchemaPath(VehicleProfilePageDto) }] },
  })
  @ApiResponse({
    status: 400,
    description: `Unknown, repeated or malformed parameter, limit outside ${PAGE_RANGES.vehicleProfiles.min}-${PAGE_RANGES.vehicleProfiles.max}, an unknown view or expand value, expand with view=assets (\`invalid_query\`); a cursor that is malformed, tampered, expired, from the other view, another connection or key, or issued before a grant change (\`invalid_cursor\`).`,
    type: ErrorBodyDto,
  })
  async list(@Req() req: AuthenticatedRequest, @Query() query: ListVehiclesQueryDto): Promise<VehiclesDto | VehicleProfilePageDto> {
    const principal = consumerPrincipalOf(req);
    const limit = parseLimit(query.limit, PAGE_RANGES.vehicleProfiles);
    if (!limit.ok) throw new ApiError('invalid_query');
    const view = (query.view ?? 'assets') as VehicleListView;
    if (!(VEHICLE_LIST_VIEWS as readonly string[]).includes(view)) throw new ApiError('invalid_query');
    const expand = parseExpand(query.expand, VEHICLE_EXPANDABLE);
    if (view === 'assets' && expand.groups) throw new ApiError('invalid_query');
    const filters = { view };
    const position = query.cursor === undefined ? undefined : this.cursors.decode(principal, filters, query.cursor);
    if (query.cursor !== undefined && !position) throw new ApiError('invalid_cursor');
    const reply = await this.contexts.request(DIRECTORY_VEHICLES_RPCS.list, {
      connectionId: principal.connectionId,
      limit: limit.value,
      maxBytes: this.maxBytes,
      view,
      expand,
      ...(position ? { horizon: position.h, after: position.p } : {}),
    });
    const next = reply.hasMore && reply.next ? this.cursors.encode(principal, filters, { h: reply.horizon, p: reply.next }) : undefined;
    if (view === 'assets') return { vehicles: reply.assets ?? [], nextCursor: next ?? null };
    const { dataset } = reply;
    return {
      status: dataset.status,
      retrieval: 'stored',
      results: (reply.profiles ?? []) as VehicleEntityDto[],
      ...(next ? { next } : {}),
      publishedAt: dataset.publishedAt,
      errorCode: dataset.errorCode,
      selection: 'approved_source_vehicle_ids',
      completeness: 'not_established',
    };
  }

  @Get(':vehicleId')
  @ConsumerAuth('read')
  @ApiOperation({
    operationId: 'getVehicle',
    summary: 'Read one stored vehicle',
    description:
      "One independently authorized stored vehicle of the connection by vcl_ id (`scope=directory`, the default and only scope: the stored vehicle directory, no provider contact). A vehicle of another connection, not stored, hidden by the connection's visibility rules, or whose status the provider did not report is 404.",
  })
  @VEHICLE_ID_PARAM
  @ApiOkResponse({ type: VehicleEntityDto })
  @ApiResponse({ status: 400, description: `${BAD_VEHICLE_ID}; an unknown parameter, scope or expand value (\`invalid_query\`).`, type: ErrorBodyDto })
  async get(@Req() req: AuthenticatedRequest, @Param('vehicleId') rawId: string, @Query() query: GetVehicleQueryDto): Promise<VehicleEntityV1> {
    const principal = consumerPrincipalOf(req);
    const vehicleId = vehicleIdOf(rawId);
    if (query.scope !== undefined && query.scope !== 'directory') throw new ApiError('invalid_query');
    const expand = parseExpand(query.expand, VEHICLE_EXPANDABLE);
    return (await this.contexts.request(DIRECTORY_VEHICLES_RPCS.get, { connectionId: principal.connectionId, vehicleId, expand })).vehicle;
  }

  @Get(':vehicleId/metadata')
  @ConsumerAuth('read')
  @ApiOperation({
    operationId: 'getVehicleMetadata',
    summary: 'Read the stored metadata of one vehicle',
    description:
      "All 15 metadata cells of a stored vehicle (opt-in `vehicleMetadata`; `disabled` when off). A vehicle of another connection or hidden by the connection's visibility rules is 404, as is an id the last complete roster does not contain and Switchyard has never stored.",
  })
  @VEHICLE_ID_PARAM
  @ApiOkResponse({ type: VehicleMetadataResponseDto })
  @ApiResponse({ status: 400, description: `${BAD_VEHICLE_ID}; an unknown parameter (\`invalid_query\`).`, type: ErrorBodyDto })
  async metadata(@Req() req: AuthenticatedRequest, @Param('vehicleId') rawId: string): Promise<VehicleMetadataResponseV1> {
    // No query parameters: UndeclaredQueryInterceptor refuses any.
    const principal = consumerPrincipalOf(req);
    return this.contexts.request(DIRECTORY_VEHICLES_RPCS.metadata, { connectionId: principal.connectionId, vehicleId: vehicleIdOf(rawId) });
  }
}
