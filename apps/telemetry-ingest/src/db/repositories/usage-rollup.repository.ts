/**
 * Keeps the usage rollups (migration 0004; formulas libs/domain/src/usage/rollups.ts) current and
 * reads them.
 * - `refresh`, on the batch's transaction after its observations are written: per vehicle the batch
 *   touches (usage metrics only), the range of slots its observations can change — every slot within
 *   maxObservationGapSeconds of them, since only intervals between consecutive observations at most
 *   that far apart count — is rebuilt from the observations within the gap of that range (the
 *   range's rows become exactly the rebuilt ones). A re-delivered batch rebuilds the same rows; a
 *   late one rebuilds its own range. Every vehicle of the batch (of every batch of a group,
 *   decision 0038) is rebuilt at once (one lock statement, one read, one write) under a
 *   transaction-scoped advisory lock per vehicle, taken in (connection, vehicle) order before the
 *   observations are read: of two batches touching one vehicle, the later rebuild reads after the
 *   earlier committed, so the last rebuild of a range always sees every observation of it.
 * - `summedSlots`, `excluded`: what a report over the aligned interior of a window reads — the slots
 *   summed in SQL per vehicle, metric, series and report bucket (`summedSlotStarts`), so a fleet page
 *   of 100 vehicles over a day reads 200 rows, not 19,200 slots.
 * - `pruneBefore`: the retention of rollups (decision 0025), with the observations' partitions.
 */
import {
  ceilSlot,
  counterSeries,
  engineStateSeries,
  floorSlot,
  MAX_OBSERVATION_GAP_SECONDS,
  rollupRows,
  SLOT_MS,
  type IntervalRow,
  type SegmentSeries,
  type SummedSlots,
  type UsageObservations,
} from '@switchyard/domain';
import { isoSql, query, tableNamer, type Em } from '@switchyard/persistence';
import { rangeKey, UsageObservationRepository, USAGE_METRICS } from './usage-observation.repository.js';

const GAP_MS = MAX_OBSERVATION_GAP_SECONDS * 1000;
// Advisory lock namespace for usage rollups ("SWUR"), second key hashtext(connection:vehicle).
const ROLLUP_LOCK = 0x53575552;
/** The series key of the merged engine states. */
export const MERGED_SERIES = '*';
const ENGINE_STATE = 'engineState';

const iso = (ms: number) => new Date(ms).toISOString();
const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const USAGE_METRIC_SET: ReadonlySet<string> = new Set(USAGE_METRICS);

/** Each usage series of one vehicle's observations, keyed by metric and series. */
export function usageSeries(o: UsageObservations, window: { startMs: number; endMs: number }): { metric: string; series: string; s: SegmentSeries }[] {
  const counters = [
    ['odometer', 'distance'],
    ['engineHours', 'engineSeconds'],
    ['totalIdleTime', 'idleSeconds'],
  ] as const;
  const out: { metric: string; series: string; s: SegmentSeries }[] = [];
  for (const [metric, kind] of counters) for (const s of counterSeries(kind, metric, o[metric], window)) out.push({ metric, series: s.source.slice(metric.length + 1), s });
  for (const s of engineStateSeries(o.engineState, window)) out.push({ metric: 'engineState', series: MERGED_SERIES, s });
  return out;
}

export interface StoredSlots extends SummedSlots {
  vehicleId: string;
  metric: string;
  series: string;
}

export interface StoredInterval {
  vehicleId: string;
  metric: string;
  series: string;
  interval: IntervalRow;
}

export class UsageRollupRepository {
  private epochMs: number | undefined;

  constructor(private readonly observations = new UsageObservationRepository()) {}

  /**
   * Rebuilds the rollups the rows can change (see the header); `rows` as written to observations,
   * of any connections (a group of batches, decision 0038). Three statements whatever the number
   * of vehicles: the locks, the read, and one write that deletes the range's rows the rebuild no
   * longer has and upserts the rest (a plain insert cannot follow a delete of the same keys in
   * one statement: both run on one snapshot, so the insert would meet the deleted rows' keys).
   */
  async refresh(em: Em, rows: readonly { connection_id: string; vehicle_id: string; metric: string; observed_at: string; observed_ms?: number }[]): Promise<void> {
    // Per connection, then vehicle (nested maps: no key string per row).
    const touched = new Map<string, Map<string, { connectionId: string; vehicleId: string; min: number; max: number }>>();
    const spans: { connectionId: string; vehicleId: string; min: number; max: number }[] = [];
    for (const r of rows) {
      if (!USAGE_METRIC_SET.has(r.metric)) continue;
      const t = r.observed_ms ?? Date.parse(r.observed_at);
      let vehicles = touched.get(r.connection_id);
      if (!vehicles) touched.set(r.connection_id, (vehicles = new Map()));
      const held = vehicles.get(r.vehicle_id);
      if (held) {
        if (t < held.min) held.min = t;
        if (t > held.max) held.max = t;
      } else {
        const span = { connectionId: r.connection_id, vehicleId: r.vehicle_id, min: t, max: t };
        vehicles.set(r.vehicle_id, span);
        spans.push(span);
      }
    }
    if (spans.length === 0) return;
    const ranges = spans
      .sort((a, b) => byCodeUnit(a.connectionId, b.connectionId) || byCodeUnit(a.vehicleId, b.vehicleId))
      .map(({ connectionId, vehicleId, min, max }) => ({ connectionId, vehicleId, from: floorSlot(min - GAP_MS), to: ceilSlot(max + GAP_MS) + SLOT_MS }));
    const t = tableNamer(em);
    // One lock per vehicle, taken in (connection, vehicle) order (the arrays are sorted; a function scan keeps their order).
    await query(em, `select pg_advisory_xact_lock(?, hashtext(c || ':' || v)) from unnest(?::text[], ?::text[]) as x(c, v)`, [
      ROLLUP_LOCK,
      `{${ranges.map((r) => r.connectionId).join(',')}}`,
      `{${ranges.map((r) => r.vehicleId).join(',')}}`,
    ]);
    const read = await this.observations.observationsInRanges(
      em,
      ranges.map((r) => ({ connectionId: r.connectionId, vehicleId: r.vehicleId, fromIso: iso(r.from - GAP_MS), toIso: iso(r.to + GAP_MS) })),
    );
    const slots: Record<string, unknown>[] = [];
    const intervals: Record<string, unknown>[] = [];
    for (const { connectionId, vehicleId, from, to } of ranges) {
      const o = read.get(rangeKey(connectionId, vehicleId));
      const id = { connection_id: connectionId, vehicle_id: vehicleId };
      for (const { metric, series, s } of o ? usageSeries(o, { startMs: from, endMs: to }) : []) {
        const built = rollupRows(s, from, to);
        for (const x of built.slots) slots.push({ ...id, metric, series, slot_start: iso(x.slotStartMs), amount: x.amount, coverage_ms: x.coverageMs, samples: x.samples, sources: x.sources });
        for (const x of built.intervals) intervals.push({ ...id, metric, series, start_at: iso(x.startMs), end_at: iso(x.endMs), reason: x.reason });
      }
    }
    const rangeJson = JSON.stringify(ranges.map((r) => ({ connection_id: r.connectionId, vehicle_id: r.vehicleId, from_at: iso(r.from), to_at: iso(r.to) })));
    // An excluded interval overlapping a range but starting before it is rebuilt too (its observations are within the gap of the range).
    // `not in (select … from n)` is one hashed subplan (the keys are never null); a correlated
    // `not exists` was planned as a nested loop over the rebuilt rows for every stored slot of the
    // ranges (0.4-1.4 s per group of ~1,300 slots under load, auto_explain on the ingest benchmark).
    await query(
      em,
      `with r as (select * from json_to_recordset(?::json) as r(connection_id uuid, vehicle_id text, from_at timestamptz, to_at timestamptz)),
       n as (select * from json_to_recordset(?::json) as x(connection_id uuid, vehicle_id text, metric text, series text, slot_start timestamptz, amount double precision, coverage_ms double precision, samples integer, sources jsonb)),
       ni as (select * from json_to_recordset(?::json) as x(connection_id uuid, vehicle_id text, metric text, series text, start_at timestamptz, end_at timestamptz, reason text)),
       gone_slots as (
         delete from ${t('usage_slot')} s using r
         where s.connection_id = r.connection_id and s.vehicle_id = r.vehicle_id and s.slot_start >= r.from_at and s.slot_start < r.to_at
           and (s.connection_id, s.vehicle_id, s.metric, s.series, s.slot_start) not in (select connection_id, vehicle_id, metric, series, slot_start from n)
         returning 1),
       gone_intervals as (
         delete from ${t('usage_excluded_interval')} x using r
         where x.connection_id = r.connection_id and x.vehicle_id = r.vehicle_id and x.start_at < r.to_at and x.end_at > r.from_at
           and (x.connection_id, x.vehicle_id, x.metric, x.series, x.start_at) not in (select connection_id, vehicle_id, metric, series, start_at from ni)
         returning 1),
       kept_slots as (
         insert into ${t('usage_slot')} as s (connection_id, vehicle_id, metric, series, slot_start, amount, coverage_ms, samples, sources)
         select connection_id, vehicle_id, metric, series, slot_start, amount, coverage_ms, samples, sources from n order by connection_id, vehicle_id, metric, series, slot_start
         on conflict (connection_id, vehicle_id, metric, series, slot_start) do update
           set amount = excluded.amount, coverage_ms = excluded.coverage_ms, samples = excluded.samples, sources = excluded.sources
           where (s.amount, s.coverage_ms, s.samples, s.sources) is distinct from (excluded.amount, excluded.coverage_ms, excluded.samples, excluded.sources)
         returning 1),
       kept_intervals as (
         insert into ${t('usage_excluded_interval')} as x (connection_id, vehicle_id, metric, series, start_at, end_at, reason)
         select connection_id, vehicle_id, metric, series, start_at, end_at, reason from ni order by connection_id, vehicle_id, metric, series, start_at
         on conflict (connection_id, vehicle_id, metric, series, start_at) do update set end_at = excluded.end_at, reason = excluded.reason
         returning 1)
       select (select count(*) from gone_slots) + (select count(*) from gone_intervals) + (select count(*) from kept_slots) + (select count(*) from kept_intervals) as changed`,
      [rangeJson, JSON.stringify(slots), JSON.stringify(intervals)],
    );
  }

  /** When rollups started: windows reaching before it are computed from raw observations. */
  async epoch(em: Em): Promise<number> {
    if (this.epochMs === undefined) {
      const [row] = await query<{ started_at: string }>(em, `select ${isoSql('started_at')} as started_at from ${tableNamer(em)('usage_rollup_epoch')} where id = 1`);
      if (!row) throw new Error('usage_rollup_epoch has no row (migration 0004)');
      this.epochMs = Date.parse(row.started_at);
    }
    return this.epochMs;
  }

  /**
   * The slots of some vehicles in [starts[0], endMs), summed per vehicle, metric, series and row of
   * `starts` (summedSlotStarts: the report's buckets inside the interior): `width_bucket` numbers a
   * slot's row (1 = the first), the engine states' sources are the distinct union of the row's slots.
   */
  async summedSlots(em: Em, connectionId: string, vehicleIds: readonly string[], starts: readonly number[], endMs: number): Promise<StoredSlots[]> {
    if (vehicleIds.length === 0 || starts.length === 0) return [];
    const rows = await query<{ vehicle_id: string; metric: string; series: string; k: number; amount: number; coverage_ms: number; samples: number; sources: string[] | null }>(
      em,
      `with slot as (
         select vehicle_id, metric, series, width_bucket(slot_start, ?::timestamptz[]) as k, amount, coverage_ms, samples, sources
         from ${tableNamer(em)('usage_slot')}
         where connection_id = ?::uuid and vehicle_id = any(?::text[]) and slot_start >= ?::timestamptz and slot_start < ?::timestamptz)
         , src as (
         select vehicle_id, metric, series, k, array_agg(distinct e order by e) as sources
         from slot, jsonb_array_elements_text(slot.sources) as e where metric = '${ENGINE_STATE}' group by vehicle_id, metric, series, k)
       select g.vehicle_id, g.metric, g.series, g.k, g.amount, g.coverage_ms, g.samples, src.sources
       from (select vehicle_id, metric, series, k, sum(amount) as amount, sum(coverage_ms) as coverage_ms, sum(samples)::int as samples
             from slot group by vehicle_id, metric, series, k) g
       left join src using (vehicle_id, metric, series, k)`,
      [`{${starts.map(iso).join(',')}}`, connectionId, `{${vehicleIds.join(',')}}`, iso(starts[0] as number), iso(endMs)],
    );
    return rows.map((r) => ({
      vehicleId: r.vehicle_id,
      metric: r.metric,
      series: r.series,
      startMs: starts[r.k - 1] as number,
      endMs: starts[r.k] ?? endMs,
      amount: r.amount,
      coverageMs: r.coverage_ms,
      samples: r.samples,
      sources: r.sources ?? [],
    }));
  }

  /** The excluded intervals of some vehicles overlapping [fromMs, toMs). */
  async excluded(em: Em, connectionId: string, vehicleIds: readonly string[], fromMs: number, toMs: number): Promise<StoredInterval[]> {
    if (vehicleIds.length === 0) return [];
    const rows = await query<{ vehicle_id: string; metric: string; series: string; start_ms: string; end_ms: string; reason: string }>(
      em,
      `select vehicle_id, metric, series, floor(extract(epoch from start_at) * 1000)::bigint::text as start_ms, floor(extract(epoch from end_at) * 1000)::bigint::text as end_ms, reason
       from ${tableNamer(em)('usage_excluded_interval')}
       where connection_id = ?::uuid and vehicle_id = any(?::text[]) and start_at < ?::timestamptz and end_at > ?::timestamptz`,
      [connectionId, `{${vehicleIds.join(',')}}`, iso(toMs), iso(fromMs)],
    );
    return rows.map((r) => ({
      vehicleId: r.vehicle_id,
      metric: r.metric,
      series: r.series,
      interval: { kind: 'excluded', startMs: Number(r.start_ms), endMs: Number(r.end_ms), reason: r.reason === 'implausible_increase' ? 'implausible_increase' : 'counter_decreased' },
    }));
  }

  /**
   * Retention (decision 0025, observation-retention.ts): deletes up to `limit` slots starting
   * before `boundary` and up to `limit` excluded intervals ending by it (wholly in dropped time; one
   * straddling the boundary stays, it counts towards kept slots), rows other passes hold skipped.
   */
  async pruneBefore(em: Em, boundary: Date, limit: number): Promise<{ slots: number; excludedIntervals: number }> {
    const t = tableNamer(em);
    const [row] = await query<{ slots: number; excluded: number }>(
      em,
      `with slots as (
         delete from ${t('usage_slot')} where ctid in (select ctid from ${t('usage_slot')} where slot_start < ?::timestamptz limit ? for update skip locked) returning 1),
       excluded as (
         delete from ${t('usage_excluded_interval')} where ctid in (select ctid from ${t('usage_excluded_interval')} where end_at <= ?::timestamptz limit ? for update skip locked) returning 1)
       select (select count(*)::int from slots) as slots, (select count(*)::int from excluded) as excluded`,
      [boundary.toISOString(), limit, boundary.toISOString(), limit],
    );
    return { slots: row?.slots ?? 0, excludedIntervals: row?.excluded ?? 0 };
  }
}
