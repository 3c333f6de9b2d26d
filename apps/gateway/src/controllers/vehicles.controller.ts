/**
 * GET /v1/connections/{id}/vehicles, …/vehicles/{vehicleId} and …/vehicles/{vehicleId}/metadata
 * (spec 2.3, 2.6, 4.2; consumer key with a read grant on the connection, else 404). The stored-read
 * pattern of trips.controller.ts: the guard authorizes, the controller parses the query and the
 * cursor (read-cursor.ts), the directory answers over `directory.read.vehicles.*`, the controller
 * signs the next position and horizon into the cursor and adds the page frame.
 * Decisions:
 * - the list's `view` query parameter selects the shape: `assets` (default) → `Vehicles`
 *   (nextCursor, null on the last page; each core asset carries its vcl_ id, decision 0017),
 *   `profiles` → `VehicleProfilePage` (next, absent on the last page); `view` is the
 *   cursor's only filter, so a cursor replayed under the other view is `invalid_cursor`;
 * - `scope` of the single read is optional, defaults to and only accepts `directory`;
 * - a vehicle hidden by the connection's visibility rules is 404 by id, like one of another connection.
 */
import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { PAGE_RANGES } from '@switchyard/contracts';
import { ID_PATTERNS } from '@switchyard/domain';
import {
  nextCursorLink,
  RPCS,
  VEHICLE_LIST_VIEWS,
  VEHICLE_PROFILE_PAGE_STATUSES,
  vehicleEntityV1,
  vehicleMetadataResponseV1,
  vehicleProfilePageV1,
  vehiclesPageV1,
} from '@switchyard/messaging';
import { z } from 'zod';
import { ConsumerAuth } from '../auth/auth.guards.js';
import { Principal } from '../auth/principal.decorator.js';
import type { ConsumerPrincipal } from '../auth/principal.js';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../config.js';
import { ErrorBodyDto } from '../dto/error.dto.js';
import { GetVehicleQueryDto, ListVehiclesQueryDto, VEHICLE_EXPANDABLE } from '../dto/vehicle.dto.js';
import { invalid } from '../http/api-error.js';
import { EntityId } from '../http/entity-ids.js';
import { jsonObject, jsonText, raw, type JsonBody } from '../http/json-body.js';
import { ApiZodResponse } from '../openapi/zod-schemas.js';
import { ContextClient } from '../services/context-client.service.js';
import { parseExpand } from '../services/read-query.js';
import { narrowed, StoredReadPager } from '../services/stored-read-pager.js';

const BAD_VEHICLE_ID = 'The vehicleId is not a vcl_ id (`invalid_path`)';

/** The list's `view`; any other value is 400 `invalid_query`. */
function narrowedView(raw: string): (typeof VEHICLE_LIST_VIEWS)[number] {
  const view = VEHICLE_LIST_VIEWS.find((v) => v === raw);
  if (!view) throw invalid('invalid_query', 'query', 'view', 'not_allowed');
  return view;
}

const VEHICLE_ID_PARAM = ApiParam({ name: 'vehicleId', description: 'Vehicle id (`vcl_` + 26 Crockford base32 characters).', schema: { type: 'string', pattern: ID_PATTERNS.vehicle } });

@ApiTags('vehicles')
@Controller('v1/connections/:id/vehicles')
@ApiParam({ name: 'id', description: 'Connection id (uuid).', schema: { type: 'string' } })
export class VehiclesController {
  private readonly pager: StoredReadPager<string, (typeof VEHICLE_EXPANDABLE)[number]>;

  constructor(
    private readonly contexts: ContextClient,
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
  ) {
    const position = z.string().min(1).max(64);
    this.pager = new StoredReadPager(settings, { route: 'GET /v1/connections/{id}/vehicles', position, range: PAGE_RANGES.vehicleProfiles, expandable: VEHICLE_EXPANDABLE });
  }

  @Get()
  @ConsumerAuth('read')
  @ApiOperation({
    operationId: 'listVehicles',
    summary: 'List stored vehicles (core assets or account-bound profiles)',
    description: [
      'The stored vehicles of the connection (no provider contact), ascending vehicle id. Choose the shape with `view`:',
      '`assets` (default) returns `Vehicles` (core assets; continue with `nextCursor`, null on the last page), `profiles` returns a `VehicleProfilePage` (VehicleEntity profiles, at most 100 and at most 4,194,304 bytes per response; continue with `next`, absent on the last page).',
      'Both views carry each vehicle\'s `vcl_` id (`id`), the id `…/vehicles/{vehicleId}`, `/metadata` and the trips filter `vehicleIds` take; the core asset adds it to the spec\'s provider_id, name and vin (decision 0017).',
      "Vehicles hidden by the connection's include/exclude lists or status filter never appear. Pass the cursor back as `cursor` with the same `view`.",
    ].join(' '),
  })
  @ApiZodResponse(200, [vehiclesPageV1, vehicleProfilePageV1], '`Vehicles` for `view=assets`, `VehicleProfilePage` for `view=profiles`.')
  @ApiResponse({
    status: 400,
    description: `Unknown, repeated or malformed parameter, limit outside ${PAGE_RANGES.vehicleProfiles.min}-${PAGE_RANGES.vehicleProfiles.max}, an unknown view or expand value, expand with view=assets (\`invalid_query\`); a cursor that is malformed, tampered, expired, from the other view, another connection or key, or issued before a grant change (\`invalid_cursor\`).`,
    type: ErrorBodyDto,
  })
  async list(@Principal() principal: ConsumerPrincipal, @Query() query: ListVehiclesQueryDto): Promise<JsonBody> {
    const view = narrowedView(query.view ?? 'assets');
    // Refused before the cursor is read, like every other bad parameter.
    if (view === 'assets' && parseExpand(query.expand, VEHICLE_EXPANDABLE).groups) throw invalid('invalid_query', 'query', 'expand', 'not_allowed');
    const { reply, link } = await this.pager.page(principal, query, { view }, (frame) => this.contexts.request(RPCS.directory.vehicles.list, { connectionId: principal.connectionId, ...frame, view }));
    if (view === 'assets') return jsonObject(vehiclesPageV1, { vehicles: raw(reply.body), ...nextCursorLink(link.next) });
    const { dataset } = reply.meta;
    return jsonObject(vehicleProfilePageV1, {
      status: narrowed(VEHICLE_PROFILE_PAGE_STATUSES, dataset.status),
      retrieval: 'stored',
      results: raw(reply.body),
      ...link,
      publishedAt: dataset.publishedAt,
      errorCode: dataset.errorCode,
      selection: 'approved_source_vehicle_ids',
      completeness: 'not_established',
    });
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
  @ApiZodResponse(200, vehicleEntityV1)
  @ApiResponse({ status: 400, description: `${BAD_VEHICLE_ID}; an unknown parameter, scope or expand value (\`invalid_query\`).`, type: ErrorBodyDto })
  async get(@Principal() principal: ConsumerPrincipal, @EntityId('vehicle', 'vehicleId') vehicleId: string, @Query() query: GetVehicleQueryDto): Promise<JsonBody> {
    if (query.scope !== undefined && query.scope !== 'directory') throw invalid('invalid_query', 'query', 'scope', 'not_allowed');
    const expand = parseExpand(query.expand, VEHICLE_EXPANDABLE);
    return jsonText(vehicleEntityV1, (await this.contexts.request(RPCS.directory.vehicles.get, { connectionId: principal.connectionId, vehicleId, expand })).body);
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
  @ApiZodResponse(200, vehicleMetadataResponseV1)
  @ApiResponse({ status: 400, description: `${BAD_VEHICLE_ID}; an unknown parameter (\`invalid_query\`).`, type: ErrorBodyDto })
  async metadata(@Principal() principal: ConsumerPrincipal, @EntityId('vehicle', 'vehicleId') vehicleId: string): Promise<JsonBody> {
    // No query parameters: UndeclaredQueryInterceptor refuses any.
    return jsonText(vehicleMetadataResponseV1, (await this.contexts.request(RPCS.directory.vehicles.metadata, { connectionId: principal.connectionId, vehicleId })).body);
  }
}
