/**
 * GET /v1/connections/{id}/groups and …/groups/{groupId} (spec 2.2, 4.2, 8): the stored-read
 * pattern of trips.controller.ts. The caller selects the answer with `view`:
 * - `directory` (default): GroupDirectoryResponse, the credential-visible directory in keyset pages
 *   (cursor bound to key, connection, grant version and the view), each at most the response byte
 *   limit; the directory limits (GatewaySettings.groupDirectoryLimits, spec 8 by default) travel
 *   to the directory, which answers `degraded` + `group_directory_limit_exceeded` beyond them;
 * - `inventory`: GroupInventoryResponse, the approved groups of the `groupInventory` opt-in, one
 *   page (a cursor is refused: none is ever issued for it).
 * The single-group read is a GroupDirectoryResult. Data come from `directory.read.groups.*`.
 */
import { Controller, Get, Inject, Param, Query, Req } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { parseLimit } from '@switchyard/contracts';
import { ID_PATTERNS, isGroupId } from '@switchyard/domain';
import { DIRECTORY_GROUPS_RPCS, readHorizonV1, type DatasetStatusV1 } from '@switchyard/messaging';
import { z } from 'zod';
import { ConsumerAuth } from '../auth/auth.guards.js';
import { consumerPrincipalOf, type AuthenticatedRequest } from '../auth/principal.js';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../config.js';
import { ErrorBodyDto } from '../dto/error.dto.js';
import {
  GROUP_EXPANDABLE,
  GROUP_LIMIT_CODE_TEXT,
  GROUP_PAGE,
  GROUP_VIEWS,
  GroupDirectoryResponseDto,
  GroupDirectoryResultDto,
  GroupDto,
  GroupExpandQueryDto,
  GroupInventoryResponseDto,
  ListGroupsQueryDto,
} from '../dto/group.dto.js';
import { ApiError } from '../http/api-error.js';
import { ContextClient } from '../services/context-client.service.js';
import { ReadCursorCodec } from '../services/read-cursor.js';
import { parseExpand, resultsByteBudget } from '../services/read-query.js';

const cursorSchema = z.object({ h: readHorizonV1, p: z.string().regex(new RegExp(ID_PATTERNS.group)) }).strict();
const DIRECTORY_CONSTANTS = { retrieval: 'stored', sourceScope: 'credential_visible_directory', consistency: 'not_transactional', deletionEvidence: 'none' } as const;

const times = (d: DatasetStatusV1) => ({ fetchedAt: d.fetchedAt, capturedAt: d.capturedAt, errorCode: d.errorCode });

@ApiTags('groups')
@Controller('v1/connections/:id/groups')
@ApiParam({ name: 'id', description: 'Connection id (uuid).', schema: { type: 'string' } })
export class GroupsController {
  private readonly cursors: ReadCursorCodec<z.output<typeof cursorSchema>>;
  private readonly maxBytes: number;

  constructor(
    private readonly contexts: ContextClient,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {
    this.cursors = new ReadCursorCodec(settings.cursorSecret, 'GET /v1/connections/{id}/groups', cursorSchema);
    this.maxBytes = resultsByteBudget(settings.responseByteLimit);
  }

  @Get()
  @ConsumerAuth('read')
  @ApiExtraModels(GroupInventoryResponseDto, GroupDirectoryResponseDto)
  @ApiOperation({
    operationId: 'listGroups',
    summary: 'List stored groups (directory or approved inventory)',
    description: [
      'Stored groups of the connection, no provider contact. `view` selects the answer:',
      '`directory` (default) returns a GroupDirectoryResponse (has `sourceScope`): every group the provider credential can see, ascending id, pages of at most `limit` groups and 4,194,304 bytes — when the next group would not fit, the page ends early and `next` continues (pass it back as `cursor` with the same view);',
      `its errorCode is ${GROUP_LIMIT_CODE_TEXT}.`,
      '`inventory` returns a GroupInventoryResponse: the approved group ids of the `groupInventory` opt-in (at most 100, one page, parents resolved among them only); status `disabled` while the opt-in is off.',
    ].join(' '),
  })
  @ApiOkResponse({
    description: 'A GroupDirectoryResponse (`view=directory`) or a GroupInventoryResponse (`view=inventory`).',
    schema: { oneOf: [{ $ref: getSchemaPath(GroupDirectoryResponseDto) }, { $ref: getSchemaPath(GroupInventoryResponseDto) }] },
  })
  @ApiResponse({
    status: 400,
    description: `Unknown, repeated or malformed parameter, an unknown view or expand, limit outside ${GROUP_PAGE.min}-${GROUP_PAGE.max} (\`invalid_query\`); a cursor that is malformed, tampered, expired, of another view, connection or key, issued before a grant change, or given to the inventory (\`invalid_cursor\`).`,
    type: ErrorBodyDto,
  })
  async list(@Req() req: AuthenticatedRequest, @Query() query: ListGroupsQueryDto): Promise<GroupDirectoryResponseDto | GroupInventoryResponseDto> {
    const principal = consumerPrincipalOf(req);
    const view = query.view ?? 'directory';
    if (!(GROUP_VIEWS as readonly string[]).includes(view)) throw new ApiError('invalid_query');
    const limit = parseLimit(query.limit, GROUP_PAGE);
    if (!limit.ok) throw new ApiError('invalid_query');
    const expand = parseExpand(query.expand, GROUP_EXPANDABLE);
    if (view === 'inventory') {
      if (query.cursor !== undefined) throw new ApiError('invalid_cursor');
      const reply = await this.contexts.request(DIRECTORY_GROUPS_RPCS.inventory, { connectionId: principal.connectionId, expand });
      return {
        status: reply.enabled ? reply.dataset.status : 'disabled',
        results: reply.groups as GroupDto[],
        fetchedAt: reply.dataset.fetchedAt,
        errorCode: reply.enabled ? reply.dataset.errorCode : null,
        retrieval: 'stored',
      };
    }
    const filters = { view };
    const position = query.cursor === undefined ? undefined : this.cursors.decode(principal, filters, query.cursor);
    if (query.cursor !== undefined && !position) throw new ApiError('invalid_cursor');
    const reply = await this.contexts.request(DIRECTORY_GROUPS_RPCS.directory, {
      connectionId: principal.connectionId,
      limit: limit.value,
      maxBytes: this.maxBytes,
      expand,
      limits: this.settings.groupDirectoryLimits,
      ...(position ? { horizon: position.h, after: position.p } : {}),
    });
    const next = reply.hasMore && reply.next ? this.cursors.encode(principal, filters, { h: reply.horizon, p: reply.next }) : undefined;
    return { ...DIRECTORY_CONSTANTS, ...times(reply.dataset), status: reply.dataset.status, results: reply.groups as GroupDto[], ...(next ? { next } : {}) };
  }

  @Get(':groupId')
  @ConsumerAuth('read')
  @ApiOperation({
    operationId: 'getGroup',
    summary: 'Read one stored group',
    description: 'One stored group of the connection by group_ id, from the credential-visible directory. A group of another connection is 404.',
  })
  @ApiParam({ name: 'groupId', description: 'Group id (`group_` + 26 Crockford base32 characters).', schema: { type: 'string', pattern: ID_PATTERNS.group } })
  @ApiOkResponse({ type: GroupDirectoryResultDto })
  @ApiResponse({ status: 400, description: 'The groupId is not a group_ id (`invalid_path`); an unknown parameter or expand value (`invalid_query`).', type: ErrorBodyDto })
  async get(@Req() req: AuthenticatedRequest, @Param('groupId') groupId: string, @Query() query: GroupExpandQueryDto): Promise<GroupDirectoryResultDto> {
    const principal = consumerPrincipalOf(req);
    if (!isGroupId(groupId)) throw new ApiError('invalid_path');
    const expand = parseExpand(query.expand, GROUP_EXPANDABLE);
    const { dataset, group } = await this.contexts.request(DIRECTORY_GROUPS_RPCS.get, { connectionId: principal.connectionId, groupId, expand });
    return { ...DIRECTORY_CONSTANTS, ...times(dataset), status: dataset.status, data: group as GroupDto };
  }
}
