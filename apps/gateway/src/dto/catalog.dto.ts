/**
 * Catalog (spec 2.12): fields, units, operations and limits. Every constant is pinned in the
 * schema with `enum: [value]`, so the OpenAPI document states the same numbers the spec does and
 * a response that drifts from them fails validation in the tests. Where the spec types a field
 * only as "string" and the vocabulary is ours (releaseStatus, the endpoint entries), the enum and
 * its meaning are stated here.
 */
import { ApiProperty, ApiSchema, type ApiPropertyOptions } from '@nestjs/swagger';
import { RELEASE_STATUSES } from '@switchyard/contracts';

/** A free-form object whose inner shape the spec leaves open ("not shown"). */
const openObject = (description: string, required = true): ApiPropertyOptions => ({ type: 'object', additionalProperties: true, selfRequired: required, description }) satisfies ApiPropertyOptions;
const strings: ApiPropertyOptions = { type: [String] };
/** Per-area release status (spec 9 "a releaseStatus per area"; the spec types it as a string, the words are ours). */
const areaRelease: ApiPropertyOptions = {
  enum: RELEASE_STATUSES,
  description:
    'What this deployment serves of the area: `preview` — every operation of the area is served, under the preview contract; `partial` — some are (each entry of `endpoints` says which); `not_released` — none yet: its routes answer 404 and `roadmap` lists them.',
};

/** A telemetry field's support per provider (the provider's capability `telemetry.<name>`). */
const providerSupport: ApiPropertyOptions = {
  type: 'object',
  additionalProperties: { type: 'string', enum: ['supported', 'conditional', 'unsupported'] },
  selfRequired: false,
  description: 'Support per provider (its capability `telemetry.<name>`): `conditional` depends on the vehicle or account; `unsupported` is never reported by that provider (the metric is then absent from its Telemetry).',
} satisfies ApiPropertyOptions;

export class CatalogFieldDto {
  @ApiProperty({ required: false }) name?: string;
  @ApiProperty({ required: false }) label?: string;
  @ApiProperty({ required: false }) unit?: string;
  @ApiProperty({ required: false }) kind?: string;
  @ApiProperty({ required: false, type: 'integer' }) freshnessSeconds?: number;
  @ApiProperty({ required: false }) valueKey?: string;
  @ApiProperty({
    required: false,
    enum: ['core', 'extended_opt_in'],
    description: '`core`: always in Telemetry (status may be `missing`). `extended_opt_in`: in Telemetry only with the connection\'s `extendedTelemetry` opt-in (and, for `engineHours`, the selected signal) and when the provider supports it.',
  })
  availability?: string;
  @ApiProperty(providerSupport)
  providers?: Record<string, string>;
}

export class CatalogEnrichmentDto {
  @ApiProperty(areaRelease) releaseStatus!: string;
  @ApiProperty() collection!: string;
  @ApiProperty() enablement!: string;
  @ApiProperty() measurements!: string;
  @ApiProperty() images!: string;
  @ApiProperty({ type: 'array', items: { type: 'string', enum: ['identity', 'images', 'specifications', 'build'] }, uniqueItems: true })
  products!: string[];
}

export class CatalogDriverDirectoryDto {
  @ApiProperty(areaRelease) releaseStatus!: string;
  @ApiProperty() authorization!: string;
  @ApiProperty() retrieval!: string;
  @ApiProperty() identity!: string;
  @ApiProperty() modification!: string;
  @ApiProperty() groupRelations!: string;
  @ApiProperty() membershipCapture!: string;
  @ApiProperty(strings) gaps!: string[];
}

class TripUnitsDto {
  @ApiProperty({ enum: ['kilometers'] }) distance!: 'kilometers';
  @ApiProperty({ enum: ['milliseconds'] }) duration!: 'milliseconds';
}

export class CatalogTripHistoryDto {
  @ApiProperty(areaRelease) releaseStatus!: string;
  @ApiProperty() authorization!: string;
  @ApiProperty() coverage!: string;
  @ApiProperty({ enum: ['stored'] }) retrieval!: 'stored';
  @ApiProperty({ type: TripUnitsDto }) units!: TripUnitsDto;
  @ApiProperty({ type: 'integer', enum: [100] }) maxPageSize!: 100;
  @ApiProperty({ type: 'integer', enum: [50] }) maxFilterIds!: 50;
  @ApiProperty({ type: 'integer', enum: [4194304] }) responseByteLimit!: 4194304;
  @ApiProperty(strings) gaps!: string[];
}

export class CatalogVehicleProfilesDto {
  @ApiProperty(areaRelease) releaseStatus!: string;
  @ApiProperty() authorization!: string;
  @ApiProperty() query!: string;
  @ApiProperty() visibility!: string;
  @ApiProperty() groupRelationships!: string;
  @ApiProperty({ enum: ['stored'] }) retrieval!: 'stored';
  @ApiProperty({ enum: ['approved_source_vehicle_ids'] }) selection!: 'approved_source_vehicle_ids';
  @ApiProperty({ type: 'integer', enum: [100] }) maxPageSize!: 100;
  @ApiProperty({ type: 'integer', enum: [4194304] }) responseByteLimit!: 4194304;
  @ApiProperty(strings) gaps!: string[];
}

export class CatalogVehicleMetadataDto {
  @ApiProperty(areaRelease) releaseStatus!: string;
  @ApiProperty() enablement!: string;
  @ApiProperty() availability!: string;
  @ApiProperty() interpretation!: string;
  @ApiProperty(strings) fields!: string[];
}

export class CatalogGroupInventoryDto {
  @ApiProperty(areaRelease) releaseStatus!: string;
  @ApiProperty() enablement!: string;
  @ApiProperty({ enum: ['explicit_approved_ids'] }) selection!: string;
  @ApiProperty({ type: 'integer', enum: [100] }) maxGroupIds!: 100;
  @ApiProperty({ enum: ['approved_groups_only'] }) parentResolution!: string;
}

export class CatalogGroupDirectoryDto {
  @ApiProperty(areaRelease) releaseStatus!: string;
  @ApiProperty() enablement!: string;
  @ApiProperty() query!: string;
  @ApiProperty() identity!: string;
  @ApiProperty() pagination!: string;
  @ApiProperty() relations!: string;
  @ApiProperty({ enum: ['not_transactional'] }) consistency!: 'not_transactional';
  @ApiProperty({ enum: ['none'] }) deletionEvidence!: 'none';
  @ApiProperty({ type: 'integer', enum: [50000] }) maxRows!: 50000;
  @ApiProperty({ type: 'integer', enum: [100000] }) maxReferences!: 100000;
  @ApiProperty({ type: 'integer', enum: [67108864] }) projectedByteLimit!: 67108864;
  @ApiProperty({ type: 'integer', enum: [4194304] }) responseByteLimit!: 4194304;
  @ApiProperty(strings) gaps!: string[];
}

@ApiSchema({ description: 'The catalog: normalized fields with units and freshness, operations, per-area release status and the limits of spec section 8.' })
export class CatalogDto {
  @ApiProperty({ example: 'v1' }) apiVersion!: string;
  @ApiProperty({ example: '1.16.0' }) catalogVersion!: string;
  @ApiProperty({ required: false, enum: ['preview'], description: 'The contract as a whole is a preview (spec 9). What this deployment serves is said per area and per endpoint.' }) releaseStatus?: string;
  @ApiProperty({ required: false, type: 'string', format: 'date' }) reviewedAt?: string;
  @ApiProperty({ type: [CatalogFieldDto] }) fields!: CatalogFieldDto[];
  @ApiProperty(
    openObject(
      [
        'Every operation of the contract, keyed `METHOD /path`, each with method, path, area (the feature it belongs to),',
        'auth (`consumer_key`: a `pt_` consumer key with a grant on the connection; `application_secret_and_connection_token`: an `sk_` application secret and the Connection-Token header),',
        'retrieval (`stored`: no provider contact; `provider_on_demand`; `control`: workflow state; `static`) and releaseStatus:',
        '`preview` — served by this deployment, under the preview contract; `not_released` — part of the contract, not served by this deployment yet (404).',
      ].join(' '),
    ),
  )
  endpoints!: Record<string, unknown>;
  @ApiProperty(
    openObject('Capabilities not yet released, by area: each area with operations this deployment does not serve yet maps to `<releaseStatus>: <operations>`; the other entries name contract features not offered.'),
  )
  roadmap!: Record<string, unknown>;
  @ApiProperty({ type: CatalogEnrichmentDto }) enrichment!: CatalogEnrichmentDto;
  @ApiProperty({ type: CatalogDriverDirectoryDto }) driverDirectory!: CatalogDriverDirectoryDto;
  @ApiProperty({ type: CatalogTripHistoryDto }) tripHistory!: CatalogTripHistoryDto;
  @ApiProperty({ type: CatalogVehicleProfilesDto }) vehicleProfiles!: CatalogVehicleProfilesDto;
  @ApiProperty({ type: CatalogVehicleMetadataDto }) vehicleMetadata!: CatalogVehicleMetadataDto;
  @ApiProperty({ type: CatalogGroupInventoryDto }) groupInventory!: CatalogGroupInventoryDto;
  @ApiProperty({ type: CatalogGroupDirectoryDto }) groupDirectory!: CatalogGroupDirectoryDto;
  @ApiProperty(openObject('Fault model and feed facts, with the releaseStatus of the fault routes (same words as the area entries).', false)) faults?: Record<string, unknown>;
  @ApiProperty(openObject('The limits of spec section 8.', false)) limits?: Record<string, unknown>;
}
