/**
 * Trips read use cases (spec 2.7, 4.2): a TripPage of completed trips of the connection started in
 * [from, to), optionally limited to vehicle and/or driver ids, ascending startedAt then id, and one
 * trip by id. Never contacts a provider.
 * Each Trip is rendered by PostgreSQL (trips-read.repository.ts) and the page decided by the read
 * frame (`readFrame`, decision 0028): a trip whose vehicle the connection's visibility rules hide
 * (vehicle-sql.ts `visibilitySql`, the one rule) is left out — so it never appears, not even as an
 * expansion — and the page takes trips until it holds `limit` of them or the next one would push
 * `results` over `maxBytes` (then `hasMore` and the next page starts after the last trip served).
 * One trip is always served even if alone it exceeds the budget: a trip is bounded far below the
 * 4 MiB response limit by its schema, so this only matters for test budgets.
 * The walk's horizon (a snapshot) is taken by the first page and kept by the cursor: rows inserted
 * after it never appear in that walk, rows updated after it appear once with their current content.
 * A connection whose configuration has not reached the directory yet answers an empty page
 * (and not_found by id): without its visibility rules nothing may be shown.
 */
import { RpcError, type GetTripReplyV1, type GetTripRequestV1, type ListTripsReplyV1, type ListTripsRequestV1 } from '@switchyard/messaging';
import type { Em, Orm } from '@switchyard/persistence';
import { ConnectionConfigStore } from '@switchyard/service-kit';
import { currentHorizon } from '../db/repositories/read-horizon.js';
import { TripsReadRepository } from '../db/repositories/trips-read.repository.js';
import { DatasetStatusService } from './dataset-status.service.js';
import { pageStatus } from './read-page.js';

export class TripsReadService {
  private readonly configs: ConnectionConfigStore;

  constructor(
    orm: Orm,
    private readonly repository = new TripsReadRepository(),
    private readonly datasets = new DatasetStatusService(),
  ) {
    this.configs = new ConnectionConfigStore(orm);
  }

  async list(em: Em, request: ListTripsRequestV1): Promise<ListTripsReplyV1> {
    const { connectionId, limit, maxBytes, expand } = request;
    const horizon = request.horizon ?? (await currentHorizon(em));
    const [dataset, groups, completedUnits, rules] = await Promise.all([
      this.datasets.status(em, connectionId, 'trips'),
      expand.vehicle ? this.datasets.status(em, connectionId, 'groups') : undefined,
      this.repository.completedUnits(em, connectionId),
      this.configs.get(connectionId),
    ]);
    const coverage = { completedUnits, selection: 'completed_trips_started_in_window', completeness: 'not_established' } as const;
    if (!rules) return { meta: { dataset: pageStatus(dataset), horizon, hasMore: false, coverage }, body: '[]' };
    const { from, to, vehicleIds, driverIds, after } = request;
    const page = await this.repository.page(
      em,
      { connectionId, horizon, vehicleIds, driverIds, ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}), ...(after ? { after } : {}) },
      { rules, expand, directoryFetchedAt: groups?.fetchedAt ?? null },
      { limit, maxBytes },
    );
    // The trips travel as the JSON text PostgreSQL rendered and the byte budget was counted on (a framed reply).
    return { meta: { dataset: pageStatus(dataset), horizon, hasMore: page.hasMore, coverage, ...(page.hasMore && page.last ? { next: page.last } : {}) }, body: page.items };
  }

  async get(em: Em, request: GetTripRequestV1): Promise<GetTripReplyV1> {
    const { connectionId, tripId, expand } = request;
    const [rules, groups] = await Promise.all([this.configs.get(connectionId), expand.vehicle ? this.datasets.status(em, connectionId, 'groups') : undefined]);
    const body = rules ? await this.repository.byId(em, connectionId, tripId, { rules, expand, directoryFetchedAt: groups?.fetchedAt ?? null }) : undefined;
    if (body === undefined) throw new RpcError('not_found', 'no such trip on this connection');
    return { meta: {}, body };
  }
}
