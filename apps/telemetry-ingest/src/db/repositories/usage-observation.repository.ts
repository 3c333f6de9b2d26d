/**
 * The SQL of the usage reports (usage-report.service.ts): the stored observations a report's
 * formulas read (libs/domain/src/usage, docs/metrics.md) and the vehicles a fleet report covers.
 * - `observations`: the usage metrics (odometer, engineHours, totalIdleTime, engineState) of some
 *   vehicles with observed_at in [from, to] — a range of the observations' primary key per vehicle
 *   and metric (connection_id, vehicle_id, metric, observed_at, source), pruned to the months'
 *   partitions; counters as value_num, engine states as their state text;
 * - `edgeObservations`: what a rollup report needs at a window's two unaligned edges — every
 *   observation inside the edge parts [start, innerStart) and [innerEnd, end), and per counter
 *   source only the last readable observation within the maximum gap before each part and the first
 *   within it after (the segments crossing the parts' ends; anything further out is a gap or lies in
 *   the interior the rollups hold). Engine states are merged across sources (one state per instant,
 *   the first source by name), so which source wins an instant needs every observation: they are
 *   returned over the parts widened by the gap, as before (sparse in practice: reported on change);
 * - `storedVehicles`: the vehicles of the connection that have any latest reading (with their
 *   provider id, for the visibility rule: service-kit VehicleVisibilityStore.visible).
 */
import type { CounterSample, StateSample, UsageObservations } from '@switchyard/domain';
import { ENGINE_STATES, type EngineState } from '@switchyard/domain';
import { query, tableNamer, type Em } from '@switchyard/persistence';

const iso = (ms: number) => new Date(ms).toISOString();

/** The key of one (connection, vehicle) in observationsInRanges' map. */
export const rangeKey = (connectionId: string, vehicleId: string): string => `${connectionId} ${vehicleId}`;

export const USAGE_METRICS = ['odometer', 'engineHours', 'totalIdleTime', 'engineState'] as const;

interface ObservationRow {
  vehicle_id: string;
  metric: (typeof USAGE_METRICS)[number];
  at_ms: string;
  source: string;
  value_num: number | null;
  state: string | null;
}

export const emptyUsageObservations = (): { odometer: CounterSample[]; engineHours: CounterSample[]; totalIdleTime: CounterSample[]; engineState: StateSample[] } => ({
  odometer: [],
  engineHours: [],
  totalIdleTime: [],
  engineState: [],
});

const isEngineState = (s: string | null): s is EngineState => s !== null && (ENGINE_STATES as readonly string[]).includes(s);

/** Observation rows into each vehicle's lists: engine states by their state text, counters by a usable value_num (absent, negative or non-finite values are no observation). */
function addRows(out: Map<string, UsageLists>, rows: readonly ObservationRow[]): void {
  for (const r of rows) {
    const lists = out.get(r.vehicle_id);
    if (lists) addPoint(lists, r.metric, r.source, Number(r.at_ms), r.value_num, r.state);
  }
}

type UsageLists = { odometer: CounterSample[]; engineHours: CounterSample[]; totalIdleTime: CounterSample[]; engineState: StateSample[] };

/** One observation into its vehicle's lists (the rule of addRows). */
function addPoint(lists: UsageLists, metric: ObservationRow['metric'], source: string, observedAtMs: number, valueNum: unknown, state: unknown): void {
  if (metric === 'engineState') {
    if (typeof state === 'string' && isEngineState(state)) lists.engineState.push({ observedAtMs, state, source });
  } else if (typeof valueNum === 'number' && Number.isFinite(valueNum) && valueNum >= 0) {
    lists[metric].push({ observedAtMs, value: valueNum, source });
  }
}

/** Usable counter values only (as the mapping below): not null, not negative, finite (NaN sorts above Infinity in PostgreSQL). */
const READABLE_COUNTER = `o.value_num >= 0 and o.value_num < 'Infinity'::float8`;

export class UsageObservationRepository {
  /**
   * Each vehicle's usage observations with observed_at in [fromIso, toIso]; a vehicle without any
   * maps to empty lists. `= any` on vehicles and metrics with one time range: index conditions of
   * the primary key (a join over a list of ranges let the planner scan the whole partition).
   */
  async observations(em: Em, connectionId: string, vehicleIds: readonly string[], fromIso: string, toIso: string): Promise<Map<string, UsageObservations>> {
    const out = new Map(vehicleIds.map((v) => [v, emptyUsageObservations()]));
    if (vehicleIds.length === 0) return out;
    const rows = await query<ObservationRow>(
      em,
      `select o.vehicle_id, o.metric, floor(extract(epoch from o.observed_at) * 1000)::bigint::text as at_ms, o.source, o.value_num, o.value->>'state' as state
       from ${tableNamer(em)('observations')} o
       where o.connection_id = ?::uuid and o.vehicle_id = any(?::text[]) and o.metric = any(?::text[]) and o.observed_at >= ?::timestamptz and o.observed_at <= ?::timestamptz`,
      [connectionId, `{${vehicleIds.join(',')}}`, `{${USAGE_METRICS.join(',')}}`, fromIso, toIso],
    );
    addRows(out, rows);
    return out;
  }

  /**
   * Each (connection, vehicle)'s usage observations with observed_at in its own [fromIso, toIso]
   * (one statement for all), keyed by `rangeKey`.
   */
  async observationsInRanges(em: Em, ranges: readonly { connectionId: string; vehicleId: string; fromIso: string; toIso: string }[]): Promise<Map<string, UsageObservations>> {
    const out = new Map(ranges.map((r) => [rangeKey(r.connectionId, r.vehicleId), emptyUsageObservations()]));
    if (ranges.length === 0) return out;
    // One row per series, its points as JSON text ([epoch ms, value_num, state]): the ingest reads
    // back ~45 % of what it writes, and one JSON.parse per series costs a fraction of a pg row
    // object per observation (the read was ~5 % of the consumer's CPU on the ingest benchmark).
    // A non-finite value_num arrives as a JSON string and is no observation, as in addRows.
    const rows = await query<{ connection_id: string; vehicle_id: string; metric: ObservationRow['metric']; source: string; points: string }>(
      em,
      `select o.connection_id, o.vehicle_id, o.metric, o.source,
              json_agg(json_build_array(floor(extract(epoch from o.observed_at) * 1000)::bigint, o.value_num, o.value->>'state'))::text as points
       from json_to_recordset(?::json) as r(connection_id uuid, vehicle_id text, from_at timestamptz, to_at timestamptz)
       join ${tableNamer(em)('observations')} o on o.connection_id = r.connection_id and o.vehicle_id = r.vehicle_id
         and o.metric in (${USAGE_METRICS.map((m) => `'${m}'`).join(', ')})
         and o.observed_at >= r.from_at and o.observed_at <= r.to_at
       group by o.connection_id, o.vehicle_id, o.metric, o.source`,
      [JSON.stringify(ranges.map((r) => ({ connection_id: r.connectionId, vehicle_id: r.vehicleId, from_at: r.fromIso, to_at: r.toIso })))],
    );
    for (const r of rows) {
      const lists = out.get(rangeKey(r.connection_id, r.vehicle_id));
      if (!lists) continue;
      for (const [ms, valueNum, state] of JSON.parse(r.points) as [number, unknown, unknown][]) addPoint(lists, r.metric, r.source, ms, valueNum, state);
    }
    return out;
  }

  /**
   * The observations of some vehicles at a window's two edge parts (see the header): `window` the
   * report's, `inner` its aligned interior (rollupPlan), `gapMs` the maximum observation gap. Per
   * part one primary-key range scan over the part widened by the gap (`= any` on vehicles and
   * metrics: index conditions, never a scan of the partition), then a window function per vehicle,
   * metric and source keeps the part's rows, the last row before it and the first after it.
   */
  async edgeObservations(
    em: Em,
    connectionId: string,
    vehicleIds: readonly string[],
    window: { startMs: number; endMs: number },
    inner: { innerStart: number; innerEnd: number },
    gapMs: number,
  ): Promise<Map<string, UsageObservations>> {
    const out = new Map(vehicleIds.map((v) => [v, emptyUsageObservations()]));
    if (vehicleIds.length === 0) return out;
    const part = `select e.vehicle_id, e.metric, floor(extract(epoch from e.observed_at) * 1000)::bigint::text as at_ms, e.source, e.value_num, e.state from (
         select o.vehicle_id, o.metric, o.observed_at, o.source, o.value_num, o.value->>'state' as state,
           max(o.observed_at) filter (where o.observed_at < ?::timestamptz) over w as prev_at,
           min(o.observed_at) filter (where o.observed_at >= ?::timestamptz) over w as next_at
         from ${tableNamer(em)('observations')} o
         where o.connection_id = ?::uuid and o.vehicle_id = any(?::text[]) and o.metric = any(?::text[])
           and o.observed_at >= ?::timestamptz and o.observed_at <= ?::timestamptz and (o.metric = 'engineState' or (${READABLE_COUNTER}))
         window w as (partition by o.vehicle_id, o.metric, o.source)) e
       where e.metric = 'engineState' or (e.observed_at >= ?::timestamptz and e.observed_at < ?::timestamptz) or e.observed_at = e.prev_at or e.observed_at = e.next_at`;
    const params = (from: number, to: number) => [iso(from), iso(to), connectionId, `{${vehicleIds.join(',')}}`, `{${USAGE_METRICS.join(',')}}`, iso(from - gapMs), iso(to + gapMs), iso(from), iso(to)];
    const rows = await query<ObservationRow>(em, `${part} union all ${part}`, [
      ...params(window.startMs, inner.innerStart),
      ...params(inner.innerEnd, window.endMs),
    ]);
    addRows(out, rows);
    return out;
  }

  /** The connection's vehicles with any latest reading, with a provider id each. */
  storedVehicles(em: Em, connectionId: string): Promise<{ vehicle_id: string; vehicle_source_id: string }[]> {
    return query<{ vehicle_id: string; vehicle_source_id: string }>(
      em,
      `select vehicle_id, min(vehicle_source_id) as vehicle_source_id from ${tableNamer(em)('latest_readings')} where connection_id = ?::uuid group by vehicle_id order by vehicle_id`,
      [connectionId],
    );
  }
}
