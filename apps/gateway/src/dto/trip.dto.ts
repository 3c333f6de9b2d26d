/**
 * The trips routes' query (spec 2.7, 4.2): what the gateway validates on input. The Trip and TripPage
 * responses are the zod schemas of libs/messaging (directory-read-trips.v1.ts), not written again here.
 */
import { ApiPropertyOptional } from '@nestjs/swagger';
import { PAGE_RANGES, TRIP_FILTER_IDS } from '@switchyard/contracts';
import { IsString, ValidateIf } from 'class-validator';
import { expandParameter } from './read.dto.js';

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
