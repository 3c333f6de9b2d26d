/**
 * The telemetry routes' queries (spec 2.10, 4.2 locations, 4.4 history): what the gateway validates
 * on input. Telemetry, FleetLocations and History are the zod schemas of libs/messaging
 * (telemetry-read.v1.ts), not written again here. The telemetry route takes no query parameter.
 */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { HISTORY_PAGE, HISTORY_WINDOW_MAX_DAYS, LOCATIONS_PAGE } from '@switchyard/contracts';
import { TELEMETRY_METRICS } from '@switchyard/domain';
import { IsString, ValidateIf } from 'class-validator';

export class ListLocationsQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: LOCATIONS_PAGE.min, maximum: LOCATIONS_PAGE.max, default: LOCATIONS_PAGE.default, description: 'Page size; a page may hold fewer to stay under the response byte limit.' })
  @ValidateIf((o: ListLocationsQueryDto) => o.limit !== undefined)
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ description: 'The `nextCursor` of the previous page.' })
  @ValidateIf((o: ListLocationsQueryDto) => o.cursor !== undefined)
  @IsString()
  cursor?: string;
}

export class HistoryQueryDto {
  @ApiProperty({ enum: [...TELEMETRY_METRICS], description: 'The metric to read. Missing or any other value is 400 `unknown_metric`.' })
  @ValidateIf((o: HistoryQueryDto) => o.metric !== undefined)
  @IsString()
  metric?: string;

  @ApiProperty({ type: 'string', format: 'date-time', description: 'Window start (inclusive), RFC 3339 with `T` and `Z` or an offset.' })
  @ValidateIf((o: HistoryQueryDto) => o.startTime !== undefined)
  @IsString()
  startTime?: string;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    description: `Window end (exclusive). After \`startTime\` (else 400 \`reversed_window\`), at most ${HISTORY_WINDOW_MAX_DAYS} days after it (else 400 \`window_too_long\`).`,
  })
  @ValidateIf((o: HistoryQueryDto) => o.endTime !== undefined)
  @IsString()
  endTime?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: HISTORY_PAGE.min,
    maximum: HISTORY_PAGE.max,
    default: HISTORY_PAGE.default,
    description: 'Readings per page; a page may hold fewer to stay under the response byte limit.',
  })
  @ValidateIf((o: HistoryQueryDto) => o.limit !== undefined)
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ description: 'The `nextCursor` of the previous page, with the same metric, startTime and endTime (else 400 `cursor_parameters_changed`).' })
  @ValidateIf((o: HistoryQueryDto) => o.cursor !== undefined)
  @IsString()
  cursor?: string;
}
