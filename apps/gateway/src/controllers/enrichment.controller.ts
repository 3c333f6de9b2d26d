/**
 * GET /v1/connections/{id}/vehicles/{vehicleId}/profile (VehicleProfile) and …/identity, …/images,
 * …/specifications, …/build (EnrichmentSection) — spec 2.4, 4.2. The enrichment context answers
 * `enrichment.read.profile` from its own cache (docs/enrichment.md); a product's section is that
 * product's value of the profile with the vehicle id, VIN and product.
 * Decisions:
 * - authorization and visibility as the other vehicle reads: the key's `read` grant on the
 *   connection (else 404); `vcl_` ids only (400 `invalid_path`); a vehicle the enrichment context
 *   has not learned from the directory, one of another connection or one hidden by the
 *   connection's visibility rules is 404 `not_found`;
 * - no query parameters (UndeclaredQueryInterceptor refuses any with 400 `invalid_query`);
 * - each product has its own status; the read never waits on the vendor or the decoder.
 */
import { applyDecorators, Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ID_PATTERNS } from '@switchyard/domain';
import { ENRICHMENT_STATUS_TEXT, enrichmentSectionV1, RPCS, vehicleProfileV1, type EnrichmentProduct } from '@switchyard/messaging';
import { ConsumerAuth } from '../auth/auth.guards.js';
import { Principal } from '../auth/principal.decorator.js';
import type { ConsumerPrincipal } from '../auth/principal.js';
import { ErrorBodyDto } from '../dto/error.dto.js';
import { EntityId } from '../http/entity-ids.js';
import { jsonText, type JsonBody } from '../http/json-body.js';
import { ApiZodResponse } from '../openapi/zod-schemas.js';
import { ContextClient } from '../services/context-client.service.js';

const NOT_FOUND =
  "A vehicle the directory has not stored (or whose VIN the enrichment context has not learned yet), one of another connection, or one hidden by the connection's include/exclude lists or status filter is 404 `not_found`.";
const SOURCES =
  'Identity is decoded offline from the VIN with NHTSA vPIC data (check digit, model year with its 30-year cycle, make, model and what vPIC knows); images, specifications and build come from the enrichment vendor, cached per VIN. Served from the cache: no read waits on the vendor.';

const route = (operationId: string, summary: string, what: string, schema: typeof vehicleProfileV1 | typeof enrichmentSectionV1) =>
  applyDecorators(
    ConsumerAuth('read'),
    ApiOperation({ operationId, summary, description: [what, SOURCES, `Statuses: ${ENRICHMENT_STATUS_TEXT}`, NOT_FOUND].join(' ') }),
    ApiParam({ name: 'vehicleId', description: 'Vehicle id (`vcl_` + 26 Crockford base32 characters).', schema: { type: 'string', pattern: ID_PATTERNS.vehicle } }),
    ApiZodResponse(200, schema),
    ApiResponse({ status: 400, description: 'The vehicleId is not a vcl_ id (`invalid_path`); any query parameter (`invalid_query`).', type: ErrorBodyDto }),
  );

@ApiTags('enrichment')
@Controller('v1/connections/:id/vehicles/:vehicleId')
@ApiParam({ name: 'id', description: 'Connection id (uuid).', schema: { type: 'string' } })
export class EnrichmentController {
  constructor(private readonly contexts: ContextClient) {}

  /** The profile, or with `product` its section, as the JSON text the enrichment context rendered. */
  private async profileOf(principal: ConsumerPrincipal, vehicleId: string, product?: EnrichmentProduct): Promise<JsonBody> {
    const { body } = await this.contexts.request(RPCS.enrichment.profile, { connectionId: principal.connectionId, vehicleId, ...(product ? { product } : {}) });
    return jsonText(product ? enrichmentSectionV1 : vehicleProfileV1, body);
  }

  private section(principal: ConsumerPrincipal, vehicleId: string, product: EnrichmentProduct): Promise<JsonBody> {
    return this.profileOf(principal, vehicleId, product);
  }

  @Get('profile')
  @route('getVehicleProfile', 'Read the enrichment profile of one vehicle', 'The four enrichment products of the vehicle (identity, images, specifications, build), each an EnrichmentValue with its own status.', vehicleProfileV1)
  profile(@Principal() principal: ConsumerPrincipal, @EntityId('vehicle', 'vehicleId') vehicleId: string): Promise<JsonBody> {
    return this.profileOf(principal, vehicleId);
  }

  @Get('identity')
  @route('getVehicleIdentity', 'Read the VIN identity of one vehicle', 'The identity product (VehicleIdentity) as an EnrichmentSection.', enrichmentSectionV1)
  identity(@Principal() principal: ConsumerPrincipal, @EntityId('vehicle', 'vehicleId') vehicleId: string): Promise<JsonBody> {
    return this.section(principal, vehicleId, 'identity');
  }

  @Get('images')
  @route('getVehicleImages', 'Read the listing images of one vehicle', 'The images product (VehicleImages) as an EnrichmentSection.', enrichmentSectionV1)
  images(@Principal() principal: ConsumerPrincipal, @EntityId('vehicle', 'vehicleId') vehicleId: string): Promise<JsonBody> {
    return this.section(principal, vehicleId, 'images');
  }

  @Get('specifications')
  @route('getVehicleSpecifications', 'Read the specifications of one vehicle', 'The specifications product (VehicleSpecifications, measurements as the vendor reports them: text with units) as an EnrichmentSection.', enrichmentSectionV1)
  specifications(@Principal() principal: ConsumerPrincipal, @EntityId('vehicle', 'vehicleId') vehicleId: string): Promise<JsonBody> {
    return this.section(principal, vehicleId, 'specifications');
  }

  @Get('build')
  @route('getVehicleBuild', 'Read the build sheet of one vehicle', 'The build product (VehicleBuild) as an EnrichmentSection.', enrichmentSectionV1)
  build(@Principal() principal: ConsumerPrincipal, @EntityId('vehicle', 'vehicleId') vehicleId: string): Promise<JsonBody> {
    return this.section(principal, vehicleId, 'build');
  }
}
