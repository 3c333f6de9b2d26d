/**
 * Drivers read use cases (spec 2.5, 4.2): the DriverDirectory — the connection's last stored driver
 * directory, ascending id, keyset pages of at most `limit` drivers and at most `maxBytes` of
 * results, inside the walk's horizon (taken by the first page, kept by the cursor) — and one
 * DriverResult by id. Never contacts a provider.
 * - status, fetchedAt, capturedAt come from the driver dataset (dataset-status.service.ts); errorCode
 *   is the degrading reason when it is one of the DriverDirectory codes, else null (a code outside
 *   the resource's enum is not invented into one). A DriverResult has no `pending`: a stored driver
 *   means a committed batch, so the row's existence answers `available`;
 * - drivers that cannot be a public Driver (driver.mapper.ts) are skipped, never padded out;
 * - `expand=groups` loads each round's stored groups of the same connection in one query;
 * - page filling (limit, byte budget, skipped rows) is read-page.ts.
 */
import { DRIVER_DIRECTORY_REASON_CODES } from '@switchyard/domain';
import { RpcError, type DatasetStatusV1, type FlatGroupV1, type GetDriverReplyV1, type GetDriverRequestV1, type ListDriversReplyV1, type ListDriversRequestV1 } from '@switchyard/messaging';
import type { Em, Orm } from '@switchyard/persistence';
import { ConnectionConfigStore } from '@switchyard/service-kit';
import { DriversReadRepository, type DriverDirectoryRow } from '../db/repositories/drivers-read.repository.js';
import { GroupsReadRepository } from '../db/repositories/groups-read.repository.js';
import { currentHorizon } from '../db/repositories/read-horizon.js';
import { DatasetStatusService } from './dataset-status.service.js';
import { driverOf, memberGroupIds, type DriverMapContext } from './driver.mapper.js';
import { flatGroupOf } from './group.mapper.js';
import { expansionById, fillPage, resultStatus } from './read-page.js';

/** The dataset with an errorCode from the DriverDirectory enum (or null). */
export const driverDataset = (s: DatasetStatusV1): DatasetStatusV1 => ({
  ...s,
  errorCode: (DRIVER_DIRECTORY_REASON_CODES as readonly (string | null)[]).includes(s.errorCode) ? s.errorCode : null,
});

export class DriversReadService {
  private readonly configs: ConnectionConfigStore;

  constructor(
    orm: Orm,
    private readonly repository = new DriversReadRepository(),
    private readonly groups = new GroupsReadRepository(),
    private readonly datasets = new DatasetStatusService(),
  ) {
    this.configs = new ConnectionConfigStore(orm);
  }

  private async context(em: Em, connectionId: string): Promise<Omit<DriverMapContext, 'expandedGroups'>> {
    const [drivers, groups, config] = await Promise.all([
      this.datasets.status(em, connectionId, 'drivers'),
      this.datasets.status(em, connectionId, 'groups'),
      this.configs.get(connectionId),
    ]);
    return { drivers: driverDataset(drivers), groups, inventoryEnabled: config?.optIns.groupInventory ?? false };
  }

  private expansion(em: Em, connectionId: string, rows: readonly DriverDirectoryRow[]): Promise<Map<string, FlatGroupV1>> {
    return expansionById(
      rows.flatMap((row) => memberGroupIds(row)?.ids ?? []),
      (ids) => this.groups.byIds(em, connectionId, ids),
      flatGroupOf,
    );
  }

  async list(em: Em, request: ListDriversRequestV1): Promise<ListDriversReplyV1> {
    const { connectionId, limit, maxBytes, expand } = request;
    const horizon = request.horizon ?? (await currentHorizon(em));
    const base = await this.context(em, connectionId);
    const page = await fillPage({
      limit,
      maxBytes,
      after: request.after,
      fetch: (after, n) => this.repository.page(em, { connectionId, horizon, after, limit: n }),
      position: (row) => row.id,
      items: async (rows) => {
        const ctx = expand.groups ? { ...base, expandedGroups: await this.expansion(em, connectionId, rows) } : base;
        return rows.map((row) => driverOf(row, ctx));
      },
    });
    return { dataset: base.drivers, horizon, hasMore: page.hasMore, drivers: page.items, ...(page.hasMore ? { next: page.next } : {}) };
  }

  async get(em: Em, request: GetDriverRequestV1): Promise<GetDriverReplyV1> {
    const { connectionId, driverId, expand } = request;
    const [row, base] = await Promise.all([this.repository.byId(em, connectionId, driverId), this.context(em, connectionId)]);
    const ctx = row && expand.groups ? { ...base, expandedGroups: await this.expansion(em, connectionId, [row]) } : base;
    const driver = row ? driverOf(row, ctx) : undefined;
    if (!driver) throw new RpcError('not_found', 'no such driver on this connection');
    return { dataset: resultStatus(base.drivers), driver };
  }
}
