/**
 * Drivers read use cases (spec 2.5, 4.2): the DriverDirectory — the drivers of the connection's
 * last COMPLETE drivers pass (decision 0014), ascending id, keyset pages of at most `limit` drivers
 * and at most `maxBytes` of results, inside the walk's horizon (taken by the first page, kept by the
 * cursor) — and one DriverResult by id. Never contacts a provider.
 * - the pass: the newest completed pass visible in the horizon, so a pass completing mid-walk
 *   leaves the walk on the pass it started with (no driver skipped or repeated); the next walk
 *   gets the new pass;
 * - status, fetchedAt, capturedAt come from that pass and the connection's health
 *   (dataset-status.service.ts `ofPass`): `pending` with no results before the first complete
 *   pass; errorCode is the degrading reason when it is one of the DriverDirectory codes, else null
 *   (a code outside the resource's enum is not invented into one);
 * - by id: a driver the current pass lists answers with the directory's status (a DriverResult has
 *   no `pending`; with a pass there is none); a driver an earlier complete pass listed but the
 *   current one does not is served as `stale` with its own fetch time (`delistedDataset`); a driver
 *   no complete pass listed (only an unfinished pass saw it, or none completed yet) is `not_found`;
 * - drivers that cannot be a public Driver (driver.mapper.ts) are skipped, never padded out;
 * - `expand=groups` loads each round's stored groups of the same connection in one query;
 * - page filling (limit, byte budget, skipped rows) is read-page.ts.
 */
import { DRIVER_DIRECTORY_REASON_CODES } from '@switchyard/domain';
import { RpcError, type DatasetStatusV1, type FlatGroupV1, type GetDriverReplyV1, type GetDriverRequestV1, type ListDriversReplyV1, type ListDriversRequestV1 } from '@switchyard/messaging';
import type { Em, Orm } from '@switchyard/persistence';
import { ConnectionConfigStore } from '@switchyard/service-kit';
import { ROSTER_DATASETS, RosterPassRepository, type PassRow } from '../db/repositories/roster-pass.repository.js';
import { DriversReadRepository, type DriverDirectoryRow } from '../db/repositories/drivers-read.repository.js';
import { GroupsReadRepository } from '../db/repositories/groups-read.repository.js';
import { currentHorizon } from '../db/repositories/read-horizon.js';
import { DatasetStatusService } from './dataset-status.service.js';
import { driverOf, memberGroupIds, type DriverMapContext } from './driver.mapper.js';
import { delistedDataset, rosterPosition } from './roster-pass.service.js';
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
    private readonly passes = new RosterPassRepository(ROSTER_DATASETS.drivers),
  ) {
    this.configs = new ConnectionConfigStore(orm);
  }

  /** The map context of drivers served from `pass` (undefined: no complete pass yet). */
  private async context(em: Em, connectionId: string, pass: PassRow | undefined): Promise<Omit<DriverMapContext, 'expandedGroups'>> {
    const [drivers, groups, config] = await Promise.all([
      this.datasets.ofPass(em, connectionId, 'drivers', pass),
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
    const pass = await this.passes.current(em, connectionId, horizon);
    const base = await this.context(em, connectionId, pass);
    if (!pass) return { dataset: base.drivers, horizon, hasMore: false, drivers: [] };
    const page = await fillPage({
      limit,
      maxBytes,
      after: request.after,
      fetch: (after, n) => this.repository.page(em, { connectionId, horizon, after, limit: n, seq: pass.seq }),
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
    const [row, pass, roster] = await Promise.all([this.repository.byId(em, connectionId, driverId), this.passes.current(em, connectionId), this.passes.roster(em, connectionId, driverId)]);
    const position = row ? rosterPosition(roster, pass?.seq) : 'unlisted';
    if (!row || position === 'unlisted') throw new RpcError('not_found', 'no such driver on this connection');
    const directory = await this.context(em, connectionId, pass);
    const base = position === 'listed' ? { ...directory, drivers: resultStatus(directory.drivers) } : { ...directory, drivers: delistedDataset(directory.drivers, row.fetched_at) };
    const ctx = expand.groups ? { ...base, expandedGroups: await this.expansion(em, connectionId, [row]) } : base;
    const driver = driverOf(row, ctx);
    if (!driver) throw new RpcError('not_found', 'no such driver on this connection');
    return { dataset: base.drivers, driver };
  }
}
