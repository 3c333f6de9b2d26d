/**
 * The usage report routes' queries (spec 2.10, 4.4; definitions docs/metrics.md): what the gateway
 * validates on input. Counter, CounterReport, Utilization and FleetUtilization are the zod schemas of
 * libs/messaging (usage-report.v1.ts), not written again here.
 */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { FLEET_UTILIZATION_PAGE, USAGE_HOURLY_MAX_DAYS, USAGE_WINDOW_MAX_DAYS } from '@switchyard/contracts';
import { BUCKET_SIZES } from '@switchyard/domain';
import { IsString, ValidateIf } from 'class-validator';

export class UsageQueryDto {
  @ApiProperty({ type: 'string', format: 'date-time', description: 'Window start (inclusive), RFC 3339 with `Z` or an offset.' })
  @ValidateIf((o: UsageQueryDto) => o.startTime !== undefined)
  @IsString()
  startTime?: string;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    description: `Window end (exclusive). After \`startTime\` (else 400 \`reversed_window\`), at most ${USAGE_WINDOW_MAX_DAYS} days after it (else 400 \`window_too_long\`).`,
  })
  @ValidateIf((o: UsageQueryDto) => o.endTime !== undefined)
  @IsString()
  endTime?: string;

  @ApiPropertyOptional({
    enum: [...BUCKET_SIZES],
    description: `Ask for \`intervals\`: the window cut at local hour or local day edges of \`timeZone\` (required with it). \`hour\` over at most ${USAGE_HOURLY_MAX_DAYS} days (else 400 \`too_many_intervals\`).`,
  })
  @ValidateIf((o: UsageQueryDto) => o.interval !== undefined)
  @IsString()
  interval?: string;

  @ApiPropertyOptional({ type: 'string', description: 'IANA time zone of the intervals, e.g. `Europe/Berlin` (required with `interval`; else 400 `invalid_time_zone`).' })
  @ValidateIf((o: UsageQueryDto) => o.timeZone !== undefined)
  @IsString()
  timeZone?: string;
}

export class FleetUtilizationQueryDto extends UsageQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: FLEET_UTILIZATION_PAGE.min, maximum: FLEET_UTILIZATION_PAGE.max, default: FLEET_UTILIZATION_PAGE.default, description: 'Vehicles per page.' })
  @ValidateIf((o: FleetUtilizationQueryDto) => o.limit !== undefined)
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ description: 'The `nextCursor` of the previous page, with the same window, interval and timeZone (else 400 `invalid_cursor`).' })
  @ValidateIf((o: FleetUtilizationQueryDto) => o.cursor !== undefined)
  @IsString()
  cursor?: string;
}
