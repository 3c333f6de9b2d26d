/**
 * The SQL of the stored vehicle reads, each vehicle rendered by PostgreSQL (vehicle-sql.ts) under
 * the connection's visibility rules (one jsonb parameter). Keyset pages on `vehicle_connection_idx`
 * (connection_id, id), ascending, never offset, kept to the rows visible in the walk's horizon
 * snapshot (migration 0003 `created_xid`; the horizon itself is taken by read-horizon.ts) and
 * decided by the read frame (`readFrame`, decision 0028): hidden vehicles — and in the profiles
 * view vehicles that cannot be a VehicleEntity — are left out by the WHERE. The roster position of
 * a vehicle comes from its roster passes (roster-pass.repository.ts, migration 0015).
 */
import type { VisibilityRules } from '@switchyard/domain';
import { isoSql, readQuery, tableNamer, type Em } from '@switchyard/persistence';
import { readFrame, type FramedPage } from '@switchyard/service-kit';
import { idPageTail, type IdPageQuery } from './read-horizon.js';
import { knownProviderSql } from './read-sql.js';
import { coreVehicleSql, entityStatusSql, expandedVehicleSql, metadataFieldsSql, rulesParam, vehicleEntitySql, vehicleGroupsJoinSql, vehicleVisibleSql, visibilitySql } from './vehicle-sql.js';

/** How a read renders its vehicles: the connection's rules, `expand=groups`, the group directory's fetch time. */
export interface VehicleRendering {
  rules: VisibilityRules;
  expandGroups: boolean;
  directoryFetchedAt: string | null;
}

/** What the metadata read decides on, and the cells it serves. */
export interface VehicleMetadataRow {
  visibility: string;
  provider: string;
  fetched_at: string;
  last_seen_at: string;
  /** The 15 cells as JSON text; null for a provider the public shape does not know. */
  fields: string | null;
}

const PARAMS_JOIN = 'cross join (select ?::jsonb as rules, ?::text as fetched, ?::boolean as expand) x';
const params = (r: VehicleRendering) => [rulesParam(r.rules), r.directoryFetchedAt, r.expandGroups];

export class VehiclesReadRepository {
  /** `select body, position` of every vehicle `v` shown in `view` (params first, then the caller's WHERE). */
  private static select(t: (table: string) => string, view: 'assets' | 'profiles'): string {
    const body = view === 'assets' ? coreVehicleSql('v') : expandedVehicleSql('v', 'vg', 'x.fetched');
    return `select ${body}::json as body, to_json(v.id) as position
      from ${t('vehicle')} v ${PARAMS_JOIN}
      ${view === 'assets' ? '' : vehicleGroupsJoinSql(t, 'v', 'vg', 'x.expand')}`;
  }

  private static shown(view: 'assets' | 'profiles'): string {
    return view === 'assets' ? vehicleVisibleSql('v', 'x.rules') : `${vehicleVisibleSql('v', 'x.rules')} and ${vehicleEntitySql('v')}`;
  }

  /** A frame page of the connection's shown vehicles in `view`, ascending id, inside the horizon. */
  page(em: Em, q: Omit<IdPageQuery, 'limit'> & { view: 'assets' | 'profiles' }, r: VehicleRendering, page: { limit: number; maxBytes: number }): Promise<FramedPage<string>> {
    const tail = idPageTail('v', { ...q, filter: { sql: VehiclesReadRepository.shown(q.view), params: [] } });
    return readFrame(em, { sql: `${VehiclesReadRepository.select(tableNamer(em), q.view)} ${tail.sql}`, params: [...params(r), ...tail.params] }, page);
  }

  /** The statement of `entity` (one row, `body`), table names from `t`: the bench baseline runs it over bare pg. */
  static entityStatement(t: (table: string) => string, connectionId: string, vehicleId: string, r: VehicleRendering): { sql: string; params: unknown[] } {
    return {
      sql: `select body::text as body from (${VehiclesReadRepository.select(t, 'profiles')} where v.id = ? and v.connection_id = ?::uuid and ${VehiclesReadRepository.shown('profiles')}) q`,
      params: [...params(r), vehicleId, connectionId],
    };
  }

  /** The VehicleEntity `vehicleId` of the connection as JSON text; undefined when it is not stored, hidden or no entity. */
  async entity(em: Em, connectionId: string, vehicleId: string, r: VehicleRendering): Promise<string | undefined> {
    const { sql, params: values } = VehiclesReadRepository.entityStatement(tableNamer(em), connectionId, vehicleId, r);
    const [row] = await readQuery<{ body: string }>(em, sql, values);
    return row?.body;
  }

  /** The stored vehicle `vehicleId` of the connection for the metadata read: its visibility under `rules`, times and cells. */
  async metadata(em: Em, connectionId: string, vehicleId: string, rules: VisibilityRules): Promise<VehicleMetadataRow | undefined> {
    const [row] = await readQuery<VehicleMetadataRow>(
      em,
      `select ${visibilitySql('v.source_id', entityStatusSql('v.status'), 'x.rules')} as visibility, v.provider,
              ${isoSql('v.fetched_at')} as fetched_at, ${isoSql('v.last_seen_at')} as last_seen_at,
              case when ${knownProviderSql('v.provider')} then ${metadataFieldsSql('v')}::text end as fields
         from ${tableNamer(em)('vehicle')} v cross join (select ?::jsonb as rules) x where v.id = ? and v.connection_id = ?::uuid`,
      [rulesParam(rules), vehicleId, connectionId],
    );
    return row;
  }
}
