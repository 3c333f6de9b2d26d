/**
 * The SQL of the stored trip reads, each trip rendered as the public Trip by PostgreSQL (decision
 * 0028) and its page decided by the read frame (`readFrame`). Keyset pages on `trip_window_idx`
 * (connection_id, started_at, id), ascending, never offset; every page keeps to the rows whose
 * inserting transaction is visible in the walk's horizon snapshot (migration 0003 `created_xid`),
 * taken by read-horizon.ts before the first page. A trip whose vehicle the connection's visibility
 * rules hide (vehicle-sql.ts `visibilitySql`, the one rule; a vehicle not stored has no status) is
 * left out by the WHERE, so it never appears, not even as an expansion. Units are normalized at
 * ingest: distance in km (absent when missing or invalid — the column is NULL then, never 0),
 * duration in ms; the distance basis stays internal. Locations appear only when their Field is
 * available. `vehicle`/`driver` are expanded when asked and the referenced record is stored and can
 * be an ExpandedVehicle / TripDriver (vehicle-sql.ts, driver-sql.ts); otherwise they stay ids (a
 * driver the provider did not identify is omitted). metadata.addedAt = fetch time of the first
 * batch that carried the trip; modifiedAt = fetch time of the last batch that changed it.
 * Id lists are validated `vcl_`/`drv_` ids (Crockford characters and `_` only) passed as one
 * PostgreSQL array literal, so `= any(…)` can use the vehicle and driver indexes.
 */
import type { DriverId, VehicleId, VisibilityRules } from '@switchyard/domain';
import type { TripPositionV1 } from '@switchyard/messaging';
import { isoSql, readQuery, tableNamer, type Em } from '@switchyard/persistence';
import { positionTimeSql, readFrame, type FramedPage, type FrameRows } from '@switchyard/service-kit';
import { driverShownSql, tripDriverSql } from './driver-sql.js';
import { inHorizon } from './read-horizon.js';
import { entityStatusSql, expandedVehicleSql, rulesParam, vehicleEntitySql, vehicleGroupsJoinSql, visibilitySql } from './vehicle-sql.js';

/** Table names of the directory's schema (persistence `tableNamer`). */
type TableNames = (table: string) => string;

export interface TripPageQuery {
  connectionId: string;
  horizon: string;
  after?: TripPositionV1;
  from?: string;
  to?: string;
  vehicleIds: readonly VehicleId[] | readonly string[];
  driverIds: readonly DriverId[] | readonly string[];
}

/** How a read renders its trips: the connection's rules, what to expand, the group directory's fetch time (an expanded vehicle's membership). */
export interface TripRendering {
  rules: VisibilityRules;
  expand: { vehicle: boolean; driver: boolean };
  directoryFetchedAt: string | null;
}

/** `{a,b}`: only ever built from ids that passed their pattern (no quotes, commas or braces possible). */
export const arrayLiteral = (ids: readonly string[]) => `{${ids.join(',')}}`;

const location = (f: string) => `case when ${f} ->> 'status' = 'available' then jsonb_build_object('latitude', ${f} -> 'value' -> 'latitude', 'longitude', ${f} -> 'value' -> 'longitude') end`;

export class TripsReadRepository {
  /** `select body, position` of the trips `t` whose vehicle is shown (params first: rules, fetched, expand vehicle, expand driver; then the caller's conditions). */
  private static select(t: TableNames): string {
    const vehicle = `case when x.vehicle and v.id is not null and ${vehicleEntitySql('v')} then ${expandedVehicleSql('v', 'vg', 'x.fetched')} else to_jsonb(t.vehicle_id) end`;
    const driver = `case when t.driver_id is null then null when x.driver and d.id is not null and ${driverShownSql('d')} then ${tripDriverSql('d')} else to_jsonb(t.driver_id) end`;
    return `select (jsonb_strip_nulls(jsonb_build_object('id', t.id, 'sourceId', t.source_id, 'provider', t.provider, 'driver', ${driver},
              'startedAt', ${isoSql('t.started_at')}, 'endedAt', ${isoSql('t.ended_at')}, 'duration', t.duration_ms::float8,
              'distance', case when t.distance_km >= 0 and t.distance_km < 'Infinity'::float8 then t.distance_km end,
              'startLocation', ${location('t.start_location')}, 'endLocation', ${location('t.end_location')},
              'metadata', jsonb_build_object('addedAt', ${isoSql('t.first_seen_at')}, 'modifiedAt', ${isoSql('t.modified_at')})))
              || jsonb_build_object('vehicle', ${vehicle}))::json as body,
            json_build_object('startedAt', ${positionTimeSql('t.started_at')}, 'id', t.id) as position
       from ${t('trip')} t
       cross join (select ?::jsonb as rules, ?::text as fetched, ?::boolean as vehicle, ?::boolean as driver) x
       left join ${t('vehicle')} v on v.id = t.vehicle_id
       ${vehicleGroupsJoinSql(t, 'v', 'vg', 'false', 'x.vehicle')}
       left join ${t('driver')} d on x.driver and d.id = t.driver_id
      where ${visibilitySql('t.vehicle_source_id', entityStatusSql('v.status'), 'x.rules')} = 'visible'`;
  }

  private static params(r: TripRendering): unknown[] {
    return [rulesParam(r.rules), r.directoryFetchedAt, r.expand.vehicle, r.expand.driver];
  }

  /** The frame rows of a trips page, table names from `t` (what `page` runs; the bench baseline runs the same statement over bare pg). */
  static pageRows(t: TableNames, q: TripPageQuery, r: TripRendering): FrameRows {
    const where = ['t.connection_id = ?::uuid', inHorizon('t')];
    const params: unknown[] = [...TripsReadRepository.params(r), q.connectionId, q.horizon];
    if (q.after) {
      where.push('(t.started_at, t.id) > (?::timestamptz, ?)');
      params.push(q.after.startedAt, q.after.id);
    }
    if (q.from !== undefined) {
      where.push('t.started_at >= ?::timestamptz');
      params.push(q.from);
    }
    if (q.to !== undefined) {
      where.push('t.started_at < ?::timestamptz');
      params.push(q.to);
    }
    if (q.vehicleIds.length > 0) {
      where.push('t.vehicle_id = any(?::text[])');
      params.push(arrayLiteral(q.vehicleIds));
    }
    if (q.driverIds.length > 0) {
      where.push('t.driver_id = any(?::text[])');
      params.push(arrayLiteral(q.driverIds));
    }
    return { sql: `${TripsReadRepository.select(t)} and ${where.join(' and ')} order by t.started_at, t.id`, params };
  }

  /** A frame page of the connection's shown trips started in the window, ascending started_at then id, inside the horizon. */
  page(em: Em, q: TripPageQuery, r: TripRendering, page: { limit: number; maxBytes: number }): Promise<FramedPage<TripPositionV1>> {
    return readFrame(em, TripsReadRepository.pageRows(tableNamer(em), q, r), page);
  }

  /** One shown trip of the connection as its Trip text; undefined when none (not stored, another connection's, its vehicle hidden). */
  async byId(em: Em, connectionId: string, tripId: string, r: TripRendering): Promise<string | undefined> {
    const [row] = await readQuery<{ body: string }>(em, `select body::text as body from (${TripsReadRepository.select(tableNamer(em))} and t.id = ? and t.connection_id = ?::uuid) q`, [
      ...TripsReadRepository.params(r),
      tripId,
      connectionId,
    ]);
    return row?.body;
  }

  /**
   * TripPage coverage.completedUnits: trip collection units whose final batch the directory
   * committed for the connection (from the ingest ledger's stored receipts). One range of
   * `ingest_batch_connection_idx` (migration 0010): the connection's trips batches, at most the
   * INGEST stream's 7 days of them (the ledger is pruned with its max age).
   */
  async completedUnits(em: Em, connectionId: string): Promise<number> {
    const [row] = await readQuery<{ n: number }>(
      em,
      `select count(distinct unit_id)::int as n from ${tableNamer(em)('ingest_batch')}
        where connection_id = ?::uuid and kind = 'trips' and status = 'committed' and (receipt->>'final')::boolean`,
      [connectionId],
    );
    return row?.n ?? 0;
  }
}
