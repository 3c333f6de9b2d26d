/**
 * The SQL of the stored telemetry reads (telemetry-read.service.ts), all on the telemetry schema,
 * each a prepared statement (readQuery, service-kit readFrame):
 * - `latest`: the latest_readings rows of one vehicle (primary-key range; ~0.4 ms, migration 0002);
 * - `locationsPage`: one frame page (service-kit read-frame.ts: limit, byte budget and limit + 1 in
 *   one statement, items rendered as JSON by PostgreSQL) of the connection's vehicles that have any
 *   latest reading, ascending vehicle id, each with its latest location's status;
 * - `historyPage`: one frame page of one vehicle's metric in [start, end) in (observed_at, source)
 *   order — a range of the observations' primary key — keeping to the rows whose inserting
 *   transaction is visible in the walk's horizon (`created_xid`, migration 0003);
 * Values outside the public shape are left out by predicates built from the contract's own zod
 * schemas (service-kit json-shape.ts), never a copy of their bounds.
 * - `horizon`: the snapshot a walk's first page takes;
 * - the fault-observation projection (`vehicle_fault_observation`, fed by fault-feed's
 *   `events.faults.observed`). Hidden vehicles are left out by the one visibility rule's SQL
 *   (service-kit visibilityCte / visibleVehicleSql, decision 0029).
 * Timestamps come back as RFC 3339 text (isoSql, milliseconds); a history position keeps
 * microseconds so the keyset never skips or repeats a reading stored with finer precision.
 */
import { TELEMETRY_METRICS, type TelemetryMetric } from '@switchyard/domain';
import { METRIC_VALUES, unitConversionV1 } from '@switchyard/messaging';
import { isoSql, query, readQuery, tableNamer, type Em } from '@switchyard/persistence';
import { jsonShapeSql, positionTimeSql, readFrame, visibilityCte, visibleVehicleSql, type FramedPage } from '@switchyard/service-kit';

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

export interface HistoryPageQuery {
  connectionId: string;
  vehicleId: string;
  metric: TelemetryMetric;
  start: string;
  end: string;
  horizon: string;
  after?: { observedAt: string; source: string };
}

/** Frame page limits plus the clock and freshness a location's status is judged by. */
export interface LocationsPageQuery {
  connectionId: string;
  after?: string;
  now: string;
  freshnessSeconds: number;
}

/** The public shape checks, from the contract (METRIC_VALUES, unitConversionV1), per metric. */
const VALUE_OK = Object.fromEntries(TELEMETRY_METRICS.map((m) => [m, (column: string) => jsonShapeSql(METRIC_VALUES[m], column)])) as Record<TelemetryMetric, (column: string) => string>;
const unitsOk = (column: string) => jsonShapeSql(unitConversionV1, column);

/** A Reading (telemetry-read.v1.ts readingOf) of alias `l`, `units` only when it is a public conversion. */
const readingJson = (l: string) =>
  `case when ${unitsOk(`${l}.units`)}
     then json_build_object('value', ${l}.value, 'source', ${l}.source, 'observedAt', ${isoSql(`${l}.observed_at`)}, 'fetchedAt', ${isoSql(`${l}.fetched_at`)}, 'units', ${l}.units)
     else json_build_object('value', ${l}.value, 'source', ${l}.source, 'observedAt', ${isoSql(`${l}.observed_at`)}, 'fetchedAt', ${isoSql(`${l}.fetched_at`)}) end`;

export class TelemetryReadRepository {
  async horizon(em: Em): Promise<string> {
    const [row] = await readQuery<{ snapshot: string }>(em, 'select pg_current_snapshot()::text as snapshot');
    if (!row) throw new Error('pg_current_snapshot returned no row');
    return row.snapshot;
  }

  latest(em: Em, connectionId: string, vehicleId: string): Promise<ReadingRow[]> {
    return readQuery<ReadingRow>(
      em,
      `select metric, ${isoSql('observed_at')} as observed_at, ${isoSql('fetched_at')} as fetched_at, source, provider, vehicle_source_id, value, units
       from ${tableNamer(em)('latest_readings')} where connection_id = ?::uuid and vehicle_id = ?`,
      [connectionId, vehicleId],
    );
  }

  /**
   * One frame page (service-kit read-frame.ts) of the connection's vehicles with any latest reading,
   * ascending vehicle id, each rendered as a FleetLocation: its latest location's status at `now`
   * (`missing` when none is stored or its value is outside the public shape, `stale` past the
   * freshness), hidden vehicles left out.
   */
  locationsPage(em: Em, q: LocationsPageQuery, page: { limit: number; maxBytes: number }): Promise<FramedPage<string>> {
    const t = tableNamer(em);
    const stale = `date_trunc('milliseconds', ?::timestamptz) - date_trunc('milliseconds', l.observed_at) > ? * interval '1 second'`;
    return readFrame<string>(
      em,
      {
        sql: `with ${visibilityCte(t)}
         select json_build_object('vehicleId', v.vehicle_id, 'location',
                case when l.vehicle_id is null or not ${VALUE_OK.location('l.value')} then json_build_object('status', 'missing', 'reading', null)
                     else json_build_object('status', case when ${stale} then 'stale' else 'available' end, 'reading', ${readingJson('l')}) end) as body,
                to_json(v.vehicle_id) as position
         from (select vehicle_id, min(vehicle_source_id) as vehicle_source_id from ${t('latest_readings')}
               where connection_id = ?::uuid and vehicle_id > ? group by vehicle_id) v
         left join ${t('latest_readings')} l on l.connection_id = ?::uuid and l.vehicle_id = v.vehicle_id and l.metric = 'location'
         where ${visibleVehicleSql('v.vehicle_id', 'v.vehicle_source_id')}
         order by v.vehicle_id`,
        params: [q.connectionId, q.now, q.freshnessSeconds, q.connectionId, q.after ?? '', q.connectionId],
      },
      page,
    );
  }

  /**
   * One frame page of one vehicle's metric in [start, end), in (observed_at, source) order inside
   * the walk's horizon, each rendered as a HistoryPoint; a stored value outside the public shape is
   * left out (never served as a zero), `units` null unless it is a public conversion.
   */
  historyPage(em: Em, q: HistoryPageQuery, page: { limit: number; maxBytes: number }): Promise<FramedPage<{ observedAt: string; source: string }>> {
    const where = [
      'connection_id = ?::uuid',
      'vehicle_id = ?',
      'metric = ?',
      'observed_at >= ?::timestamptz',
      'observed_at < ?::timestamptz',
      'pg_visible_in_snapshot(created_xid::text::xid8, ?::pg_snapshot)',
      VALUE_OK[q.metric]('value'),
    ];
    const params: unknown[] = [q.metric, q.connectionId, q.vehicleId, q.metric, q.start, q.end, q.horizon];
    if (q.after) {
      where.push('(observed_at, source) > (?::timestamptz, ?)');
      params.push(q.after.observedAt, q.after.source);
    }
    return readFrame(
      em,
      {
        sql: `select json_build_object('sequence', seq::text, 'metric', ?::text, 'source', source, 'observed_at', ${isoSql('observed_at')}, 'fetched_at', ${isoSql('fetched_at')},
                'value', value, 'units', case when ${unitsOk('units')} then units end) as body,
                json_build_object('observedAt', ${positionTimeSql('observed_at')}, 'source', source) as position
         from ${tableNamer(em)('observations')} where ${where.join(' and ')} order by observed_at, source`,
        params,
      },
      page,
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
    const [row] = await readQuery<{ observed_at: string }>(
      em,
      `select ${isoSql('observed_at')} as observed_at from ${tableNamer(em)('vehicle_fault_observation')} where connection_id = ?::uuid and vehicle_id = ?`,
      [connectionId, vehicleId],
    );
    return row?.observed_at ?? null;
  }
}
