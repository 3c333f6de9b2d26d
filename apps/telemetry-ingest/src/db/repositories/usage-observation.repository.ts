/**
 * The SQL of the usage reports (usage-report.service.ts): the stored observations a report's
 * formulas read (libs/domain/src/usage, docs/metrics.md) and the vehicles a fleet report covers.
 * - `observations`: the usage metrics (odometer, engineHours, totalIdleTime, engineState) of some
 *   vehicles with observed_at in [from, to] — a range of the observations' primary key per vehicle
 *   and metric (connection_id, vehicle_id, metric, observed_at, source), pruned to the months'
 *   partitions; counters as value_num, engine states as their state text;
 * - `storedVehicles`: the vehicles of the connection that have any latest reading (with their
 *   provider id, for the visibility rules);
 * - `hiddenSet`: the connection's newest hidden-vehicle set from the `vehicle_visibility` projection
 *   (migration 0003; fed by the telemetryVehicleVisibility consumer), read in this repository's own
 *   SQL as the projection allows, so the reports do not depend on where its store class lives.
 */
import type { CounterSample, StateSample, UsageObservations } from '@switchyard/domain';
import { ENGINE_STATES, type EngineState } from '@switchyard/domain';
import type { VehicleVisibilityChangedV1 } from '@switchyard/messaging';
import { query, tableNamer, type Em } from '@switchyard/persistence';

/** The projection's row: a set of hidden vehicles (the shape `isVisible` reads). */
export interface HiddenSet {
  sequence: string;
  hidden: VehicleVisibilityChangedV1['hidden'];
}

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

export class UsageObservationRepository {
  /** Each vehicle's usage observations with observed_at in [fromIso, toIso]; a vehicle without any maps to empty lists. */
  observations(em: Em, connectionId: string, vehicleIds: readonly string[], fromIso: string, toIso: string): Promise<Map<string, UsageObservations>> {
    return this.observationsInRanges(
      em,
      connectionId,
      vehicleIds.map((vehicleId) => ({ vehicleId, fromIso, toIso })),
    );
  }

  /** Each vehicle's usage observations with observed_at in its own [fromIso, toIso] (one statement for all). */
  async observationsInRanges(em: Em, connectionId: string, ranges: readonly { vehicleId: string; fromIso: string; toIso: string }[]): Promise<Map<string, UsageObservations>> {
    const out = new Map(ranges.map((r) => [r.vehicleId, emptyUsageObservations()]));
    if (ranges.length === 0) return out;
    const rows = await query<ObservationRow>(
      em,
      `select o.vehicle_id, o.metric, floor(extract(epoch from o.observed_at) * 1000)::bigint::text as at_ms, o.source, o.value_num, o.value->>'state' as state
       from json_to_recordset(?::json) as r(vehicle_id text, from_at timestamptz, to_at timestamptz)
       join ${tableNamer(em)('observations')} o on o.connection_id = ?::uuid and o.vehicle_id = r.vehicle_id
         and o.metric in (${USAGE_METRICS.map((m) => `'${m}'`).join(', ')})
         and o.observed_at >= r.from_at and o.observed_at <= r.to_at`,
      [JSON.stringify(ranges.map((r) => ({ vehicle_id: r.vehicleId, from_at: r.fromIso, to_at: r.toIso }))), connectionId],
    );
    for (const r of rows) {
      const lists = out.get(r.vehicle_id);
      if (!lists) continue;
      const observedAtMs = Number(r.at_ms);
      if (r.metric === 'engineState') {
        if (isEngineState(r.state)) lists.engineState.push({ observedAtMs, state: r.state, source: r.source });
      } else if (r.value_num !== null && Number.isFinite(r.value_num) && r.value_num >= 0) {
        lists[r.metric].push({ observedAtMs, value: r.value_num, source: r.source });
      }
    }
    return out;
  }

  /** The newest hidden-vehicle set of the connection; undefined before its first event. */
  async hiddenSet(em: Em, connectionId: string): Promise<HiddenSet | undefined> {
    const [row] = await query<HiddenSet>(em, `select sequence::text as sequence, hidden from ${tableNamer(em)('vehicle_visibility')} where connection_id = ?::uuid`, [connectionId]);
    return row;
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
