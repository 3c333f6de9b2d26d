/**
 * Vehicle read use cases (spec 2.3, 2.6, 4.2), never contacting a provider:
 * - `list`: the connection's stored vehicles, ascending id, as core assets (`view: assets`) or
 *   VehicleEntity profiles (`view: profiles`), filled by read-page.ts `fillPage`; vehicles the
 *   connection's visibility rules hide (libs/domain vehicleVisibility, the one rule) are skipped. A stored vehicle whose
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
import { hasVisibilityRules, isProvider, vehicleVisibility, type VehicleVisibility, type VisibilityRules } from '@switchyard/domain';
import {
  RpcError,
  type CoreVehicleV1,
  type FlatGroupV1,
  type GetVehicleMetadataRequestV1,
  type GetVehicleReplyV1,
  type GetVehicleRequestV1,
  type ListVehiclesReplyV1,
  type ListVehiclesRequestV1,
  type VehicleEntityV1,
  type VehicleMetadataResponseV1,
} from '@switchyard/messaging';
import type { Em, Orm } from '@switchyard/persistence';
import { ConnectionConfigStore } from '@switchyard/service-kit';
import { GroupsReadRepository } from '../db/repositories/groups-read.repository.js';
import { currentHorizon } from '../db/repositories/read-horizon.js';
import { ROSTER_DATASETS, RosterPassRepository } from '../db/repositories/roster-pass.repository.js';
import { VehiclesReadRepository, type VehicleRow } from '../db/repositories/vehicles-read.repository.js';
import { DatasetStatusService } from './dataset-status.service.js';
import { expansionById, fillPage, pageStatus } from './read-page.js';
import { rosterPosition } from './roster-pass.service.js';
import { flatGroupOf } from './group.mapper.js';
import { coreVehicle, metadataFields, withExpandedGroups } from './vehicle-entity.mapper.js';
import { expandedVehicle, storedVehicleStatus } from './vehicle.mapper.js';


export function visibilityOf(row: Parameters<typeof storedVehicleStatus>[0] & { source_id: string }, rules: VisibilityRules): VehicleVisibility {
  return hasVisibilityRules(rules) ? vehicleVisibility({ sourceId: row.source_id, status: storedVehicleStatus(row) }, rules) : 'visible';
}

export class VehiclesReadService {
  private readonly configs: ConnectionConfigStore;

  constructor(
    orm: Orm,
    private readonly repository = new VehiclesReadRepository(),
    private readonly datasets = new DatasetStatusService(),
    private readonly groups = new GroupsReadRepository(),
    private readonly passes = new RosterPassRepository(ROSTER_DATASETS.vehicles),
  ) {
    this.configs = new ConnectionConfigStore(orm);
  }

  /** The stored groups among the memberships of `entities`, as expanded Groups by id (the drivers' mapping, group.mapper.ts). */
  private expandedGroups(em: Em, connectionId: string, entities: readonly VehicleEntityV1[]): Promise<Map<string, FlatGroupV1>> {
    return expansionById(
      entities.flatMap((v) => (v.groups ?? []).filter((g): g is string => typeof g === 'string')),
      (ids) => this.groups.byIds(em, connectionId, ids),
      flatGroupOf,
    );
  }

  async list(em: Em, request: ListVehiclesRequestV1): Promise<ListVehiclesReplyV1> {
    const { connectionId, limit, maxBytes, view, expand } = request;
    const horizon = request.horizon ?? (await currentHorizon(em));
    const [dataset, groupsDataset, rules] = await Promise.all([
      this.datasets.status(em, connectionId, 'vehicles'),
      view === 'profiles' ? this.datasets.status(em, connectionId, 'groups') : undefined,
      this.configs.get(connectionId),
    ]);
    const empty = view === 'assets' ? { assets: [] } : { profiles: [] };
    if (!rules) return { dataset: pageStatus(dataset), horizon, hasMore: false, ...empty };
    const directoryFetchedAt = groupsDataset?.fetchedAt ?? null;
    const page = await fillPage<VehicleRow, CoreVehicleV1 | VehicleEntityV1, string>({
      limit,
      maxBytes,
      after: request.after,
      fetch: (after, n) => this.repository.page(em, { connectionId, horizon, after, limit: n }),
      position: (row) => row.id,
      items: async (rows) => {
        const items = rows.map((row) => {
          const visibility = visibilityOf(row, rules);
          if (visibility !== 'visible') return undefined;
          return view === 'assets' ? coreVehicle(row) : expandedVehicle(row, { connectionId, visibility, directoryFetchedAt });
        });
        if (view === 'assets' || !expand.groups) return items;
        const profiles = items as (VehicleEntityV1 | undefined)[];
        const groups = await this.expandedGroups(em, connectionId, profiles.filter((v) => v !== undefined));
        return profiles.map((v) => v && withExpandedGroups(v, groups));
      },
    });
    const results = view === 'assets' ? { assets: page.items as CoreVehicleV1[] } : { profiles: page.items as VehicleEntityV1[] };
    return { dataset: pageStatus(dataset), horizon, hasMore: page.hasMore, ...results, ...(page.next ? { next: page.next } : {}) };
  }

  async get(em: Em, request: GetVehicleRequestV1): Promise<GetVehicleReplyV1> {
    const { connectionId, vehicleId, expand } = request;
    const [row, rules, groupsDataset] = await Promise.all([this.repository.byId(em, connectionId, vehicleId), this.configs.get(connectionId), this.datasets.status(em, connectionId, 'groups')]);
    const visibility = row && rules ? visibilityOf(row, rules) : undefined;
    const vehicle: VehicleEntityV1 | undefined = row && visibility === 'visible' ? expandedVehicle(row, { connectionId, visibility, directoryFetchedAt: groupsDataset.fetchedAt }) : undefined;
    if (!vehicle) throw new RpcError('not_found', 'no such vehicle on this connection');
    // The VehicleEntity travels as JSON text (a framed reply), forwarded by the gateway unparsed.
    return { meta: {}, body: JSON.stringify(expand.groups ? withExpandedGroups(vehicle, await this.expandedGroups(em, connectionId, [vehicle])) : vehicle) };
  }

  async metadata(em: Em, request: GetVehicleMetadataRequestV1): Promise<VehicleMetadataResponseV1> {
    const { connectionId, vehicleId } = request;
    const [row, config, dataset, pass, roster, listedAt] = await Promise.all([
      this.repository.byId(em, connectionId, vehicleId),
      this.configs.get(connectionId),
      this.datasets.status(em, connectionId, 'vehicles'),
      this.passes.current(em, connectionId),
      this.passes.roster(em, connectionId, vehicleId),
      this.passes.lastListedAt(em, connectionId, vehicleId),
    ]);
    const notFound = () => new RpcError('not_found', 'no such vehicle on this connection');
    if (!config) throw notFound();
    if (row && (visibilityOf(row, config) !== 'visible' || !isProvider(row.provider))) throw notFound();
    if (!row && pass) throw notFound();
    const none = { vehicleId, data: null, fetchedAt: null, rosterSeenAt: null, retrieval: 'stored' } as const;
    if (!config.optIns.vehicleMetadata) return { ...none, status: 'disabled' };
    const position = row ? rosterPosition(roster, pass?.seq) : 'unlisted';
    if (!row || !isProvider(row.provider) || position === 'unlisted') return { ...none, status: 'pending' };
    const status = position === 'delisted' ? 'not_in_current_roster' : dataset.status === 'stale' ? 'stale' : 'available';
    const source = vehicleMetadataSource(row.provider) as 'samsara:vehicles' | 'motive:vehicles' | 'geotab:Device';
    return {
      vehicleId,
      status,
      data: { version: VEHICLE_METADATA_VERSION, source, fields: metadataFields(row, row.provider) },
      fetchedAt: row.fetched_at,
      rosterSeenAt: listedAt ?? row.last_seen_at,
      retrieval: 'stored',
    };
  }
}
