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
 * - each Driver is rendered by PostgreSQL (driver-sql.ts); drivers that cannot be a public Driver
 *   are left out, never padded out; `expand=groups` renders each stored group in the same statement;
 * - the page (limit, byte budget) is decided by the read frame (`readFrame`, decision 0028) and
 *   travels as JSON text in a framed reply.
 */
import { DRIVER_DIRECTORY_REASON_CODES } from '@switchyard/domain';
import { RpcError, type DatasetStatusV1, type GetDriverReplyV1, type GetDriverRequestV1, type ListDriversReplyV1, type ListDriversRequestV1 } from '@switchyard/messaging';
import type { Em, Orm } from '@switchyard/persistence';
import { ConnectionConfigStore } from '@switchyard/service-kit';
import { membershipContext } from '../db/repositories/driver-sql.js';
import { ROSTER_DATASETS, RosterPassRepository, type PassRow } from '../db/repositories/roster-pass.repository.js';
import { DriversReadRepository } from '../db/repositories/drivers-read.repository.js';
import { currentHorizon } from '../db/repositories/read-horizon.js';
import { DatasetStatusService } from './dataset-status.service.js';
import { delistedDataset, rosterPosition } from './roster-pass.service.js';
import { resultStatus } from './read-page.js';

/** The dataset with an errorCode from the DriverDirectory enum (or null). */
export const driverDataset = (s: DatasetStatusV1): DatasetStatusV1 => ({
  ...s,
  errorCode: (DRIVER_DIRECTORY_REASON_CODES as readonly (string | null)[]).includes(s.errorCode) ? s.errorCode : null,
});

interface DriverDatasets {
  drivers: DatasetStatusV1;
  groups: DatasetStatusV1;
  inventoryEnabled: boolean;
}

export class DriversReadService {
  private readonly configs: ConnectionConfigStore;

  constructor(
    orm: Orm,
    private readonly repository = new DriversReadRepository(),
    private readonly datasets = new DatasetStatusService(),
    private readonly passes = new RosterPassRepository(ROSTER_DATASETS.drivers),
  ) {
    this.configs = new ConnectionConfigStore(orm);
  }

  /** The datasets of drivers served from `pass` (undefined: no complete pass yet). */
  private async context(em: Em, connectionId: string, pass: PassRow | undefined): Promise<DriverDatasets> {
    const [drivers, groups, config] = await Promise.all([
      this.datasets.ofPass(em, connectionId, 'drivers', pass),
      this.datasets.status(em, connectionId, 'groups'),
      this.configs.get(connectionId),
    ]);
    return { drivers: driverDataset(drivers), groups, inventoryEnabled: config?.optIns.groupInventory ?? false };
  }

  async list(em: Em, request: ListDriversRequestV1): Promise<ListDriversReplyV1> {
    const { connectionId, limit, maxBytes, expand } = request;
    const horizon = request.horizon ?? (await currentHorizon(em));
    const pass = await this.passes.current(em, connectionId, horizon);
    const base = await this.context(em, connectionId, pass);
    if (!pass) return { meta: { dataset: base.drivers, horizon, hasMore: false }, body: '[]' };
    const rendering = { expandGroups: expand.groups, membership: membershipContext(base.drivers, base.groups, base.inventoryEnabled) };
    const page = await this.repository.page(em, { connectionId, horizon, seq: pass.seq, ...(request.after ? { after: request.after } : {}) }, rendering, { limit, maxBytes });
    // The Drivers travel as the JSON text PostgreSQL rendered and the byte budget was counted on (a framed reply).
    return { meta: { dataset: base.drivers, horizon, hasMore: page.hasMore, ...(page.hasMore && page.last ? { next: page.last } : {}) }, body: page.items };
  }

  async get(em: Em, request: GetDriverRequestV1): Promise<GetDriverReplyV1> {
    const { connectionId, driverId, expand } = request;
    const [row, pass, roster] = await Promise.all([this.repository.stored(em, connectionId, driverId), this.passes.current(em, connectionId), this.passes.roster(em, connectionId, driverId)]);
    const position = row ? rosterPosition(roster, pass?.seq) : 'unlisted';
    if (!row || position === 'unlisted') throw new RpcError('not_found', 'no such driver on this connection');
    const directory = await this.context(em, connectionId, pass);
    const drivers = position === 'listed' ? resultStatus(directory.drivers) : delistedDataset(directory.drivers, row.fetched_at);
    const body = await this.repository.byId(em, connectionId, driverId, { expandGroups: expand.groups, membership: membershipContext(drivers, directory.groups, directory.inventoryEnabled) });
    if (body === undefined) throw new RpcError('not_found', 'no such driver on this connection');
    return { meta: { dataset: drivers }, body };
  }
}
