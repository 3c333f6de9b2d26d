/**
 * The fault routes' query (spec 2.9, 4.4): what the gateway validates on input. The Fault, Faults,
 * FaultEvent and FaultEvents responses are the zod schemas of libs/messaging (fault-read.v1.ts),
 * not written again here.
 */
import { ApiPropertyOptional } from '@nestjs/swagger';
import { FAULT_EVENTS_PAGE, FAULTS_PAGE } from '@switchyard/contracts';
import { IsString, ValidateIf } from 'class-validator';

export class ListFaultsQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: FAULTS_PAGE.min, maximum: FAULTS_PAGE.max, default: FAULTS_PAGE.default, description: 'Page size.' })
  @ValidateIf((o: ListFaultsQueryDto) => o.limit !== undefined)
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ description: 'The `nextCursor` value of the previous page.' })
  @ValidateIf((o: ListFaultsQueryDto) => o.cursor !== undefined)
  @IsString()
  cursor?: string;
}

export class ListFaultEventsQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: FAULT_EVENTS_PAGE.min, maximum: FAULT_EVENTS_PAGE.max, default: FAULT_EVENTS_PAGE.default, description: 'Most events in one page.' })
  @ValidateIf((o: ListFaultEventsQueryDto) => o.limit !== undefined)
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ description: 'A `nextCursor` of an earlier page (durable: it does not expire, store it). Absent: from the oldest retained event.' })
  @ValidateIf((o: ListFaultEventsQueryDto) => o.cursor !== undefined)
  @IsString()
  cursor?: string;
}
