/**
 * Sync (spec 2.11), SyncControl, the list page, the create body and the list query. Sync and
 * SyncControl allow no extra properties (openapi/document.ts closes them); `issues` and
 * `providerRequests` are pinned empty with `maxItems: 0`, so a response that ever carries one fails
 * validation in the tests.
 */
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { SYNC_CURSOR_TTL_MS, SYNC_PAGE } from '@switchyard/contracts';
import { ID_PATTERNS } from '@switchyard/domain';
import { SYNC_STATUSES } from '@switchyard/messaging';
import { IsArray, IsIn, IsNumber, IsPositive, IsString, Max, ValidateIf } from 'class-validator';

/** Largest accepted lookbackDays (100 years): keeps the arithmetic inside the date range; plan size limits bite far earlier. */
export const MAX_LOOKBACK_DAYS = 36_500;

@ApiSchema({ description: 'A durable sync job of the connection named by the Connection-Token.' })
export class SyncDto {
  @ApiProperty({ pattern: ID_PATTERNS.sync, example: 'sync_01JD3Y7Q8ZK5V2N4R6T8W0X2Y4' })
  id!: string;

  @ApiProperty({
    enum: SYNC_STATUSES,
    description: 'requested → in_progress → completed; any open state → failed (also by cancel); failed → requested by retry.',
  })
  status!: string;

  @ApiProperty({ type: 'string', format: 'date-time', description: 'When the sync was created; the upper end of its collection interval.' })
  requestedAt!: string;

  @ApiProperty({ type: 'string', format: 'date-time', required: false, description: 'Start of the collection interval (given, derived from lookbackDays, or defaulted).' })
  startFrom!: string;

  @ApiPropertyOptional({ type: 'string', format: 'date-time', description: 'Present once every admitted unit has a committed data receipt.' })
  completedAt?: string;

  @ApiProperty({ type: 'integer', minimum: 1, required: false, description: '1 at creation; each accepted retry adds one.' })
  attempts!: number;

  @ApiProperty({
    type: 'number',
    minimum: 0,
    maximum: 100,
    required: false,
    description: 'Units with a committed data receipt / admitted units × 100, rounded down to two decimals; 100 only when completed.',
  })
  progress!: number;

  @ApiPropertyOptional({ description: 'Why the sync failed, e.g. `cancelled` after a cancel, or a provider reason code.' })
  failureReason?: string;

  @ApiProperty({ type: 'array', items: { type: 'string' }, maxItems: 0, required: false, description: 'Always empty in this increment.' })
  issues!: string[];

  @ApiProperty({
    type: 'array',
    items: { type: 'string', enum: ['historical_files', 'provision_credentials'] },
    maxItems: 0,
    required: false,
    description: 'Always empty: provider request workflows are not implemented.',
  })
  providerRequests!: string[];
}

@ApiSchema({ description: 'The sync a retry or cancel was accepted for.' })
export class SyncControlDto {
  @ApiProperty({ pattern: ID_PATTERNS.sync })
  id!: string;

  @ApiProperty({ enum: ['Sync retry requested', 'Sync cancellation requested'] })
  message!: string;
}

@ApiSchema({ description: "A page of this application's syncs on the connection, newest requestedAt first, then id." })
export class SyncPageDto {
  @ApiProperty({ type: [SyncDto] })
  syncs!: SyncDto[];

  @ApiProperty({
    type: 'string',
    nullable: true,
    pattern: '^[A-Za-z0-9_-]+$',
    description: `Opaque cursor of the next page, or null on the last page. Pass it back as \`cursor\` with unchanged filters within ${SYNC_CURSOR_TTL_MS / 60_000} minutes.`,
  })
  next!: string | null;
}

export class CreateSyncDto {
  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    description: 'Start of the collection interval. Exclusive with lookbackDays. Before now it needs the history grant.',
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
    items: { type: 'string', enum: ['historical_files', 'provision_credentials'] },
    description: 'Must be empty or absent: non-empty provider request workflows are not implemented (409 `provider_requests_not_supported`).',
  })
  @ValidateIf((o: CreateSyncDto) => o.providerRequests !== undefined)
  @IsArray()
  providerRequests?: unknown[];
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

  @ApiPropertyOptional({ enum: ['issues'], description: 'Accepted; issues are always empty in this increment.' })
  @ValidateIf((o: ListSyncsQueryDto) => o.expand !== undefined)
  @IsIn(['issues'])
  expand?: string;

  @ApiPropertyOptional({ description: 'The `next` value of the previous page.' })
  @ValidateIf((o: ListSyncsQueryDto) => o.cursor !== undefined)
  @IsString()
  cursor?: string;
}
