/**
 * Samsara vehicle stats → Observations and FaultSnapshots (samsara.md §5, §7).
 * Invariants:
 * - One code path for snapshot and feed/history: a snapshot item is first rewritten to the series
 *   shape (singular `engineState`/`fuelPercent` → plural arrays), so the singular/plural quirk is
 *   handled in exactly one place.
 * - Units as the spec wants them: mph → m/s, mV → V, ms → s (the last with a UnitConversion, the only
 *   one of the three the spec's UnitConversion can express); meters and seconds pass unchanged.
 * - A reading Samsara did not send is not emitted; a reading out of its physical range (negative
 *   counter, fuel > 100 %, latitude > 90) is dropped, never clamped or zeroed.
 * - Odometer: `obdOdometerMeters` is preferred and `gpsOdometerMeters` used only for a vehicle with no
 *   ECU reading in the response; engine time likewise `obdEngineSeconds` over `syntheticEngineSeconds`.
 *   The choice is per vehicle and response, so one series never mixes two counters with different offsets.
 */
import {
  checkRange,
  toIsoUtc,
  toMeters,
  toMetersPerSecond,
  toSeconds,
  toVolts,
  TELEMETRY_METRICS,
  type EngineState,
  type FaultCode,
  type FaultSnapshot,
  type MetricValues,
  type Observation,
  type TelemetryMetric,
  type UnitConversion,
} from '@switchyard/domain';
import type { SkippedRecord } from '../adapter.js';
import type { MapContext } from './samsara.mapper.js';
import type { SamsaraFaultCodesPoint, SamsaraNumberPoint, SamsaraStatsSeriesItem, SamsaraStatsSnapshotItem } from './samsara.schemas.js';

/** The `types` values the adapter requests per metric; inner arrays are preferred-first fallbacks. */
export const SAMSARA_METRIC_TYPES: Readonly<Record<TelemetryMetric, readonly string[]>> = {
  location: ['gps'],
  odometer: ['obdOdometerMeters', 'gpsOdometerMeters'],
  engineHours: ['obdEngineSeconds', 'syntheticEngineSeconds'],
  totalIdleTime: ['idlingDurationMilliseconds'],
  speed: ['gps'],
  heading: ['gps'],
  fuelPercent: ['fuelPercents'],
  batteryVoltage: ['batteryMilliVolts'],
  engineState: ['engineStates'],
};

/** At most 3 `types` per stats request (§5.1). */
export const SAMSARA_MAX_TYPES_PER_REQUEST = 3;

/**
 * Packs the types the metrics need into request groups of ≤ 3, keeping a metric's fallbacks in the
 * same request (the preference rule needs both in one response). All nine metrics take 3 requests.
 */
export function planStatTypeGroups(metrics: readonly TelemetryMetric[]): string[][] {
  const units: string[][] = [];
  const seen = new Set<string>();
  for (const metric of TELEMETRY_METRICS) {
    if (!metrics.includes(metric)) continue;
    const unit = SAMSARA_METRIC_TYPES[metric].filter((t) => !seen.has(t));
    unit.forEach((t) => seen.add(t));
    if (unit.length) units.push(unit);
  }
  const groups: string[][] = [];
  for (const unit of units) {
    const last = groups.at(-1);
    if (last && last.length + unit.length <= SAMSARA_MAX_TYPES_PER_REQUEST) last.push(...unit);
    else groups.push([...unit]);
  }
  return groups;
}

/** Snapshot item → series shape (the three singular keys become plural one-point arrays). */
export function snapshotToSeries(item: SamsaraStatsSnapshotItem): SamsaraStatsSeriesItem {
  const { gps, engineState, fuelPercent, faultCodes, ...rest } = item;
  const series: Record<string, unknown> = { id: item.id, name: item.name };
  for (const [key, value] of Object.entries(rest)) {
    if (key !== 'id' && key !== 'name' && value && typeof value === 'object' && 'time' in value) series[key] = [value];
  }
  if (gps) series.gps = [gps];
  if (engineState) series.engineStates = [engineState];
  if (fuelPercent) series.fuelPercents = [fuelPercent];
  if (faultCodes) series.faultCodes = Array.isArray(faultCodes) ? faultCodes : [faultCodes];
  return series as SamsaraStatsSeriesItem;
}

const ENGINE_STATES: Readonly<Record<string, EngineState>> = { On: 'on', Off: 'off', Idle: 'idle' };

type Emit = <M extends TelemetryMetric>(metric: M, value: MetricValues[M], source: string, time: string, units?: UnitConversion) => void;

/** Observations of the requested metrics in one feed/history (or rewritten snapshot) item. */
export function mapStatsSeries(item: SamsaraStatsSeriesItem, metrics: readonly TelemetryMetric[], ctx: MapContext): Observation[] {
  const out: Observation[] = [];
  const want = new Set(metrics);
  const emit: Emit = (metric, value, source, time, units) => {
    if (!want.has(metric)) return;
    const observation = { provider: 'samsara', vehicleSourceId: item.id, metric, value, source, observedAt: toIsoUtc(Date.parse(time)), fetchedAt: ctx.fetchedAt };
    out.push((units ? { ...observation, units } : observation) as Observation);
  };

  for (const p of item.gps ?? []) {
    const lat = checkRange(p.latitude, -90, 90);
    const lon = checkRange(p.longitude, -180, 180);
    if (lat.ok && lon.ok) emit('location', { latitude: lat.value, longitude: lon.value }, 'samsara:gps', p.time);
    const speed = toMetersPerSecond(p.speedMilesPerHour, 'miles_per_hour');
    if (speed.ok) emit('speed', { value: speed.value }, 'samsara:gps.speedMilesPerHour', p.time);
    const heading = checkRange(p.headingDegrees, 0, 360);
    if (heading.ok) emit('heading', { value: heading.value }, 'samsara:gps.headingDegrees', p.time);
  }

  const [odoKey, odoPoints] = preferred(item, 'obdOdometerMeters', 'gpsOdometerMeters');
  for (const p of odoPoints) {
    const m = toMeters(p.value, 'meters');
    if (m.ok) emit('odometer', { meters: m.value }, `samsara:${odoKey}`, p.time, m.units);
  }
  const [engKey, engPoints] = preferred(item, 'obdEngineSeconds', 'syntheticEngineSeconds');
  for (const p of engPoints) {
    const s = toSeconds(p.value, 'seconds');
    if (s.ok) emit('engineHours', { seconds: s.value }, `samsara:${engKey}`, p.time, s.units);
  }
  for (const p of item.idlingDurationMilliseconds ?? []) {
    const s = toSeconds(p.value, 'milliseconds');
    if (s.ok) emit('totalIdleTime', { seconds: s.value }, 'samsara:idlingDurationMilliseconds', p.time, s.units);
  }
  for (const p of item.fuelPercents ?? []) {
    const f = checkRange(p.value, 0, 100);
    if (f.ok) emit('fuelPercent', { value: f.value }, 'samsara:fuelPercents', p.time);
  }
  for (const p of item.batteryMilliVolts ?? []) {
    const v = toVolts(p.value, 'millivolts');
    if (v.ok) emit('batteryVoltage', { value: v.value }, 'samsara:batteryMilliVolts', p.time);
  }
  for (const p of item.engineStates ?? []) {
    // An enum value we do not know (Samsara adding e.g. "Standby") is dropped rather than guessed.
    const state = ENGINE_STATES[p.value];
    if (state) emit('engineState', { state }, 'samsara:engineStates', p.time);
  }
  return out;
}

type CounterKey = 'obdOdometerMeters' | 'gpsOdometerMeters' | 'obdEngineSeconds' | 'syntheticEngineSeconds';
function preferred(item: SamsaraStatsSeriesItem, first: CounterKey, fallback: CounterKey): [CounterKey, readonly SamsaraNumberPoint[]] {
  const primary = item[first];
  return primary && primary.length > 0 ? [first, primary] : [fallback, item[fallback] ?? []];
}

// ---- faults ----------------------------------------------------------------------------------------

/**
 * The codes of one `faultCodes` point. Keys (§7): J1939 (txId, spnId, fmiId); OBD-II (txId, short code
 * or numeric id, confirmed/pending/permanent list); OEM codeIdentifier. Duplicates within a point collapse.
 * undefined when an OEM code has no `codeIdentifier` (optional in Samsara's SDK): such a code has no
 * identity, and leaving it out would claim it cleared, so the point cannot be a complete snapshot.
 */
export function faultCodesOf(point: SamsaraFaultCodesPoint): FaultCode[] | undefined {
  const codes = new Map<string, FaultCode>();
  for (const d of point.j1939?.diagnosticTroubleCodes ?? []) {
    const description = [d.spnDescription, d.fmiDescription].filter((s): s is string => !!s).join(': ') || null;
    const occurrenceCount = d.occurrenceCount !== undefined && Number.isInteger(d.occurrenceCount) && d.occurrenceCount >= 0 ? { occurrenceCount: d.occurrenceCount } : {};
    codes.set(`j1939:${d.txId ?? 'na'}:spn${d.spnId}:fmi${d.fmiId}`, { faultKey: `j1939:${d.txId ?? 'na'}:spn${d.spnId}:fmi${d.fmiId}`, code: `SPN ${d.spnId} FMI ${d.fmiId}`, description, ...occurrenceCount });
  }
  for (const group of point.obdii?.diagnosticTroubleCodes ?? []) {
    for (const kind of ['confirmed', 'pending', 'permanent'] as const) {
      for (const dtc of group[`${kind}Dtcs`] ?? []) {
        const code = dtc.dtcShortCode || (dtc.dtcId !== undefined ? String(dtc.dtcId) : undefined);
        if (!code) continue;
        const faultKey = `obdii:${group.txId ?? 'na'}:${code}:${kind}`;
        codes.set(faultKey, { faultKey, code, description: dtc.dtcDescription || null });
      }
    }
  }
  for (const d of point.oem?.diagnosticTroubleCodes ?? []) {
    const id = d.codeIdentifier?.trim();
    if (!id) return undefined;
    codes.set(`oem:${id}`, { faultKey: `oem:${id}`, code: id, description: d.codeDescription || null });
  }
  return [...codes.values()];
}

/**
 * Each `faultCodes` point is a complete snapshot: the codes active at `time` (an empty list = all
 * cleared). A point that cannot be complete (see faultCodesOf) is reported through `skip` instead,
 * so the vehicle's last good snapshot stands and the rest of the page is used.
 * `readAt`: for the CURRENT snapshot (`/fleet/vehicles/stats`), the time of our read — the set is
 * the one active then, while the point's own `time` is when the vehicle last reported a change
 * (weeks ago for a quiet vehicle). A current snapshot is observed at the read, as Motive's (whose
 * API has no time) and as docs/faults.md defines it; history points keep their own times.
 */
export function mapFaultSnapshots(item: SamsaraStatsSeriesItem, ctx: MapContext, skip: (record: SkippedRecord) => void, readAt?: string): FaultSnapshot[] {
  return (item.faultCodes ?? []).flatMap((point): FaultSnapshot[] => {
    const active = faultCodesOf(point);
    if (!active) {
      skip({ sourceId: item.id, reason: `faultCodes at ${point.time}: an OEM code without codeIdentifier, so the snapshot cannot be complete` });
      return [];
    }
    return [{ model: 'complete_snapshot', provider: 'samsara', vehicleSourceId: item.id, observedAt: readAt ?? toIsoUtc(Date.parse(point.time)), active, fetchedAt: ctx.fetchedAt }];
  });
}
