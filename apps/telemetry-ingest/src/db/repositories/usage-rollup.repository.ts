/**
 * Keeps the usage rollups (migration 0004; formulas libs/domain/src/usage/rollups.ts) current and
 * reads them.
 * - `refresh`, on the batch's transaction after its observations are written: per vehicle the batch
 *   touches (usage metrics only), the range of slots its observations can change — every slot within
 *   maxObservationGapSeconds of them, since only intervals between consecutive observations at most
 *   that far apart count — is rebuilt from the observations within the gap of that range (delete,
 *   then insert). A re-delivered batch rebuilds the same rows; a late one rebuilds its own range.
 *   Every vehicle of the batch is rebuilt at once (one lock statement, one read, two deletes, two
 *   inserts) under a transaction-scoped advisory lock per vehicle, taken in vehicle-id order before
 *   the observations are read: of two batches touching one vehicle, the later rebuild reads after
 *   the earlier committed, so the last rebuild of a range always sees every observation of it.
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
import { UsageObservationRepository, USAGE_METRICS } from './usage-observation.repository.js';

const GAP_MS = MAX_OBSERVATION_GAP_SECONDS * 1000;
// Advisory lock namespace for usage rollups ("SWUR"), second key hashtext(connection:vehicle).
const ROLLUP_LOCK = 0x53575552;
/** The series key of the merged engine states. */
export const MERGED_SERIES = '*';
const ENGINE_STATE = 'engineState';

const iso = (ms: number) => new Date(ms).toISOString();

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

  /** Rebuilds the rollups the rows can change (see the header); `rows` as written to observations. Five statements per batch, whatever the number of vehicles. */
  async refresh(em: Em, connectionId: string, rows: readonly { vehicle_id: string; metric: string; observed_at: string }[]): Promise<void> {
    const touched = new Map<string, [number, number]>();
    for (const r of rows) {
      if (!(USAGE_METRICS as readonly string[]).includes(r.metric)) continue;
      const t = Date.parse(r.observed_at);
      const held = touched.get(r.vehicle_id);
      touched.set(r.vehicle_id, held ? [Math.min(held[0], t), Math.max(held[1], t)] : [t, t]);
    }
    if (touched.size === 0) return;
    const ranges = [...touched.keys()].sort().map((vehicleId) => {
      const [min, max] = touched.get(vehicleId) as [number, number];
      return { vehicleId, from: floorSlot(min - GAP_MS), to: ceilSlot(max + GAP_MS) + SLOT_MS };
    });
    const t = tableNamer(em);
    // One lock per vehicle, taken in vehicle-id order (the array is sorted; a function scan keeps its order).
    await query(em, `select pg_advisory_xact_lock(?, hashtext(? || ':' || v)) from unnest(?::text[]) as v`, [ROLLUP_LOCK, connectionId, `{${ranges.map((r) => r.vehicleId).join(',')}}`]);
    const read = await this.observations.observationsInRanges(
      em,
      connectionId,
      ranges.map((r) => ({ vehicleId: r.vehicleId, fromIso: iso(r.from - GAP_MS), toIso: iso(r.to + GAP_MS) })),
    );
    const slots: Record<string, unknown>[] = [];
    const intervals: Record<string, unknown>[] = [];
    for (const { vehicleId, from, to } of ranges) {
      const o = read.get(vehicleId);
      for (const { metric, series, s } of o ? usageSeries(o, { startMs: from, endMs: to }) : []) {
        const built = rollupRows(s, from, to);
        for (const x of built.slots) slots.push({ vehicle_id: vehicleId, metric, series, slot_start: iso(x.slotStartMs), amount: x.amount, coverage_ms: x.coverageMs, samples: x.samples, sources: x.sources });
        for (const x of built.intervals) intervals.push({ vehicle_id: vehicleId, metric, series, start_at: iso(x.startMs), end_at: iso(x.endMs), reason: x.reason });
      }
    }
    const rangeJson = JSON.stringify(ranges.map((r) => ({ vehicle_id: r.vehicleId, from_at: iso(r.from), to_at: iso(r.to) })));
    const rangeSet = `json_to_recordset(?::json) as r(vehicle_id text, from_at timestamptz, to_at timestamptz)`;
    await query(em, `delete from ${t('usage_slot')} s using ${rangeSet} where s.connection_id = ?::uuid and s.vehicle_id = r.vehicle_id and s.slot_start >= r.from_at and s.slot_start < r.to_at`, [rangeJson, connectionId]);
    // An excluded interval overlapping a range but starting before it is deleted here and rebuilt below (its observations are within the gap of the range).
    await query(em, `delete from ${t('usage_excluded_interval')} x using ${rangeSet} where x.connection_id = ?::uuid and x.vehicle_id = r.vehicle_id and x.start_at < r.to_at and x.end_at > r.from_at`, [rangeJson, connectionId]);
    if (slots.length > 0) {
      await query(
        em,
        `insert into ${t('usage_slot')} (connection_id, vehicle_id, metric, series, slot_start, amount, coverage_ms, samples, sources)
         select ?::uuid, x.vehicle_id, x.metric, x.series, x.slot_start, x.amount, x.coverage_ms, x.samples, x.sources
         from json_to_recordset(?::json) as x(vehicle_id text, metric text, series text, slot_start timestamptz, amount double precision, coverage_ms double precision, samples integer, sources jsonb)`,
        [connectionId, JSON.stringify(slots)],
      );
    }
    if (intervals.length > 0) {
      await query(
        em,
        `insert into ${t('usage_excluded_interval')} (connection_id, vehicle_id, metric, series, start_at, end_at, reason)
         select ?::uuid, x.vehicle_id, x.metric, x.series, x.start_at, x.end_at, x.reason
         from json_to_recordset(?::json) as x(vehicle_id text, metric text, series text, start_at timestamptz, end_at timestamptz, reason text)
         on conflict (connection_id, vehicle_id, metric, series, start_at) do update set end_at = excluded.end_at, reason = excluded.reason`,
        [connectionId, JSON.stringify(intervals)],
      );
    }
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
