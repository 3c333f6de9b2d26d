/**
 * The vehicle routes' queries (spec 2.3, 2.6): what the gateway validates on input. The list returns
 * `Vehicles` (core assets, `view=assets`, the default) or `VehicleProfilePage` (`view=profiles`); those,
 * VehicleEntity and the metadata response are the zod schemas of libs/messaging
 * (directory-read-vehicles.v1.ts), not written again here.
 */
import { ApiPropertyOptional } from '@nestjs/swagger';
import { PAGE_RANGES } from '@switchyard/contracts';
import { IsString, ValidateIf } from 'class-validator';
import { expandParameter } from './read.dto.js';

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
      'Which shape to return: `assets` (default) returns `Vehicles` (core assets: the `vcl_` id every other vehicle route takes, provider_id, name, vin; continue with `nextCursor`, null on the last page); `profiles` returns a `VehicleProfilePage` (account-bound VehicleEntity profiles with status and publication; continue with `next`, absent on the last page). A cursor belongs to the view that issued it.',
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
