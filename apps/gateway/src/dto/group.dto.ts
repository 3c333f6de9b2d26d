/**
 * Group (spec 2.2), the two answers of GET …/groups — GroupInventoryResponse (`view=inventory`) and
 * GroupDirectoryResponse (`view=directory`, the default) — GroupDirectoryResult, and the groups
 * queries. Every schema here is closed (no extra properties), which also makes the list route's
 * `oneOf` decidable: only the directory answer has `sourceScope`. `parent` is a group id or, with
 * `expand=parent`, the stored parent as a Group (whose own parent stays an id).
 */
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { GROUP_DIRECTORY, GROUP_INVENTORY_MAX_IDS } from '@switchyard/contracts';
import { ID_PATTERNS, PROVIDERS } from '@switchyard/domain';
import { PARENT_RESOLUTIONS } from '@switchyard/messaging';
import { IsString, ValidateIf } from 'class-validator';
import { Closed } from '../openapi/closed.js';
import { DATASET_TIMES, expandParameter, NEXT_CURSOR, STATUS_RULES } from './read.dto.js';

const dateTime = { type: 'string', format: 'date-time' } as const;

/** Group page size: at most 100 groups per directory page (our choice within the 4 MiB response limit). */
export const GROUP_PAGE = { min: 1, max: 100, default: 100 } as const;
export const GROUP_VIEWS = ['directory', 'inventory'] as const;
export const GROUP_LIMIT_CODE_TEXT = `\`group_directory_limit_exceeded\` (status \`degraded\`, no results, no \`next\`) when the stored directory exceeds ${GROUP_DIRECTORY.maxRows.toLocaleString('en-US')} rows, ${GROUP_DIRECTORY.maxReferences.toLocaleString('en-US')} references (parent links plus the driver and vehicle memberships naming groups) or ${GROUP_DIRECTORY.projectedByteLimit.toLocaleString('en-US')} projected bytes (the directory serialized as served)`;

@Closed()
@ApiSchema({ description: 'A provider group of the connection (spec 2.2).' })
export class GroupDto {
  @ApiProperty({ pattern: ID_PATTERNS.group })
  id!: string;

  @ApiProperty({ description: "The provider's group id." })
  sourceId!: string;

  @ApiProperty({ enum: PROVIDERS })
  provider!: string;

  @ApiPropertyOptional({ description: 'Absent when the provider did not report it.' })
  name?: string;

  @ApiPropertyOptional({ description: 'Absent when the provider did not report it.' })
  description?: string;

  @ApiPropertyOptional({
    oneOf: [{ type: 'string', pattern: ID_PATTERNS.group }, { $ref: getSchemaPath('GroupDto') }],
    description:
      'The parent group id, or with `expand=parent` the stored parent (whose own parent is an id). Absent for a root or unreported parent, and in the inventory for a parent outside the approved groups.',
  })
  parent?: string | GroupDto;

  @ApiProperty({
    type: 'object',
    properties: {
      addedAt: { ...dateTime, description: 'Fetch time of the first batch that carried the group.' },
      modifiedAt: { ...dateTime, description: 'Fetch time of the last batch that changed it.' },
      visibility: { type: 'string', enum: ['visible'] },
      parentResolution: {
        type: 'string',
        enum: PARENT_RESOLUTIONS,
        description: '`root_or_unreported`: no parent reported. `resolved`: the parent is stored (in the inventory: among the approved groups). `unresolved`: a parent was reported but is not.',
      },
    },
    required: ['addedAt', 'modifiedAt', 'visibility'],
    selfRequired: true,
    additionalProperties: false,
  })
  metadata!: { addedAt: string; modifiedAt: string; visibility: 'visible'; parentResolution?: string };
}

const CONSTANTS = {
  retrieval: { enum: ['stored'], description: 'Always `stored`: served from stored data, no provider is contacted.' },
  sourceScope: { enum: ['credential_visible_directory'], description: 'Every group the provider credential can see.' },
  consistency: { enum: ['not_transactional'], description: 'Pages of one walk keep to the groups stored when its first page was read; the provider pages were not read in one transaction.' },
  deletionEvidence: { enum: ['none'], description: 'A group the provider deleted is not reported as deleted.' },
} as const;

@Closed()
@ApiExtraModels(GroupDto)
@ApiSchema({
  description: `The approved groups (\`view=inventory\`, opt-in \`groupInventory\`): the stored groups among the connection's at most ${GROUP_INVENTORY_MAX_IDS} approved group ids, ascending id, one page; parents resolved among the approved groups only.`,
})
export class GroupInventoryResponseDto {
  @ApiProperty({ enum: ['disabled', 'pending', 'available', 'stale', 'degraded'], description: `\`disabled\`: the connection's groupInventory opt-in is off (no results). ${STATUS_RULES}` })
  status!: string;

  @ApiProperty({ type: [GroupDto], maxItems: GROUP_INVENTORY_MAX_IDS })
  results!: GroupDto[];

  @ApiPropertyOptional(NEXT_CURSOR('page of groups (never present: the inventory is one page)'))
  next?: string;

  @ApiProperty({ ...dateTime, nullable: true, description: DATASET_TIMES.fetchedAt })
  fetchedAt!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, description: DATASET_TIMES.errorCode })
  errorCode?: string | null;

  @ApiProperty(CONSTANTS.retrieval)
  retrieval!: 'stored';
}

/** The constant fields and dataset times GroupDirectoryResponse and GroupDirectoryResult share (not a schema of its own). */
abstract class GroupDirectoryFrameDto {
  @ApiProperty(CONSTANTS.retrieval)
  retrieval!: 'stored';

  @ApiProperty(CONSTANTS.sourceScope)
  sourceScope!: 'credential_visible_directory';

  @ApiProperty(CONSTANTS.consistency)
  consistency!: 'not_transactional';

  @ApiProperty(CONSTANTS.deletionEvidence)
  deletionEvidence!: 'none';

  @ApiProperty({ ...dateTime, nullable: true, description: DATASET_TIMES.fetchedAt })
  fetchedAt!: string | null;

  @ApiProperty({ ...dateTime, nullable: true, description: DATASET_TIMES.capturedAt })
  capturedAt!: string | null;
}

@Closed()
@ApiSchema({ description: 'A page of the credential-visible group directory (`view=directory`), ascending id, at most 4,194,304 bytes per response.' })
export class GroupDirectoryResponseDto extends GroupDirectoryFrameDto {

  @ApiProperty({ type: 'string', nullable: true, description: `${DATASET_TIMES.errorCode} Also ${GROUP_LIMIT_CODE_TEXT}.` })
  errorCode!: string | null;

  @ApiProperty({ enum: ['pending', 'available', 'stale', 'degraded'], description: STATUS_RULES })
  status!: string;

  @ApiProperty({ type: [GroupDto], maxItems: GROUP_PAGE.max })
  results!: GroupDto[];

  @ApiPropertyOptional(NEXT_CURSOR('page of the group directory'))
  next?: string;
}

@Closed()
@ApiSchema({ description: 'One stored group of the connection (spec 2.2).' })
export class GroupDirectoryResultDto extends GroupDirectoryFrameDto {

  @ApiProperty({ type: 'string', nullable: true, description: DATASET_TIMES.errorCode })
  errorCode!: string | null;

  @ApiProperty({ enum: ['available', 'stale', 'degraded'], description: STATUS_RULES })
  status!: string;

  @ApiProperty({ type: GroupDto })
  data!: GroupDto;
}

/** What `expand` may name on the groups routes. */
export const GROUP_EXPANDABLE = ['parent'] as const;

export class GroupExpandQueryDto {
  @ApiPropertyOptional(expandParameter(GROUP_EXPANDABLE, "`parent`: each group's stored parent as a Group instead of its id."))
  @ValidateIf((o: GroupExpandQueryDto) => o.expand !== undefined)
  @IsString()
  expand?: string;
}

export class ListGroupsQueryDto extends GroupExpandQueryDto {
  @ApiPropertyOptional({
    enum: GROUP_VIEWS,
    default: 'directory',
    description:
      'Which answer: `directory` (default) — GroupDirectoryResponse, every group the provider credential can see, paged; `inventory` — GroupInventoryResponse, only the approved group ids of the `groupInventory` opt-in (status `disabled` while it is off). A cursor belongs to its view.',
  })
  @ValidateIf((o: ListGroupsQueryDto) => o.view !== undefined)
  @IsString()
  view?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: GROUP_PAGE.min, maximum: GROUP_PAGE.max, default: GROUP_PAGE.default, description: 'Directory page size; a page may hold fewer groups to stay under the response byte limit. The inventory is always one page.' })
  @ValidateIf((o: ListGroupsQueryDto) => o.limit !== undefined)
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ description: 'The `next` value of the previous directory page.' })
  @ValidateIf((o: ListGroupsQueryDto) => o.cursor !== undefined)
  @IsString()
  cursor?: string;
}
