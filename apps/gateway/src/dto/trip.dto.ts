/**
 * Trip, TripDriver and TripPage (spec 2.7) and the trips query. Trip and TripDriver allow no extra
 * properties; `vehicle` is a vcl_ id or an ExpandedVehicle and `driver` a drv_ id or a TripDriver
 * (`expand=vehicle,driver`). The distance basis is documented, not a field (the Trip has none).
 */
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiSchema, getSchemaPath, type ApiPropertyOptions } from '@nestjs/swagger';
import { DRIVER_SOURCE_ID_PATTERN, PAGE_RANGES, TRIP_FILTER_IDS } from '@switchyard/contracts';
import { ID_PATTERNS, PROVIDERS } from '@switchyard/domain';
import { IsString, ValidateIf } from 'class-validator';
import { Closed } from '../openapi/closed.js';
import { DATASET_TIMES, ExpandedVehicleDto, expandParameter, NEXT_CURSOR } from './read.dto.js';

const dateTime = { type: 'string', format: 'date-time' } as const;
const latLon = (what: string): ApiPropertyOptions => ({
    type: 'object',
    description: `${what}; absent when the provider did not report it.`,
    properties: { latitude: { type: 'number', minimum: -90, maximum: 90 }, longitude: { type: 'number', minimum: -180, maximum: 180 } },
  required: ['latitude', 'longitude'],
  // Optional property whose object has required members: `required` names the members, selfRequired the property.
  selfRequired: false,
  additionalProperties: false,
});
const addedModified: ApiPropertyOptions = {
  type: 'object',
  properties: {
    addedAt: { ...dateTime, description: 'Fetch time of the first batch that carried the record.' },
    modifiedAt: { ...dateTime, description: 'Fetch time of the last batch that changed it.' },
  },
  required: ['addedAt', 'modifiedAt'],
  selfRequired: true,
  additionalProperties: false,
};

@Closed()
@ApiSchema({ description: 'The driver of a trip (spec 2.7): Driver identity fields; email, phone and license.state are plain strings here.' })
export class TripDriverDto {
  @ApiProperty({ pattern: ID_PATTERNS.driver })
  id!: string;

  @ApiProperty({ pattern: DRIVER_SOURCE_ID_PATTERN })
  sourceId!: string;

  @ApiProperty({ enum: PROVIDERS })
  provider!: string;

  @ApiProperty({ enum: ['active', 'inactive'] })
  status!: string;

  @ApiPropertyOptional() firstName?: string;
  @ApiPropertyOptional() middleName?: string;
  @ApiPropertyOptional() lastName?: string;
  @ApiPropertyOptional() displayName?: string;
  @ApiPropertyOptional() email?: string;
  @ApiPropertyOptional() phone?: string;
  @ApiPropertyOptional() username?: string;

  @ApiPropertyOptional(dateTime)
  createdAt?: string;

  @ApiPropertyOptional(dateTime)
  updatedAt?: string;

  @ApiPropertyOptional({ type: 'object', properties: { number: { type: 'string' }, state: { type: 'string' } }, additionalProperties: false })
  license?: { number?: string; state?: string };

  @ApiProperty(addedModified)
  metadata!: { addedAt: string; modifiedAt: string };
}

@Closed()
@ApiExtraModels(ExpandedVehicleDto, TripDriverDto)
@ApiSchema({ description: 'One completed trip (spec 2.7).' })
export class TripDto {
  @ApiProperty({ pattern: ID_PATTERNS.trip })
  id!: string;

  @ApiProperty({ description: "The provider's trip id (Samsara has none: vehicle id and start time)." })
  sourceId!: string;

  @ApiProperty({ enum: PROVIDERS })
  provider!: string;

  @ApiProperty({
    oneOf: [{ type: 'string', pattern: ID_PATTERNS.vehicle }, { $ref: getSchemaPath(ExpandedVehicleDto) }],
    description: 'The vehicle id, or with `expand=vehicle` the stored vehicle (the id when the vehicle is not stored yet or has no known status).',
  })
  vehicle!: string | ExpandedVehicleDto;

  @ApiPropertyOptional({
    oneOf: [{ type: 'string', pattern: ID_PATTERNS.driver }, { $ref: getSchemaPath(TripDriverDto) }],
    description: 'The driver id, or with `expand=driver` the stored driver (the id when not stored yet). Absent when the provider did not identify a driver.',
  })
  driver?: string | TripDriverDto;

  @ApiProperty(dateTime)
  startedAt!: string;

  @ApiProperty(dateTime)
  endedAt!: string;

  @ApiProperty({ type: 'number', minimum: 0, description: 'Milliseconds of source-reported driving duration or elapsed motion interval.' })
  duration!: number;

  @ApiPropertyOptional({
    type: 'number',
    minimum: 0,
    description:
      'Kilometers; absent when missing or invalid (never 0 for unknown). GPS distance and odometer difference are distinct bases and are never mixed: each trip records its basis in the store (Samsara: odometer difference when both odometer readings are valid, else GPS distance; Geotab: the distance Geotab reports, else odometer difference; Motive: odometer difference (end minus start kilometers)). The Trip schema allows no extra property, so the basis is not part of the response.',
  })
  distance?: number;

  @ApiProperty(latLon('Where the trip started'))
  startLocation?: { latitude: number; longitude: number };

  @ApiProperty(latLon('Where the trip ended'))
  endLocation?: { latitude: number; longitude: number };

  @ApiProperty(addedModified)
  metadata!: { addedAt: string; modifiedAt: string };
}

@Closed()
@ApiSchema({ description: 'A page of stored completed trips of the connection, ascending startedAt then id; at most 100 and at most 4,194,304 bytes per response.' })
export class TripPageDto {
  @ApiProperty({
    enum: ['pending', 'available', 'degraded'],
    description:
      '`pending`: no trips committed for the connection yet. `available`: stored trips are served (publishedAt tells their age). `degraded`: the newest collection attempt of this dataset (its provider fetch) failed (see errorCode); stored trips are still served.',
  })
  status!: string;

  @ApiProperty({ enum: ['stored'], description: 'Always `stored`: served from stored data, no provider is contacted.' })
  retrieval!: 'stored';

  @ApiProperty({ type: [TripDto], maxItems: 100 })
  results!: TripDto[];

  @ApiPropertyOptional(NEXT_CURSOR('page of trips'))
  next?: string;

  @ApiProperty({
    type: 'object',
    properties: {
      completedUnits: { type: 'integer', minimum: 0, description: 'Trip collection units (one vehicle × one day of a sync) whose final page has been committed for the connection.' },
      selection: { type: 'string', enum: ['completed_trips_started_in_window'] },
      completeness: { type: 'string', enum: ['not_established'] },
    },
    required: ['completedUnits', 'selection', 'completeness'],
    selfRequired: true,
    additionalProperties: false,
  })
  coverage!: { completedUnits: number; selection: string; completeness: string };

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: DATASET_TIMES.publishedAt })
  publishedAt!: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: DATASET_TIMES.errorCode })
  errorCode!: string | null;
}

const ids = (kind: string, pattern: string) =>
  `Comma-separated ${kind} ids (\`${pattern}\`), at most ${TRIP_FILTER_IDS}; one parameter, not repeated. Only trips of these ${kind}s.`;

/** What `expand` may name on the trips routes. */
export const TRIP_EXPANDABLE = ['vehicle', 'driver'] as const;

export class TripExpandQueryDto {
  @ApiPropertyOptional(expandParameter(TRIP_EXPANDABLE, 'References to expand, comma-separated: `vehicle` (ExpandedVehicle) and/or `driver` (TripDriver), e.g. `vehicle,driver`.'))
  @ValidateIf((o: TripExpandQueryDto) => o.expand !== undefined)
  @IsString()
  expand?: string;
}

export class ListTripsQueryDto extends TripExpandQueryDto {
  @ApiPropertyOptional({ type: 'string', format: 'date-time', description: 'Only trips with startedAt ≥ from (inclusive).' })
  @ValidateIf((o: ListTripsQueryDto) => o.from !== undefined)
  @IsString()
  from?: string;

  @ApiPropertyOptional({ type: 'string', format: 'date-time', description: 'Only trips with startedAt < to (exclusive); must be after from.' })
  @ValidateIf((o: ListTripsQueryDto) => o.to !== undefined)
  @IsString()
  to?: string;

  @ApiPropertyOptional({ description: ids('vehicle', 'vcl_…') })
  @ValidateIf((o: ListTripsQueryDto) => o.vehicleIds !== undefined)
  @IsString()
  vehicleIds?: string;

  @ApiPropertyOptional({ description: ids('driver', 'drv_…') })
  @ValidateIf((o: ListTripsQueryDto) => o.driverIds !== undefined)
  @IsString()
  driverIds?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: PAGE_RANGES.trips.min, maximum: PAGE_RANGES.trips.max, default: PAGE_RANGES.trips.default, description: 'Page size; a page may hold fewer trips to stay under the response byte limit.' })
  @ValidateIf((o: ListTripsQueryDto) => o.limit !== undefined)
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ description: 'The `next` value of the previous page.' })
  @ValidateIf((o: ListTripsQueryDto) => o.cursor !== undefined)
  @IsString()
  cursor?: string;
}
