/**
 * The SQL of the stored trip reads. Keyset pages on `trip_window_idx` (connection_id, started_at,
 * id), ascending, never offset; every page keeps to the rows whose inserting transaction is visible
 * in the walk's horizon snapshot (migration 0003 `created_xid`), taken by read-horizon.ts before
 * the first page. Timestamps come back as RFC 3339 text and the referenced vehicle and driver as
 * json built in SQL only when they are expanded (performance.md: text timestamps double a page's
 * throughput). The vehicle's status and source id always come back: the visibility rule needs them.
 * Id lists are validated `vcl_`/`drv_` ids (Crockford characters and `_` only) passed as one
 * PostgreSQL array literal, so `= any(…)` can use the vehicle and driver indexes.
 */
import type { DriverId, Field, LatLon, VehicleId } from '@switchyard/domain';
import { isoSql, query, tableNamer, type Em } from '@switchyard/persistence';
import { inHorizon } from './read-horizon.js';

/** A stored vehicle as the read mappers take it (vehicle.mapper.ts). */
export interface VehicleReadRow {
  id: string;
  source_id: string;
  provider: string;
  status: string | null;
  name: string | null;
  vin: string | null;
  metadata: Record<string, Field<unknown>>;
  added_at: string;
  modified_at: string;
  fetched_at: string;
}

/** A stored driver as the read mappers take it. */
export interface DriverReadRow {
  id: string;
  source_id: string;
  provider: string;
  status: string | null;
  fields: Record<string, Field<string>>;
  added_at: string;
  modified_at: string;
}

export interface TripReadRow {
  id: string;
  source_id: string;
  provider: string;
  vehicle_id: string;
  vehicle_source_id: string;
  /** Whether the trip's vehicle is stored, and its status column (vehicle.mapper.ts vehicleStatus). */
  vehicle_stored: boolean;
  vehicle_status: string | null;
  driver_id: string | null;
  started_at: string;
  /** started_at at full stored precision (microseconds): the keyset position. */
  started_key: string;
  ended_at: string;
  duration_ms: number;
  distance_km: number | null;
  start_location: Field<LatLon>;
  end_location: Field<LatLon>;
  added_at: string;
  modified_at: string;
  vehicle: VehicleReadRow | null;
  driver: DriverReadRow | null;
}

export interface TripPageQuery {
  connectionId: string;
  horizon: string;
  after?: { startedAt: string; id: string };
  from?: string;
  to?: string;
  vehicleIds: readonly VehicleId[] | readonly string[];
  driverIds: readonly DriverId[] | readonly string[];
  expand: { vehicle: boolean; driver: boolean };
  limit: number;
}

const vehicleJson = (v: string) =>
  `json_build_object('id', ${v}.id, 'source_id', ${v}.source_id, 'provider', ${v}.provider, 'status', ${v}.status, 'name', ${v}.name, 'vin', ${v}.vin,
     'metadata', ${v}.metadata, 'added_at', ${isoSql(`${v}.first_seen_at`)}, 'modified_at', ${isoSql(`${v}.modified_at`)}, 'fetched_at', ${isoSql(`${v}.fetched_at`)})`;
const driverJson = (d: string) =>
  `json_build_object('id', ${d}.id, 'source_id', ${d}.source_id, 'provider', ${d}.provider, 'status', ${d}.status, 'fields', ${d}.fields,
     'added_at', ${isoSql(`${d}.first_seen_at`)}, 'modified_at', ${isoSql(`${d}.modified_at`)})`;

/** Microsecond RFC 3339 text: a keyset position must not lose precision (isoSql keeps milliseconds). */
const keySql = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** `{a,b}`: only ever built from ids that passed their pattern (no quotes, commas or braces possible). */
export const arrayLiteral = (ids: readonly string[]) => `{${ids.join(',')}}`;

export class TripsReadRepository {
  private select(em: Em, expand: TripPageQuery['expand']): { sql: string; params: unknown[] } {
    const t = tableNamer(em);
    return {
      sql: `select t.id, t.source_id, t.provider, t.vehicle_id, t.vehicle_source_id, v.id is not null as vehicle_stored, v.status as vehicle_status, t.driver_id,
              ${isoSql('t.started_at')} as started_at, ${keySql('t.started_at')} as started_key, ${isoSql('t.ended_at')} as ended_at, t.duration_ms::float8 as duration_ms, t.distance_km,
              t.start_location, t.end_location, ${isoSql('t.first_seen_at')} as added_at, ${isoSql('t.modified_at')} as modified_at,
              case when ?::boolean and v.id is not null then ${vehicleJson('v')} end as vehicle,
              case when d.id is not null then ${driverJson('d')} end as driver
         from ${t('trip')} t
         left join ${t('vehicle')} v on v.id = t.vehicle_id
         left join ${t('driver')} d on ?::boolean and d.id = t.driver_id`,
      params: [expand.vehicle, expand.driver],
    };
  }

  async page(em: Em, q: TripPageQuery): Promise<TripReadRow[]> {
    const { sql, params } = this.select(em, q.expand);
    const where = ['t.connection_id = ?::uuid', inHorizon('t')];
    params.push(q.connectionId, q.horizon);
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
    params.push(q.limit);
    return query<TripReadRow>(em, `${sql} where ${where.join(' and ')} order by t.started_at, t.id limit ?`, params);
  }

  async byId(em: Em, connectionId: string, tripId: string, expand: TripPageQuery['expand']): Promise<TripReadRow | undefined> {
    const { sql, params } = this.select(em, expand);
    const [row] = await query<TripReadRow>(em, `${sql} where t.id = ? and t.connection_id = ?::uuid`, [...params, tripId, connectionId]);
    return row;
  }

  /**
   * TripPage coverage.completedUnits: trip collection units whose final batch the directory
   * committed for the connection (from the ingest ledger's stored receipts). One range of
   * `ingest_batch_connection_idx` (migration 0010): the connection's trips batches, at most the
   * INGEST stream's 7 days of them (the ledger is pruned with its max age).
   */
  async completedUnits(em: Em, connectionId: string): Promise<number> {
    const [row] = await query<{ n: number }>(
      em,
      `select count(distinct unit_id)::int as n from ${tableNamer(em)('ingest_batch')}
        where connection_id = ?::uuid and kind = 'trips' and status = 'committed' and (receipt->>'final')::boolean`,
      [connectionId],
    );
    return row?.n ?? 0;
  }
}
