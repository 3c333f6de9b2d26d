/**
 * What the sync routes validate on input (the create body, the list query) and SyncControl, the
 * answer the gateway itself builds for retry and cancel (closed by openapi/document.ts). Sync and
 * SyncPage are the zod schemas of libs/messaging sync-api.v1.ts, not written again here.
 */
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { SYNC_PAGE } from '@switchyard/contracts';
import { ID_PATTERNS } from '@switchyard/domain';
import { PROVIDER_REQUESTS, SYNC_STATUSES } from '@switchyard/messaging';
import { IsArray, IsIn, IsNumber, IsPositive, IsString, Max, ValidateIf } from 'class-validator';
import { expandParameter } from './read.dto.js';

/** What `expand` may name on the sync list. */
export const SYNC_EXPANDABLE = ['issues'] as const;

/** Largest accepted lookbackDays (100 years): keeps the arithmetic inside the date range; plan size limits bite far earlier. */
export const MAX_LOOKBACK_DAYS = 36_500;

@ApiSchema({ description: 'The sync a retry or cancel was accepted for.' })
export class SyncControlDto {
  @ApiProperty({ pattern: ID_PATTERNS.sync })
  id!: string;

  @ApiProperty({ enum: ['Sync retry requested', 'Sync cancellation requested'] })
  message!: string;
}

export class CreateSyncDto {
  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    description:
      'Start of the collection interval. Exclusive with lookbackDays. Before now it needs the history grant. RFC 3339 with `Z` or a numeric offset (either letter case), between 0001-01-02T00:00:00Z and 9999-12-30T23:59:59.999Z.',
  })
  @ValidateIf((o: CreateSyncDto) => o.startFrom !== undefined)
  @IsString()
  startFrom?: string;

  @ApiPropertyOptional({
    type: 'number',
    // OpenAPI 3.1 (JSON Schema 2020-12) takes the bound itself; the package still types the 3.0 boolean.
    exclusiveMinimum: 0 as unknown as boolean,
    maximum: MAX_LOOKBACK_DAYS,
    example: 1.5,
    description:
      'The fractional-days selector: the interval starts this many days (fractions allowed, e.g. 0.25 = 6 hours) before the request time. Exclusive with startFrom; needs the history grant.',
  })
  @ValidateIf((o: CreateSyncDto) => o.lookbackDays !== undefined)
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsPositive()
  @Max(MAX_LOOKBACK_DAYS)
  lookbackDays?: number;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: [...PROVIDER_REQUESTS] },
    description:
      'Must be empty or absent: non-empty provider request workflows are not implemented (409 `provider_requests_not_supported`, answered only when the whole request is otherwise valid; an item that is not one of the values is 400 `invalid_body`).',
  })
  @ValidateIf((o: CreateSyncDto) => o.providerRequests !== undefined)
  @IsArray()
  @IsIn(PROVIDER_REQUESTS, { each: true })
  providerRequests?: (typeof PROVIDER_REQUESTS)[number][];
}

export class ListSyncsQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: SYNC_PAGE.min, maximum: SYNC_PAGE.max, default: SYNC_PAGE.default, description: 'Page size.' })
  @ValidateIf((o: ListSyncsQueryDto) => o.limit !== undefined)
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ enum: SYNC_STATUSES, description: 'Only syncs in this status (evaluated live on every page).' })
  @ValidateIf((o: ListSyncsQueryDto) => o.status !== undefined)
  @IsIn(SYNC_STATUSES)
  status?: string;

  @ApiPropertyOptional(expandParameter(SYNC_EXPANDABLE, 'Accepted (`issues`); issues are always empty in this increment. A repeated value counts once, as in every comma-separated list.'))
  @ValidateIf((o: ListSyncsQueryDto) => o.expand !== undefined)
  @IsString()
  expand?: string;

  @ApiPropertyOptional({ description: 'The `next` value of the previous page.' })
  @ValidateIf((o: ListSyncsQueryDto) => o.cursor !== undefined)
  @IsString()
  cursor?: string;
}
