/**
 * The groups routes' queries (spec 2.2, 8): what the gateway validates on input. Group and the
 * answers of GET …/groups (GroupDirectoryResponse, GroupInventoryResponse) and …/groups/{groupId}
 * (GroupDirectoryResult) are the zod schemas of libs/messaging (directory-read-groups.v1.ts).
 */
import { ApiPropertyOptional } from '@nestjs/swagger';
import { GROUP_PAGE } from '@switchyard/messaging';
import { IsString, ValidateIf } from 'class-validator';
import { expandParameter } from './read.dto.js';

export const GROUP_VIEWS = ['directory', 'inventory'] as const;

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
