/**
 * Vehicle read use cases (spec 2.3, 2.6, 4.2), never contacting a provider:
 * - `list`: the connection's stored vehicles, ascending id, as core assets (`view: assets`) or
 *   VehicleEntity profiles (`view: profiles`), rendered by PostgreSQL (vehicle-sql.ts) and paged by
 *   the read frame (`readFrame`, decision 0028); vehicles the connection's visibility rules hide
 *   (vehicle-sql.ts `visibilitySql`, the one rule) are left out. A stored vehicle whose
 *   status is unknown (vehicle.mapper.ts vehicleStatus) cannot be a VehicleEntity (status is
 *   required): profiles skip it, the assets view lists it. The profile page status has no `stale` (old data is
 *   `available`; publishedAt tells its age).
 * - `get`: one vehicle by vcl_ id as VehicleEntity; `not_found` when it is another connection's,
 *   not stored, hidden, or has no status.
 * - `metadata`: VehicleMetadataResponse, its roster from the vehicles roster passes (the last
 *   COMPLETE vehicles pass is the current roster, roster-pass.service.ts, decisions 0011 and 0014),
 *   decided in this order:
 *   1. stored but hidden → `not_found` (hidden vehicles are absent everywhere);
 *   2. not stored while a complete vehicles pass exists → `not_found` (the roster does not know it);
 *   3. opt-in `vehicleMetadata` off → `disabled` (data, fetchedAt, rosterSeenAt null);
 *   4. not stored, or stored but listed by no complete pass yet (seen only by an unfinished pass, or
 *      before the first pass completes) → `pending` (data, fetchedAt, rosterSeenAt null): it enters
 *      the roster when its pass's final page commits;
 *   5. listed by an earlier complete pass, not by the current one → `not_in_current_roster` (its last
 *      known metadata is still served);
 *   6. listed by the current pass, and the vehicles dataset older than its freshness → `stale`;
 *      otherwise `available`.
 *   fetchedAt is the fetch time of the stored version; rosterSeenAt the final-page fetch time of the
 *   newest complete pass that listed it (the vehicle's newest fetch once that pass row is pruned,
 *   a day after a newer pass replaced it).
 * A connection whose configuration has not reached the directory yet answers an empty page and
 * not_found by id: without its visibility rules nothing may be shown.
 */
import { VEHICLE_METADATA_VERSION, vehicleMetadataSource } from '@switchyard/contracts';
import { isProvider } from '@switchyard/domain';
import {
  RpcError,
  type GetVehicleMetadataReplyV1,
  type GetVehicleMetadataRequestV1,
  type GetVehicleReplyV1,
  type GetVehicleRequestV1,
  type ListVehiclesReplyV1,
  type ListVehiclesRequestV1,
  type VehicleMetadataResponseV1,
} from '@switchyard/messaging';
import type { Em, Orm } from '@switchyard/persistence';
import { ConnectionConfigStore } from '@switchyard/service-kit';
import { currentHorizon } from '../db/repositories/read-horizon.js';
import { ROSTER_DATASETS, RosterPassRepository } from '../db/repositories/roster-pass.repository.js';
import { VehiclesReadRepository } from '../db/repositories/vehicles-read.repository.js';
import { DatasetStatusService } from './dataset-status.service.js';
import { pageStatus } from './read-page.js';
import { rosterPosition } from './roster-pass.service.js';

/** The VehicleMetadataResponse text around its cells (rendered by PostgreSQL, vehicle-sql.ts). */
function metadataText(response: Omit<VehicleMetadataResponseV1, 'data'>, data: { source: string; fields: string } | null): string {
  const head = JSON.stringify({ vehicleId: response.vehicleId, status: response.status }).slice(0, -1);
  const body = data === null ? 'null' : `{"version":${VEHICLE_METADATA_VERSION},"source":${JSON.stringify(data.source)},"fields":${data.fields}}`;
  return `${head},"data":${body},${JSON.stringify({ fetchedAt: response.fetchedAt, rosterSeenAt: response.rosterSeenAt, retrieval: response.retrieval }).slice(1)}`;
}

export class VehiclesReadService {
  private readonly configs: ConnectionConfigStore;

  constructor(
    orm: Orm,
    private readonly repository = new VehiclesReadRepository(),
    private readonly datasets = new DatasetStatusService(),
    private readonly passes = new RosterPassRepository(ROSTER_DATASETS.vehicles),
  ) {
    this.configs = new ConnectionConfigStore(orm);
  }

  async list(em: Em, request: ListVehiclesRequestV1): Promise<ListVehiclesReplyV1> {
    const { connectionId, limit, maxBytes, view, expand } = request;
    const horizon = request.horizon ?? (await currentHorizon(em));
    const [dataset, groupsDataset, rules] = await Promise.all([
      this.datasets.status(em, connectionId, 'vehicles'),
      view === 'profiles' ? this.datasets.status(em, connectionId, 'groups') : undefined,
      this.configs.get(connectionId),
    ]);
    if (!rules) return { meta: { dataset: pageStatus(dataset), horizon, hasMore: false }, body: '[]' };
    const rendering = { rules, expandGroups: view === 'profiles' && expand.groups, directoryFetchedAt: groupsDataset?.fetchedAt ?? null };
    const page = await this.repository.page(em, { connectionId, horizon, view, ...(request.after ? { after: request.after } : {}) }, rendering, { limit, maxBytes });
    // The vehicles travel as the JSON text PostgreSQL rendered and the byte budget was counted on (a framed reply).
    return { meta: { dataset: pageStatus(dataset), horizon, hasMore: page.hasMore, ...(page.hasMore && page.last ? { next: page.last } : {}) }, body: page.items };
  }

  async get(em: Em, request: GetVehicleRequestV1): Promise<GetVehicleReplyV1> {
    const { connectionId, vehicleId, expand } = request;
    const [rules, groupsDataset] = await Promise.all([this.configs.get(connectionId), this.datasets.status(em, connectionId, 'groups')]);
    const body = rules ? await this.repository.entity(em, connectionId, vehicleId, { rules, expandGroups: expand.groups, directoryFetchedAt: groupsDataset.fetchedAt }) : undefined;
    if (body === undefined) throw new RpcError('not_found', 'no such vehicle on this connection');
    // The VehicleEntity travels as JSON text (a framed reply), forwarded by the gateway unparsed.
    return { meta: {}, body };
  }

  async metadata(em: Em, request: GetVehicleMetadataRequestV1): Promise<GetVehicleMetadataReplyV1> {
    const { connectionId, vehicleId } = request;
    const config = await this.configs.get(connectionId);
    const notFound = () => new RpcError('not_found', 'no such vehicle on this connection');
    if (!config) throw notFound();
    const [row, dataset, pass, roster, listedAt] = await Promise.all([
      this.repository.metadata(em, connectionId, vehicleId, config),
      this.datasets.status(em, connectionId, 'vehicles'),
      this.passes.current(em, connectionId),
      this.passes.roster(em, connectionId, vehicleId),
      this.passes.lastListedAt(em, connectionId, vehicleId),
    ]);
    if (row && (row.visibility !== 'visible' || !isProvider(row.provider))) throw notFound();
    if (!row && pass) throw notFound();
    const none = { vehicleId, fetchedAt: null, rosterSeenAt: null, retrieval: 'stored' } as const;
    if (!config.optIns.vehicleMetadata) return { meta: {}, body: metadataText({ ...none, status: 'disabled' }, null) };
    const position = row ? rosterPosition(roster, pass?.seq) : 'unlisted';
    if (!row || !isProvider(row.provider) || row.fields === null || position === 'unlisted') return { meta: {}, body: metadataText({ ...none, status: 'pending' }, null) };
    const status = position === 'delisted' ? 'not_in_current_roster' : dataset.status === 'stale' ? 'stale' : 'available';
    const response = { vehicleId, status, fetchedAt: row.fetched_at, rosterSeenAt: listedAt ?? row.last_seen_at, retrieval: 'stored' } as const;
    return { meta: {}, body: metadataText(response, { source: vehicleMetadataSource(row.provider), fields: row.fields }) };
  }
}
