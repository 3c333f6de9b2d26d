/**
 * Trips read use cases (spec 2.7, 4.2): a TripPage of completed trips of the connection started in
 * [from, to), optionally limited to vehicle and/or driver ids, ascending startedAt then id, and one
 * trip by id. Never contacts a provider.
 *
 * Page filling (read-page.ts fillPage, shared with the other list reads): rows are scanned in
 * keyset order in chunks; a trip whose vehicle the connection's
 * visibility rules hide (libs/domain vehicleVisibility, the one rule) is skipped — so it never
 * appears, not even as an expansion — and the page takes trips until it holds `limit` of them or
 * the next one would push `results` over `maxBytes` (then `hasMore` and the next page starts after
 * the last trip served). One trip is always served even if alone it exceeds the budget: a trip is
 * bounded far below the 4 MiB response limit by its schema, so this only matters for test budgets.
 * The walk's horizon (a snapshot) is taken by the first page and kept by the cursor: rows inserted
 * after it never appear in that walk, rows updated after it appear once with their current content.
 * A connection whose configuration has not reached the directory yet answers an empty page
 * (and not_found by id): without its visibility rules nothing may be shown.
 */
import { hasVisibilityRules, vehicleVisibility, type VisibilityRules } from '@switchyard/domain';
import { RpcError, type GetTripReplyV1, type GetTripRequestV1, type ListTripsReplyV1, type ListTripsRequestV1, type TripPositionV1, type TripV1 } from '@switchyard/messaging';
import type { Em, Orm } from '@switchyard/persistence';
import { ConnectionConfigStore } from '@switchyard/service-kit';
import { currentHorizon } from '../db/repositories/read-horizon.js';
import { TripsReadRepository, type TripReadRow } from '../db/repositories/trips-read.repository.js';
import { DatasetStatusService } from './dataset-status.service.js';
import { fillPage, pageStatus } from './read-page.js';
import { tripOf, type TripMapContext } from './trip.mapper.js';
import { vehicleStatus } from './vehicle.mapper.js';

export class TripsReadService {
  private readonly configs: ConnectionConfigStore;

  constructor(
    orm: Orm,
    private readonly repository = new TripsReadRepository(),
    private readonly datasets = new DatasetStatusService(),
  ) {
    this.configs = new ConnectionConfigStore(orm);
  }

  private async rules(connectionId: string): Promise<VisibilityRules | undefined> {
    return this.configs.get(connectionId);
  }

  private context(row: TripReadRow, rules: VisibilityRules, base: Omit<TripMapContext, 'visibility'>): TripMapContext | undefined {
    const visibility = hasVisibilityRules(rules) ? vehicleVisibility({ sourceId: row.vehicle_source_id, status: vehicleStatus(row.vehicle_stored ? { status: row.vehicle_status } : null) }, rules) : 'visible';
    return visibility === 'visible' ? { ...base, visibility } : undefined;
  }

  async list(em: Em, request: ListTripsRequestV1): Promise<ListTripsReplyV1> {
    const { connectionId, limit, maxBytes, expand } = request;
    const horizon = request.horizon ?? (await currentHorizon(em));
    const [dataset, groups, completedUnits, rules] = await Promise.all([
      this.datasets.status(em, connectionId, 'trips'),
      expand.vehicle ? this.datasets.status(em, connectionId, 'groups') : undefined,
      this.repository.completedUnits(em, connectionId),
      this.rules(connectionId),
    ]);
    const coverage = { completedUnits, selection: 'completed_trips_started_in_window', completeness: 'not_established' } as const;
    if (!rules) return { meta: { dataset: pageStatus(dataset), horizon, hasMore: false, coverage }, body: '[]' };
    const base = { connectionId, expand, directoryFetchedAt: groups?.fetchedAt ?? null };
    const page = await fillPage<TripReadRow, TripV1, TripPositionV1>({
      limit,
      maxBytes,
      after: request.after,
      fetch: (after, n) => this.repository.page(em, { ...request, horizon, after, limit: n }),
      position: (row) => ({ startedAt: row.started_key, id: row.id }),
      items: (rows) =>
        rows.map((row) => {
          const ctx = this.context(row, rules, base);
          return ctx && tripOf(row, ctx);
        }),
    });
    // The trips travel as the JSON text their byte budget was counted on (a framed reply).
    return { meta: { dataset: pageStatus(dataset), horizon, hasMore: page.hasMore, coverage, ...(page.hasMore ? { next: page.next } : {}) }, body: page.json };
  }

  async get(em: Em, request: GetTripRequestV1): Promise<GetTripReplyV1> {
    const { connectionId, tripId, expand } = request;
    const [row, rules, groups] = await Promise.all([
      this.repository.byId(em, connectionId, tripId, expand),
      this.rules(connectionId),
      expand.vehicle ? this.datasets.status(em, connectionId, 'groups') : undefined,
    ]);
    const ctx = row && rules ? this.context(row, rules, { connectionId, expand, directoryFetchedAt: groups?.fetchedAt ?? null }) : undefined;
    if (!row || !ctx) throw new RpcError('not_found', 'no such trip on this connection');
    return { meta: {}, body: JSON.stringify(tripOf(row, ctx)) };
  }
}
