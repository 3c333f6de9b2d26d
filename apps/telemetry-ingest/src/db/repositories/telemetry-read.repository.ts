/**
 * The SQL of the stored telemetry reads (telemetry-read.service.ts), all on the telemetry schema:
 * - `latest`: the latest_readings rows of one vehicle (primary-key range; ~0.4 ms, migration 0002);
 * - `locationsPage`: one keyset page of the connection's vehicles that have any latest reading,
 *   ascending vehicle id, each with its latest location row (or none);
 * - `historyPage`: one keyset page of one vehicle's metric in [start, end) in (observed_at, source)
 *   order — a range of the observations' primary key — keeping to the rows whose inserting
 *   transaction is visible in the walk's horizon (`created_xid`, migration 0003);
 * - `horizon`: the snapshot a walk's first page takes;
 * - the fault-observation projection (`vehicle_fault_observation`, fed by fault-feed's
 *   `events.faults.observed`). The hidden-vehicle projection is service-kit's VehicleVisibilityStore.
 * Timestamps come back as RFC 3339 text (isoSql, milliseconds); a history position keeps
 * microseconds so the keyset never skips or repeats a reading stored with finer precision.
 */
import { isoSql, query, tableNamer, type Em } from '@switchyard/persistence';

export interface ReadingRow {
  metric: string;
  observed_at: string;
  fetched_at: string;
  source: string;
  provider: string;
  vehicle_source_id: string;
  value: unknown;
  units: unknown;
}

export interface LocationPageRow {
  vehicle_id: string;
  vehicle_source_id: string;
  /** The latest location reading, null when the vehicle has readings but none of its location. */
  location: Omit<ReadingRow, 'metric' | 'provider' | 'vehicle_source_id'> | null;
}

export interface HistoryRow {
  seq: string;
  source: string;
  observed_at: string;
  fetched_at: string;
  value: unknown;
  units: unknown;
  /** observed_at with microseconds: the keyset position. */
  position_at: string;
}

export interface HistoryPageQuery {
  connectionId: string;
  vehicleId: string;
  metric: string;
  start: string;
  end: string;
  horizon: string;
  after?: { observedAt: string; source: string };
  limit: number;
}

const positionSql = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export class TelemetryReadRepository {
  async horizon(em: Em): Promise<string> {
    const [row] = await query<{ snapshot: string }>(em, 'select pg_current_snapshot()::text as snapshot');
    if (!row) throw new Error('pg_current_snapshot returned no row');
    return row.snapshot;
  }

  latest(em: Em, connectionId: string, vehicleId: string): Promise<ReadingRow[]> {
    return query<ReadingRow>(
      em,
      `select metric, ${isoSql('observed_at')} as observed_at, ${isoSql('fetched_at')} as fetched_at, source, provider, vehicle_source_id, value, units
       from ${tableNamer(em)('latest_readings')} where connection_id = ?::uuid and vehicle_id = ?`,
      [connectionId, vehicleId],
    );
  }

  locationsPage(em: Em, connectionId: string, after: string | undefined, limit: number): Promise<LocationPageRow[]> {
    const t = tableNamer(em);
    return query<LocationPageRow>(
      em,
      `select v.vehicle_id, v.vehicle_source_id,
              case when l.vehicle_id is null then null else json_build_object(
                'observed_at', ${isoSql('l.observed_at')}, 'fetched_at', ${isoSql('l.fetched_at')}, 'source', l.source, 'value', l.value, 'units', l.units) end as location
       from (select vehicle_id, min(vehicle_source_id) as vehicle_source_id from ${t('latest_readings')}
             where connection_id = ?::uuid and vehicle_id > ? group by vehicle_id order by vehicle_id limit ?) v
       left join ${t('latest_readings')} l on l.connection_id = ?::uuid and l.vehicle_id = v.vehicle_id and l.metric = 'location'
       order by v.vehicle_id`,
      [connectionId, after ?? '', limit, connectionId],
    );
  }

  historyPage(em: Em, q: HistoryPageQuery): Promise<HistoryRow[]> {
    const where = [
      'connection_id = ?::uuid',
      'vehicle_id = ?',
      'metric = ?',
      'observed_at >= ?::timestamptz',
      'observed_at < ?::timestamptz',
      'pg_visible_in_snapshot(created_xid::text::xid8, ?::pg_snapshot)',
    ];
    const params: unknown[] = [q.connectionId, q.vehicleId, q.metric, q.start, q.end, q.horizon];
    if (q.after) {
      where.push('(observed_at, source) > (?::timestamptz, ?)');
      params.push(q.after.observedAt, q.after.source);
    }
    params.push(q.limit);
    return query<HistoryRow>(
      em,
      `select seq::text as seq, source, ${isoSql('observed_at')} as observed_at, ${isoSql('fetched_at')} as fetched_at, value, units, ${positionSql('observed_at')} as position_at
       from ${tableNamer(em)('observations')} where ${where.join(' and ')} order by observed_at, source limit ?`,
      params,
    );
  }

  /** Moves each vehicle's fault observation time forward only (redelivered or reordered events change nothing); returns the rows moved. */
  async recordFaultObservations(em: Em, connectionId: string, vehicles: readonly { vehicleId: string; observedAt: string }[]): Promise<number> {
    const t = tableNamer(em)('vehicle_fault_observation');
    const rows = await query<{ vehicle_id: string }>(
      em,
      `insert into ${t} as f (connection_id, vehicle_id, observed_at)
       select ?::uuid, v.vehicle_id, max(v.observed_at) from json_to_recordset(?::json) as v(vehicle_id text, observed_at timestamptz) group by v.vehicle_id order by v.vehicle_id
       on conflict (connection_id, vehicle_id) do update set observed_at = excluded.observed_at, updated_at = now()
       where f.observed_at < excluded.observed_at
       returning vehicle_id`,
      [connectionId, JSON.stringify(vehicles.map((v) => ({ vehicle_id: v.vehicleId, observed_at: v.observedAt })))],
    );
    return rows.length;
  }

  /** When faults of the vehicle were last observed (projection of the fault context's events); null when never. */
  async faultsObservedAt(em: Em, connectionId: string, vehicleId: string): Promise<string | null> {
    const [row] = await query<{ observed_at: string }>(
      em,
      `select ${isoSql('observed_at')} as observed_at from ${tableNamer(em)('vehicle_fault_observation')} where connection_id = ?::uuid and vehicle_id = ?`,
      [connectionId, vehicleId],
    );
    return row?.observed_at ?? null;
  }
}
