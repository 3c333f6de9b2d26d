/**
 * The SQL of data freshness (freshness.service.ts; issue 27 item 3): one statement gives, per
 * (connection, signal), the figures of ConnectionFreshness for the vehicles and signals the caller
 * names (JSON parameters: em.execute would expand an array into a list):
 * - data age and coverage from `latest_readings` (one row per vehicle × metric; ~0.4 ms a lookup,
 *   notes/performance.md) — and for `faults` from the fault-observation projection
 *   (`vehicle_fault_observation`, the time up to which the vehicle's faults were read);
 * - provider lag, pipeline lag and the sample interval from the `observations` observed in the window
 *   (a range of their primary key per vehicle and metric; monthly partitions pruned by the bounds),
 *   each joined to its batch in the ledger (`ingest_batch.committed_at`, kept 7 days) for the commit time.
 * Quantiles are percentile_cont; a negative lag (a provider clock ahead) counts as 0; gaps of 0
 * (two sources of one sample) are not gaps. `visibleFor` applies the one visibility rule of the reads
 * (service-kit visibilityCte, decision 0029) to the named vehicles of that one connection; without it
 * (the metrics over every connection) every named vehicle counts. `window: false` leaves the window
 * figures out (the metrics' pass over every connection needs the data age only).
 */
import { isoSql, query, tableNamer, type Em } from '@switchyard/persistence';
import { visibilityCte, visibleVehicleSql } from '@switchyard/service-kit';

/** A vehicle of a connection: its `vcl_` id and provider id. */
export interface FreshnessVehicle {
  c: string;
  v: string;
  s: string;
}

/** A signal the connection collects: a telemetry metric, or `faults`. */
export interface FreshnessSignalRef {
  c: string;
  m: string;
}

export interface FreshnessQuery {
  vehicles: readonly FreshnessVehicle[];
  signals: readonly FreshnessSignalRef[];
  now: string;
  /** Coverage counts vehicles whose newest reading is observed at or after this. */
  reportingSince: string;
  /** The window of the lags and the sample interval: readings observed in [windowStart, now]. */
  windowStart: string;
  /** Apply the reads' visibility rule to this one connection's vehicles. */
  visibleFor?: string;
  /** Compute the window figures (default true). */
  window?: boolean;
}

export interface FreshnessRow {
  connection_id: string;
  signal: string;
  vehicles: number;
  with_reading: number;
  reporting: number;
  newest: string | null;
  /** Data age quantiles 0, 0.5, 0.95, 1 (seconds); null without a reading. */
  age: number[] | null;
  readings: number;
  committed: number;
  /** p50, p95 (seconds); null without readings (with a commit time) in the window. */
  provider_lag: number[] | null;
  pipeline_lag: number[] | null;
  gaps: number;
  sample_interval: number | null;
}

export class FreshnessRepository {
  figures(em: Em, q: FreshnessQuery): Promise<FreshnessRow[]> {
    const t = tableNamer(em);
    const visible = q.visibleFor !== undefined;
    const params: unknown[] = visible ? [q.visibleFor] : [];
    params.push(JSON.stringify(q.vehicles), JSON.stringify(q.signals));
    const epoch = (expression: string) => `greatest(0, extract(epoch from ${expression}))`;
    const windowSql =
      q.window === false
        ? `lags as (select null::uuid as c, null::text as m, 0 as readings, 0 as committed, null::float8[] as provider_lag, null::float8[] as pipeline_lag, 0 as gaps, null::float8 as sample_interval where false)`
        : `win as (
             select a.c, o.metric as m, o.observed_at, o.fetched_at, b.committed_at,
                    o.observed_at - lag(o.observed_at) over (partition by o.connection_id, o.vehicle_id, o.metric order by o.observed_at, o.source) as gap
               from a join ${t('observations')} o on o.connection_id = a.c and o.vehicle_id = a.v
               join g on g.c = a.c and g.m = o.metric
               left join ${t('ingest_batch')} b on b.batch_id = o.batch_id
              where o.observed_at >= ?::timestamptz and o.observed_at <= ?::timestamptz),
           lags as (
             select c, m, count(*)::int as readings, count(committed_at)::int as committed,
                    percentile_cont(array[0.5, 0.95]) within group (order by ${epoch('fetched_at - observed_at')}) as provider_lag,
                    percentile_cont(array[0.5, 0.95]) within group (order by ${epoch('committed_at - fetched_at')}) filter (where committed_at is not null) as pipeline_lag,
                    count(*) filter (where gap > interval '0')::int as gaps,
                    percentile_cont(0.5) within group (order by extract(epoch from gap)) filter (where gap > interval '0') as sample_interval
               from win group by c, m)`;
    // In the order the statement names them: ages (reporting since, now), then the window's bounds.
    params.push(q.reportingSince, q.now);
    if (q.window !== false) params.push(q.windowStart, q.now);
    return query<FreshnessRow>(
      em,
      `with ${visible ? `${visibilityCte(t)},` : ''}
         named as (select x.c, x.v, x.s from json_to_recordset(?::json) as x(c uuid, v text, s text)),
         a as (select c, v, s from named ${visible ? `where ${visibleVehicleSql('named.v', 'named.s')}` : ''}),
         g as (select y.c, y.m from json_to_recordset(?::json) as y(c uuid, m text)),
         latest as (
           select a.c, l.metric as m, l.observed_at from a
             join ${t('latest_readings')} l on l.connection_id = a.c and l.vehicle_id = a.v
             join g on g.c = a.c and g.m = l.metric
           union all
           select a.c, 'faults', f.observed_at from a
             join ${t('vehicle_fault_observation')} f on f.connection_id = a.c and f.vehicle_id = a.v
             join g on g.c = a.c and g.m = 'faults'),
         ages as (
           select c, m, count(*)::int as with_reading,
                  count(*) filter (where observed_at >= ?::timestamptz)::int as reporting,
                  max(observed_at) as newest,
                  percentile_cont(array[0, 0.5, 0.95, 1]) within group (order by ${epoch('?::timestamptz - observed_at')}) as age
             from latest group by c, m),
         ${windowSql},
         counts as (select c, count(*)::int as vehicles from a group by c)
       select g.c::text as connection_id, g.m as signal, coalesce(counts.vehicles, 0) as vehicles,
              coalesce(ages.with_reading, 0) as with_reading, coalesce(ages.reporting, 0) as reporting,
              ${isoSql('ages.newest')} as newest, ages.age,
              coalesce(lags.readings, 0) as readings, coalesce(lags.committed, 0) as committed, lags.provider_lag, lags.pipeline_lag,
              coalesce(lags.gaps, 0) as gaps, lags.sample_interval
         from g left join counts on counts.c = g.c
         left join ages on ages.c = g.c and ages.m = g.m
         left join lags on lags.c = g.c and lags.m = g.m
        order by g.c, g.m`,
      params,
    );
  }
}
