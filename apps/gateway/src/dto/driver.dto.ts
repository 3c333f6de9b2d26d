/**
 * The drivers routes' queries (spec 2.5): what the gateway validates on input. Driver,
 * DriverDirectory and DriverResult are the zod schemas of libs/messaging
 * (directory-read-drivers.v1.ts), not written again here.
 */
import { ApiPropertyOptional } from '@nestjs/swagger';
import { PAGE_RANGES } from '@switchyard/contracts';
import { IsString, ValidateIf } from 'class-validator';
import { expandParameter } from './read.dto.js';

/** What `expand` may name on the drivers routes. */
export const DRIVER_EXPANDABLE = ['groups'] as const;

export class DriverExpandQueryDto {
  @ApiPropertyOptional(expandParameter(DRIVER_EXPANDABLE, '`groups`: each group id of `groups` becomes the stored Group.'))
  @ValidateIf((o: DriverExpandQueryDto) => o.expand !== undefined)
  @IsString()
  expand?: string;
}

export class ListDriversQueryDto extends DriverExpandQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: PAGE_RANGES.drivers.min, maximum: PAGE_RANGES.drivers.max, default: PAGE_RANGES.drivers.default, description: 'Page size.' })
  @ValidateIf((o: ListDriversQueryDto) => o.limit !== undefined)
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ description: 'The `next` value of the previous page.' })
  @ValidateIf((o: ListDriversQueryDto) => o.cursor !== undefined)
  @IsString()
  cursor?: string;
}
