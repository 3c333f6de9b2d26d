/**
 * Groups read use cases (spec 2.2, 4.2, 8), never contacting a provider:
 * - the group DIRECTORY: every stored group of the connection (credential visible), ascending id,
 *   keyset pages of at most `limit` groups and `maxBytes` of results, inside the walk's horizon.
 *   Before each page the stored directory is measured against the request's limits (rows,
 *   references, projected bytes); over one, the page is not served: the reply says which limit
 *   (`limitExceeded`), the status is `degraded` with errorCode `group_directory_limit_exceeded`,
 *   and no group is returned — a partial directory would read as a complete one;
 * - the group INVENTORY (opt-in `groupInventory`): the stored groups among the connection's
 *   approved source ids (at most 100, so one page), parents resolved within them only;
 *   `enabled: false` (status `disabled`) without the opt-in or before the connection's
 *   configuration reached the directory;
 * - one group by id (GroupDirectoryResult): no `pending` — a stored group means a committed batch.
 * Every Group is rendered by PostgreSQL (groups-read.repository.ts) and answered as JSON text in a
 * framed reply; the directory page is decided by the read frame (`readFrame`, decision 0028).
 */
import { RpcError, type GetGroupReplyV1, type GetGroupRequestV1, type GroupInventoryReplyV1, type GroupInventoryRequestV1, type ListGroupDirectoryReplyV1, type ListGroupDirectoryRequestV1 } from '@switchyard/messaging';
import type { Em, Orm } from '@switchyard/persistence';
import { ConnectionConfigStore } from '@switchyard/service-kit';
import { GroupsReadRepository, type GroupDirectoryTotals } from '../db/repositories/groups-read.repository.js';
import { currentHorizon } from '../db/repositories/read-horizon.js';
import { DatasetStatusService } from './dataset-status.service.js';
import { resultStatus } from './read-page.js';

export const GROUP_DIRECTORY_LIMIT_CODE = 'group_directory_limit_exceeded';

function exceeded(totals: GroupDirectoryTotals, limits: ListGroupDirectoryRequestV1['limits']): ListGroupDirectoryReplyV1['meta']['limitExceeded'] {
  if (totals.rows > limits.maxRows) return 'rows';
  if (totals.references > limits.maxReferences) return 'references';
  if (totals.projected_bytes > limits.projectedByteLimit) return 'projected_bytes';
  return undefined;
}

export class GroupsReadService {
  private readonly configs: ConnectionConfigStore;

  constructor(
    orm: Orm,
    private readonly repository = new GroupsReadRepository(),
    private readonly datasets = new DatasetStatusService(),
  ) {
    this.configs = new ConnectionConfigStore(orm);
  }

  async directory(em: Em, request: ListGroupDirectoryRequestV1): Promise<ListGroupDirectoryReplyV1> {
    const { connectionId, limit, maxBytes, expand } = request;
    const horizon = request.horizon ?? (await currentHorizon(em));
    const [dataset, totals] = await Promise.all([this.datasets.status(em, connectionId, 'groups'), this.repository.directoryTotals(em, connectionId)]);
    const limitExceeded = exceeded(totals, request.limits);
    if (limitExceeded) return { meta: { dataset: { ...dataset, status: 'degraded', errorCode: GROUP_DIRECTORY_LIMIT_CODE }, horizon, hasMore: false, limitExceeded }, body: '[]' };
    const page = await this.repository.page(em, { connectionId, horizon, expandParent: expand.parent, ...(request.after ? { after: request.after } : {}) }, { limit, maxBytes });
    // The groups travel as the JSON text PostgreSQL rendered and the byte budget was counted on (a framed reply).
    return { meta: { dataset, horizon, hasMore: page.hasMore, ...(page.hasMore && page.last ? { next: page.last } : {}) }, body: page.items };
  }

  async inventory(em: Em, request: GroupInventoryRequestV1): Promise<GroupInventoryReplyV1> {
    const { connectionId, expand } = request;
    const [dataset, config] = await Promise.all([this.datasets.status(em, connectionId, 'groups'), this.configs.get(connectionId)]);
    if (!config?.optIns.groupInventory) return { meta: { enabled: false, dataset }, body: '[]' };
    const body = config.approvedGroupIds.length > 0 ? await this.repository.inventory(em, connectionId, config.approvedGroupIds, expand.parent) : '[]';
    return { meta: { enabled: true, dataset }, body };
  }

  async get(em: Em, request: GetGroupRequestV1): Promise<GetGroupReplyV1> {
    const { connectionId, groupId, expand } = request;
    const [body, dataset] = await Promise.all([this.repository.byId(em, connectionId, groupId, expand.parent), this.datasets.status(em, connectionId, 'groups')]);
    if (body === undefined) throw new RpcError('not_found', 'no such group on this connection');
    return { meta: { dataset: resultStatus(dataset) }, body };
  }
}
