/**
 * The vehicle reads' shapes (spec 2.2, 2.3, 2.6) and queries. VehicleEntity, VehicleProfilePage,
 * the metadata response and its cells allow no extra properties (`@Closed()`); VehicleEntity is
 * ExpandedVehicle (read.dto.ts) whose `groups` items are a group id or, with `expand=groups`, an
 * expanded Group. The list returns `Vehicles` (core assets, `view=assets`, the default) or
 * `VehicleProfilePage` (`view=profiles`): the caller chooses with `view`, the response is oneOf.
 */
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiSchema, getSchemaPath, type ApiPropertyOptions } from '@nestjs/swagger';
import { FUEL_TYPES, PAGE_RANGES, VEHICLE_METADATA_BOUNDS, VEHICLE_METADATA_KEYS, VEHICLE_METADATA_STATUSES } from '@switchyard/contracts';
import { ID_PATTERNS } from '@switchyard/domain';
import { IsString, ValidateIf } from 'class-validator';
import { Closed } from '../openapi/closed.js';
import { GroupDto } from './group.dto.js';
import { DATASET_TIMES, ExpandedVehicleDto, expandParameter, NEXT_CURSOR } from './read.dto.js';

const dateTime = { type: 'string', format: 'date-time' } as const;
const { stringMax, yearMin, yearMax, groupIdMax, groupsMax } = VEHICLE_METADATA_BOUNDS;
const text = { type: 'string', minLength: 1, maxLength: stringMax } as const;

@Closed()
@ApiExtraModels(GroupDto)
@ApiSchema({ description: 'A stored account-bound vehicle profile (spec 2.6).' })
export class VehicleEntityDto extends ExpandedVehicleDto {
  @ApiPropertyOptional({
    type: 'array',
    uniqueItems: true,
    maxItems: groupsMax,
    items: { oneOf: [{ type: 'string', pattern: ID_PATTERNS.group }, { $ref: getSchemaPath(GroupDto) }] },
    description: 'Group ids of the reported memberships; with `expand=groups` each group Switchyard has stored is expanded (a group not stored yet stays an id). Absent when the memberships are unknown (see groupMembership.status).',
  })
  declare groups?: string[];
}

@Closed()
@ApiSchema({ description: 'A core asset (spec 2.6 Vehicle).' })
export class CoreVehicleDto {
  @ApiProperty({ description: "The provider's vehicle id." })
  provider_id!: string;

  @ApiProperty({ description: 'The provider-reported vehicle name; the provider id when the provider reports none (the name is required and has no status).' })
  name!: string;

  @ApiProperty({ type: 'string', nullable: true, description: 'The provider-reported VIN; null when unknown.' })
  vin!: string | null;
}

@Closed()
@ApiSchema({ description: 'Core assets of the connection (`view=assets`), ascending vehicle id; vehicles hidden by the connection visibility rules are absent.' })
export class VehiclesDto {
  @ApiProperty({ type: [CoreVehicleDto], maxItems: PAGE_RANGES.vehicleProfiles.max })
  vehicles!: CoreVehicleDto[];

  @ApiProperty({ ...NEXT_CURSOR('page of vehicles'), nullable: true, description: NEXT_CURSOR('page of vehicles').description.replace('absent on the last page', 'null on the last page') })
  nextCursor!: string | null;
}

@Closed()
@ApiSchema({ description: 'Account-bound vehicle profiles of the connection (`view=profiles`), ascending vehicle id; at most 100 and at most 4,194,304 bytes per response.' })
export class VehicleProfilePageDto {
  @ApiProperty({
    enum: ['pending', 'available', 'degraded'],
    description:
      '`pending`: no vehicles committed for the connection yet. `available`: stored profiles are served (publishedAt tells their age). `degraded`: the newest collection attempt of this dataset (its provider fetch) failed (see errorCode); stored profiles are still served.',
  })
  status!: string;

  @ApiProperty({ enum: ['stored'], description: 'Always `stored`: served from stored data, no provider is contacted.' })
  retrieval!: 'stored';

  @ApiProperty({
    type: [VehicleEntityDto],
    maxItems: PAGE_RANGES.vehicleProfiles.max,
    description: 'Visible vehicles only (hidden ones are absent). A stored vehicle whose status the provider did not report is not a profile (status is required) and appears only in `view=assets`.',
  })
  results!: VehicleEntityDto[];

  @ApiPropertyOptional(NEXT_CURSOR('page of vehicle profiles'))
  next?: string;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: DATASET_TIMES.publishedAt })
  publishedAt!: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: DATASET_TIMES.errorCode })
  errorCode!: string | null;

  @ApiProperty({ enum: ['approved_source_vehicle_ids'], description: 'The profiles are of the vehicles collected for the connection: its approved source vehicle ids.' })
  selection!: 'approved_source_vehicle_ids';

  @ApiProperty({ enum: ['not_established'], description: 'Whether the stored roster is the complete fleet is not established.' })
  completeness!: 'not_established';
}

const VALUE_SCHEMAS: Record<(typeof VEHICLE_METADATA_KEYS)[number], Record<string, unknown>> = {
  make: text,
  model: text,
  year: { type: 'integer', minimum: yearMin, maximum: yearMax },
  status: { type: 'string', enum: ['active', 'inactive'] },
  providerStatus: text,
  fuelType: { type: 'string', enum: FUEL_TYPES },
  sourceFuelType: text,
  createdAt: dateTime,
  updatedAt: dateTime,
  activeFrom: dateTime,
  activeTo: dateTime,
  licensePlate: text,
  licensePlateRegion: text,
  serialNumber: text,
  groups: {
    type: 'array',
    maxItems: groupsMax,
    items: {
      type: 'object',
      properties: { id: { type: 'string', minLength: 1, maxLength: groupIdMax }, name: text },
      required: ['id'],
      additionalProperties: false,
    },
  },
};

const source = { type: 'string', minLength: 1, maxLength: 1024, description: 'Where the value came from (provider field path).' } as const;
const cell = (key: (typeof VEHICLE_METADATA_KEYS)[number]) => ({
  oneOf: [
    { type: 'object', properties: { status: { type: 'string', enum: ['available'] }, value: VALUE_SCHEMAS[key], source }, required: ['status', 'value', 'source'], additionalProperties: false },
    {
      type: 'object',
      properties: { status: { type: 'string', enum: ['missing', 'unsupported', 'invalid'] }, value: { type: 'null' }, source },
      required: ['status', 'value', 'source'],
      additionalProperties: false,
    },
  ],
});

const fieldsSchema: ApiPropertyOptions = {
  type: 'object',
  description:
    'All 15 cells, each `available` with a value or `missing` / `unsupported` / `invalid` with value null. A stored value outside the bounds (length 1-1024, year 1886-2200, the fuel enum, RFC 3339 times, at most 1000 groups) is served as `invalid`.',
  properties: Object.fromEntries(VEHICLE_METADATA_KEYS.map((k) => [k, cell(k)])),
  required: [...VEHICLE_METADATA_KEYS],
  selfRequired: true,
  additionalProperties: false,
};

@Closed()
@ApiSchema({ description: 'Stored vehicle metadata (spec 2.3).' })
export class VehicleMetadataDto {
  @ApiProperty({ type: 'number', enum: [1], description: 'Always 1.' })
  version!: 1;

  @ApiProperty({ enum: ['samsara:vehicles', 'motive:vehicles', 'geotab:Device'], description: 'The provider resource the metadata comes from.' })
  source!: string;

  @ApiProperty(fieldsSchema)
  fields!: Record<string, unknown>;
}

@Closed()
@ApiExtraModels(VehicleMetadataDto)
@ApiSchema({ description: 'Stored metadata of one vehicle (spec 2.3); opt-in `vehicleMetadata`.' })
export class VehicleMetadataResponseDto {
  @ApiProperty({ pattern: ID_PATTERNS.vehicle })
  vehicleId!: string;

  @ApiProperty({
    enum: VEHICLE_METADATA_STATUSES,
    description:
      '`disabled`: the connection has not opted in to `vehicleMetadata` (data null). `pending`: no complete vehicle roster pass has listed this vehicle yet — it is not stored while no pass completed, or only an unfinished pass has carried it (data null); it enters the roster when that pass completes. `not_in_current_roster`: an earlier complete roster pass listed the vehicle, the last complete pass did not; its last known metadata is served. `stale`: the vehicle roster was fetched more than 15 minutes (3 scheduler windows) ago. `available` otherwise.',
  })
  status!: string;

  @ApiProperty({ oneOf: [{ $ref: getSchemaPath(VehicleMetadataDto) }, { type: 'null' }] })
  data!: VehicleMetadataDto | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When the stored version of the vehicle was fetched from the provider; null without data.' })
  fetchedAt!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'The final-page provider fetch of the newest complete roster pass that listed the vehicle; null without data.' })
  rosterSeenAt!: string | null;

  @ApiProperty({ enum: ['stored'], description: 'Always `stored`: no provider is contacted.' })
  retrieval!: 'stored';
}

/** What `expand` may name on the vehicle routes. */
export const VEHICLE_EXPANDABLE = ['groups'] as const;
const EXPAND_GROUPS = '`groups`: each stored group of the vehicle as a Group instead of its id.';

export class GetVehicleQueryDto {
  @ApiPropertyOptional({
    enum: ['directory'],
    default: 'directory',
    description: 'Which store answers: `directory`, the stored vehicle directory (the only scope in v1; no provider is contacted). Any other value is 400 `invalid_query`.',
  })
  @ValidateIf((o: GetVehicleQueryDto) => o.scope !== undefined)
  @IsString()
  scope?: string;

  @ApiPropertyOptional(expandParameter(VEHICLE_EXPANDABLE, EXPAND_GROUPS))
  @ValidateIf((o: GetVehicleQueryDto) => o.expand !== undefined)
  @IsString()
  expand?: string;
}

export class ListVehiclesQueryDto {
  @ApiPropertyOptional({
    enum: ['assets', 'profiles'],
    default: 'assets',
    description:
      'Which shape to return: `assets` (default) returns `Vehicles` (core assets: provider_id, name, vin; continue with `nextCursor`); `profiles` returns a `VehicleProfilePage` (account-bound VehicleEntity profiles with status and publication; continue with `next`). A cursor belongs to the view that issued it.',
  })
  @ValidateIf((o: ListVehiclesQueryDto) => o.view !== undefined)
  @IsString()
  view?: string;

  @ApiPropertyOptional(expandParameter(VEHICLE_EXPANDABLE, `${EXPAND_GROUPS} Only with \`view=profiles\`.`))
  @ValidateIf((o: ListVehiclesQueryDto) => o.expand !== undefined)
  @IsString()
  expand?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: PAGE_RANGES.vehicleProfiles.min,
    maximum: PAGE_RANGES.vehicleProfiles.max,
    default: PAGE_RANGES.vehicleProfiles.default,
    description: 'Page size (both views); a profile page may hold fewer to stay under the response byte limit.',
  })
  @ValidateIf((o: ListVehiclesQueryDto) => o.limit !== undefined)
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ description: 'The `nextCursor` (assets) or `next` (profiles) value of the previous page.' })
  @ValidateIf((o: ListVehiclesQueryDto) => o.cursor !== undefined)
  @IsString()
  cursor?: string;
}
