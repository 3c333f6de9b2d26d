/**
 * GET /v1/connections/{id}/groups and …/groups/{groupId} (spec 2.2, 4.2, 8): the stored-read
 * pattern of trips.controller.ts. The caller selects the answer with `view`:
 * - `directory` (default): GroupDirectoryResponse, the credential-visible directory in keyset pages
 *   (cursor bound to key, connection, grant version and the view), each at most the response byte
 *   limit; the directory limits (GatewaySettings.groupDirectoryLimits, spec 8 by default) travel
 *   to the directory, which answers `degraded` + `group_directory_limit_exceeded` beyond them;
 * - `inventory`: GroupInventoryResponse, the approved groups of the `groupInventory` opt-in, one
 *   page (a cursor is refused: none is ever issued for it).
 * The single-group read is a GroupDirectoryResult. Data come from `directory.read.groups.*` as framed
 * replies: the Groups are JSON text rendered by the directory's PostgreSQL, forwarded as bytes.
 */
import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { groupIdSchema } from '@switchyard/contracts';
import { ID_PATTERNS } from '@switchyard/domain';
import {
  GROUP_LIMIT_CODE_TEXT,
  GROUP_PAGE,
  GROUP_RESULT_STATUSES,
  groupDirectoryResponseV1,
  groupDirectoryResultV1,
  groupInventoryResponseV1,
  RPCS,
  type DatasetStatusV1,
} from '@switchyard/messaging';
import { ConsumerAuth } from '../auth/auth.guards.js';
import { Principal } from '../auth/principal.decorator.js';
import type { ConsumerPrincipal } from '../auth/principal.js';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../config.js';
import { ErrorBodyDto } from '../dto/error.dto.js';
import { GROUP_EXPANDABLE, GROUP_VIEWS, GroupExpandQueryDto, ListGroupsQueryDto } from '../dto/group.dto.js';
import { ApiError, invalid } from '../http/api-error.js';
import { EntityId } from '../http/entity-ids.js';
import { jsonObject, raw, type JsonBody } from '../http/json-body.js';
import { ApiZodResponse } from '../openapi/zod-schemas.js';
import { ContextClient } from '../services/context-client.service.js';
import { parseExpand } from '../services/read-query.js';
import { narrowed, StoredReadPager } from '../services/stored-read-pager.js';

const DIRECTORY_CONSTANTS = { retrieval: 'stored', sourceScope: 'credential_visible_directory', consistency: 'not_transactional', deletionEvidence: 'none' } as const;

const times = (d: DatasetStatusV1) => ({ fetchedAt: d.fetchedAt, capturedAt: d.capturedAt, errorCode: d.errorCode });

@ApiTags('groups')
@Controller('v1/connections/:id/groups')
@ApiParam({ name: 'id', description: 'Connection id (uuid).', schema: { type: 'string' } })
export class GroupsController {
  private readonly pager: StoredReadPager<string, (typeof GROUP_EXPANDABLE)[number]>;

  constructor(
    private readonly contexts: ContextClient,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {
    this.pager = new StoredReadPager(settings, { route: 'GET /v1/connections/{id}/groups', position: groupIdSchema, range: GROUP_PAGE, expandable: GROUP_EXPANDABLE });
  }

  @Get()
  @ConsumerAuth('read')
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
  @ApiZodResponse(200, [groupDirectoryResponseV1, groupInventoryResponseV1], 'A GroupDirectoryResponse (`view=directory`) or a GroupInventoryResponse (`view=inventory`).')
  @ApiResponse({
    status: 400,
    description: `Unknown, repeated or malformed parameter, an unknown view or expand, limit outside ${GROUP_PAGE.min}-${GROUP_PAGE.max} (\`invalid_query\`); a cursor that is malformed, tampered, expired, of another view, connection or key, issued before a grant change, or given to the inventory (\`invalid_cursor\`).`,
    type: ErrorBodyDto,
  })
  async list(@Principal() principal: ConsumerPrincipal, @Query() query: ListGroupsQueryDto): Promise<JsonBody> {
    const view = query.view ?? 'directory';
    if (!(GROUP_VIEWS as readonly string[]).includes(view)) throw invalid('invalid_query', 'query', 'view', 'not_allowed');
    if (view === 'inventory') {
      const { expand } = this.pager.parse(query);
      if (query.cursor !== undefined) throw new ApiError('invalid_cursor');
      const { meta, body } = await this.contexts.request(RPCS.directory.groups.inventory, { connectionId: principal.connectionId, expand });
      return jsonObject(groupInventoryResponseV1, {
        status: meta.enabled ? meta.dataset.status : 'disabled',
        results: raw(body),
        fetchedAt: meta.dataset.fetchedAt,
        errorCode: meta.enabled ? meta.dataset.errorCode : null,
        retrieval: 'stored',
      });
    }
    const { reply, link } = await this.pager.page(principal, query, { view }, (frame) =>
      this.contexts.request(RPCS.directory.groups.directory, { connectionId: principal.connectionId, ...frame, limits: this.settings.groupDirectoryLimits }),
    );
    const { dataset } = reply.meta;
    return jsonObject(groupDirectoryResponseV1, { ...DIRECTORY_CONSTANTS, ...times(dataset), status: dataset.status, results: raw(reply.body), ...link });
  }

  @Get(':groupId')
  @ConsumerAuth('read')
  @ApiOperation({
    operationId: 'getGroup',
    summary: 'Read one stored group',
    description: 'One stored group of the connection by group_ id, from the credential-visible directory. A group of another connection is 404.',
  })
  @ApiParam({ name: 'groupId', description: 'Group id (`group_` + 26 Crockford base32 characters).', schema: { type: 'string', pattern: ID_PATTERNS.group } })
  @ApiZodResponse(200, groupDirectoryResultV1)
  @ApiResponse({ status: 400, description: 'The groupId is not a group_ id (`invalid_path`); an unknown parameter or expand value (`invalid_query`).', type: ErrorBodyDto })
  async get(@Principal() principal: ConsumerPrincipal, @EntityId('group', 'groupId') groupId: string, @Query() query: GroupExpandQueryDto): Promise<JsonBody> {
    const expand = parseExpand(query.expand, GROUP_EXPANDABLE);
    const { meta, body } = await this.contexts.request(RPCS.directory.groups.get, { connectionId: principal.connectionId, groupId, expand });
    return jsonObject(groupDirectoryResultV1, { ...DIRECTORY_CONSTANTS, ...times(meta.dataset), status: narrowed(GROUP_RESULT_STATUSES, meta.dataset.status), data: raw(body) });
  }
}
