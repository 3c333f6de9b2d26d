/**
 * Driver, DriverDirectory and DriverResult (spec 2.5) and the drivers queries. Driver and its
 * groupMembership and availability objects allow no extra properties; `groups` items are group ids
 * or, with `expand=groups`, stored Groups. A value the provider sent that breaks the public
 * constraint (email format, E.164 phone, license state list, date-time) is omitted and its
 * availability says `invalid` — never a made-up value.
 */
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import {
  CURSOR_PATTERN,
  DRIVER_AVAILABILITY_KEYS,
  DRIVER_DIRECTORY_STATUSES,
  DRIVER_RESULT_STATUSES,
  GROUP_MEMBERSHIP_SCOPES,
  GROUP_MEMBERSHIP_SOURCE_SCOPES,
  GROUP_MEMBERSHIP_STATUSES,
  GROUPS_PER_ENTITY,
  INVENTORY_STATUSES,
  LICENSE_STATES,
  PAGE_RANGES,
  PHONE_PATTERN,
} from '@switchyard/contracts';
import { AVAILABILITY_STATUSES, DRIVER_DIRECTORY_REASON_CODES, GROUP_MEMBERSHIP_REASON_CODES, ID_PATTERNS } from '@switchyard/domain';
import { IsString, ValidateIf } from 'class-validator';
import { Closed } from '../openapi/closed.js';
import { GroupDto } from './group.dto.js';
import { TripDriverDto } from './trip.dto.js';
import { DATASET_TIMES, expandParameter, NEXT_CURSOR } from './read.dto.js';

const dateTime = { type: 'string', format: 'date-time' } as const;
const nullableTime = (description: string) => ({ type: 'string', format: 'date-time', nullable: true, description }) as const;
const availability = { type: 'string', enum: AVAILABILITY_STATUSES } as const;
const errorCode = {
  type: 'string',
  nullable: true,
  enum: [...DRIVER_DIRECTORY_REASON_CODES, null],
  description: `${DATASET_TIMES.errorCode} Only the DriverDirectory codes; a failure reported with another code leaves it null.`,
} as const;

@Closed()
@ApiExtraModels(GroupDto)
@ApiSchema({ description: 'A driver of the connection from the last stored driver directory (spec 2.5): the TripDriver identity fields with the Driver constraints and relations.' })
export class DriverDto extends TripDriverDto {
  @ApiPropertyOptional({ format: 'email' })
  declare email?: string;

  @ApiPropertyOptional({ pattern: PHONE_PATTERN, description: 'E.164: plus sign, a digit 1-9, then 9 to 13 digits.' })
  declare phone?: string;

  @ApiPropertyOptional({ type: 'object', properties: { number: { type: 'string' }, state: { type: 'string', enum: LICENSE_STATES } }, additionalProperties: false })
  declare license?: { number?: string; state?: string };

  @ApiPropertyOptional({
    type: 'array',
    maxItems: GROUPS_PER_ENTITY,
    uniqueItems: true,
    items: { oneOf: [{ type: 'string', pattern: ID_PATTERNS.group }, { $ref: getSchemaPath(GroupDto) }] },
    description: `The groups the provider reports the driver in (credential visible), at most ${GROUPS_PER_ENTITY} (more: groupMembership.status \`partial\`). Group ids, or with \`expand=groups\` the stored Groups (an unstored group stays an id). Absent when membership is unknown (see groupMembership).`,
  })
  groups?: (string | GroupDto)[];

  @ApiProperty({
    type: 'object',
    properties: {
      status: { type: 'string', enum: GROUP_MEMBERSHIP_STATUSES, description: '`missing`/`invalid`/`unsupported`: the provider did not give usable memberships. `partial`: more than 1000. Otherwise the driver directory\'s status.' },
      scope: { type: 'string', enum: GROUP_MEMBERSHIP_SCOPES },
      sourceScope: { type: 'string', enum: GROUP_MEMBERSHIP_SOURCE_SCOPES },
      fetchedAt: nullableTime('Fetch time of the newest committed batch of the group directory; null before the first.'),
      membershipCapturedAt: { ...dateTime, description: 'Fetch time of the stored driver, which carried its memberships.' },
      sourceAvailability: { ...availability, description: 'Whether the provider reported the memberships.' },
      inventoryStatus: { type: 'string', enum: INVENTORY_STATUSES, description: '`disabled` without the groupInventory opt-in; otherwise the status of the stored groups.' },
      errorCode: { type: 'string', enum: GROUP_MEMBERSHIP_REASON_CODES, description: 'Why the membership is degraded; absent otherwise.' },
    },
    required: ['status', 'scope', 'sourceScope', 'fetchedAt', 'membershipCapturedAt', 'sourceAvailability', 'inventoryStatus'],
    selfRequired: true,
    additionalProperties: false,
  })
  groupMembership!: Record<string, unknown>;

  @ApiProperty({
    type: 'object',
    properties: {
      addedAt: { ...dateTime, description: 'Fetch time of the first batch that carried the driver.' },
      modifiedAt: { ...dateTime, description: 'Fetch time of the last batch that changed it.' },
      visibility: { type: 'string', enum: ['visible'] },
    },
    required: ['addedAt', 'modifiedAt', 'visibility'],
    selfRequired: true,
    additionalProperties: false,
  })
  declare metadata: { addedAt: string; modifiedAt: string; visibility: 'visible' };

  @ApiProperty({
    type: 'object',
    description: 'Per field: `available` (the value is present), `missing` (not reported), `invalid` (reported but unusable: omitted), `unsupported` (the provider has no such field).',
    properties: Object.fromEntries(DRIVER_AVAILABILITY_KEYS.map((k) => [k, availability])),
    required: [...DRIVER_AVAILABILITY_KEYS],
    selfRequired: true,
    additionalProperties: false,
  })
  availability!: Record<string, string>;
}

/** The driver directory is the last complete collection pass (decision 0014): its times and statuses say so. */
const PASS_TIMES = {
  fetchedAt:
    'When the provider data behind this answer was fetched: the fetch time of the newest page of the complete pass served (for a driver that pass no longer lists, the fetch time of its last known record); null before the first complete pass.',
  capturedAt: 'When the final page of the complete pass served was fetched; null before the first complete pass.',
} as const;
const DEGRADED = '`degraded`: the newest collection attempt of the connection failed (see errorCode); stored data is still served.';
const DIRECTORY_STATUS_RULES = `\`pending\`: no drivers pass has completed yet (no results). \`available\`: the last complete pass is served. \`stale\`: its newest page was fetched more than 15 minutes (3 scheduler windows) ago. ${DEGRADED}`;
const RESULT_STATUS_RULES = `\`available\` and \`stale\` as for the directory; \`stale\` also for a driver an earlier complete pass listed but the last one does not (its last known record is served, fetchedAt before capturedAt). ${DEGRADED}`;

/** The dataset fields DriverDirectory and DriverResult share (not a schema of its own). */
abstract class DriverFrameDto {
  @ApiProperty({ enum: ['stored'], description: 'Always `stored`: served from stored data, no provider is contacted.' })
  retrieval!: 'stored';

  @ApiProperty(nullableTime(PASS_TIMES.fetchedAt))
  fetchedAt!: string | null;

  @ApiProperty(nullableTime(PASS_TIMES.capturedAt))
  capturedAt!: string | null;

  @ApiProperty(errorCode)
  errorCode!: string | null;
}

@Closed()
@ApiSchema({ description: 'A page of the last complete driver directory of the connection (the drivers of the last collection pass that reached its final page; no provider contact), ascending id, at most 100 drivers.' })
export class DriverDirectoryDto extends DriverFrameDto {
  @ApiProperty({ enum: DRIVER_DIRECTORY_STATUSES, description: DIRECTORY_STATUS_RULES })
  status!: string;


  @ApiProperty({ type: [DriverDto], maxItems: PAGE_RANGES.drivers.max })
  results!: DriverDto[];

  @ApiPropertyOptional({ ...NEXT_CURSOR('page of drivers'), pattern: CURSOR_PATTERN })
  next?: string;
}

@Closed()
@ApiSchema({ description: 'One stored driver (spec 2.5): of the last complete driver directory, or its last known record when that directory no longer lists it.' })
export class DriverResultDto extends DriverFrameDto {
  @ApiProperty({ enum: DRIVER_RESULT_STATUSES, description: RESULT_STATUS_RULES })
  status!: string;


  @ApiProperty({ type: DriverDto })
  driver!: DriverDto;
}

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
