/**
 * Motive location points, driving periods and fault codes → Observations, TripRecords and
 * complete fault snapshots (spec 2.7, 2.9, 2.10; motive.md §5-7).
 *
 * Invariants: an observation is emitted only for a real value (absent or malformed readings are
 * simply not emitted, never zero); distances and durations carry a UnitConversion from the unit the
 * record was actually in (location readings per the units mode the request asked for; driving-period
 * `*_kilometers` always km, whatever the embedded vehicle's `metric_units` says); trips are completed driving
 * periods only (`end_time` null = still driving, excluded); a fault snapshot lists every open code
 * of its vehicle, so it is built only from a complete scan.
 */
import {
  checkRange,
  toMeters,
  toMetersPerSecond,
  toSeconds,
  toTripKilometers,
  toTripMilliseconds,
  toVolts,
  available,
  invalid,
  missing,
  type EngineState,
  type FaultCode,
  type FaultSnapshot,
  type Field,
  type LatLon,
  type Observation,
  type TelemetryMetric,
  type TripRecord,
} from '@switchyard/domain';
import type { SkippedRecord } from '../adapter.js';
import { normalizeTime, preferTrue, rawNumber, type UnitsMode } from './motive.fields.js';
import type { MotiveDrivingPeriod, MotiveFaultCode, MotiveLocation, Wire } from './motive.schemas.js';

export const MOTIVE_TRIP_SOURCE = 'motive:driving_periods';

/**
 * Engine state from the point's `type` (our rule, motive.md §5.4): `ignition_off`/`engine_stop` →
 * off; moving (`vehicle_moving` or speed > 0) → on; `ignition_on`/`engine_start` while stationary →
 * idle. Anything else stationary (`breadcrumb`, `vehicle_stopped`, unknown types) is unknown and
 * not emitted: we do not guess whether the engine runs.
 */
export function deriveEngineState(type: Wire<string>, speed: Wire<number>): EngineState | undefined {
  const t = type.kind === 'value' ? type.value : undefined;
  if (t === 'ignition_off' || t === 'engine_stop') return 'off';
  const moving = speed.kind === 'value' && speed.value > 0;
  if (t === 'vehicle_moving' || moving) return 'on';
  if ((t === 'ignition_on' || t === 'engine_start') && speed.kind === 'value' && speed.value === 0) return 'idle';
  return undefined;
}

export interface PointContext {
  readonly vehicleSourceId: string;
  readonly mode: UnitsMode;
  readonly metrics: ReadonlySet<TelemetryMetric>;
  readonly fetchedAt: string;
}

/** One location point → the requested metrics it really carries. A point without a valid time yields nothing. */
export function mapLocationPoint(p: MotiveLocation, ctx: PointContext): Observation[] {
  const observedAt = normalizeTime(p.located_at);
  if (!observedAt) return [];
  const base = { provider: 'motive' as const, vehicleSourceId: ctx.vehicleSourceId, observedAt, fetchedAt: ctx.fetchedAt };
  const out: Observation[] = [];
  const want = (m: TelemetryMetric) => ctx.metrics.has(m);

  if (want('location')) {
    const lat = checkRange(rawNumber(p.lat), -90, 90);
    const lon = checkRange(rawNumber(p.lon), -180, 180);
    if (lat.ok && lon.ok) out.push({ ...base, metric: 'location', value: { latitude: lat.value, longitude: lon.value }, source: 'motive:lat,lon' });
  }
  if (want('odometer')) {
    const { w, name } = preferTrue(p.true_odometer, p.odometer, 'true_odometer', 'odometer');
    // km with X-Metric-Units: true (unconfirmed for location odometers), miles in imperial mode.
    const m = toMeters(rawNumber(w), ctx.mode === 'metric' ? 'kilometers' : 'miles');
    if (m.ok) out.push({ ...base, metric: 'odometer', value: { meters: m.value }, source: `motive:${name}`, ...(m.units ? { units: m.units } : {}) });
  }
  if (want('engineHours')) {
    const { w, name } = preferTrue(p.true_engine_hours, p.engine_hours, 'true_engine_hours', 'engine_hours');
    const s = toSeconds(rawNumber(w), 'hours'); // decimal hours (unconfirmed, by name and magnitude)
    if (s.ok) out.push({ ...base, metric: 'engineHours', value: { seconds: s.value }, source: `motive:${name}`, ...(s.units ? { units: s.units } : {}) });
  }
  if (want('speed')) {
    const v = toMetersPerSecond(rawNumber(p.speed), ctx.mode === 'metric' ? 'kilometers_per_hour' : 'miles_per_hour');
    if (v.ok) out.push({ ...base, metric: 'speed', value: { value: v.value }, source: 'motive:speed' });
  }
  if (want('heading')) {
    const h = checkRange(rawNumber(p.bearing), 0, 360);
    if (h.ok) out.push({ ...base, metric: 'heading', value: { value: h.value }, source: 'motive:bearing' });
  }
  if (want('fuelPercent')) {
    const f = checkRange(rawNumber(p.fuel_primary_remaining_percentage), 0, 100);
    if (f.ok) out.push({ ...base, metric: 'fuelPercent', value: { value: f.value }, source: 'motive:fuel_primary_remaining_percentage' });
  }
  if (want('batteryVoltage')) {
    const b = toVolts(rawNumber(p.battery_voltage), 'volts'); // volts (unconfirmed)
    if (b.ok) out.push({ ...base, metric: 'batteryVoltage', value: { value: b.value }, source: 'motive:battery_voltage' });
  }
  if (want('engineState')) {
    const state = deriveEngineState(p.type, p.speed);
    if (state) out.push({ ...base, metric: 'engineState', value: { state }, source: 'motive:type' });
  }
  // totalIdleTime: Motive has only daily idle_time rollups in the company zone, no cumulative counter.
  return out;
}

/**
 * `ongoing` periods are not trips yet (left out silently); `no_vehicle` (cannot be attributed) and
 * `unreadable_times` (start/end not RFC 3339) are reported by the adapter as skipped records.
 */
export type TripOutcome = { readonly kind: 'trip'; readonly trip: TripRecord } | { readonly kind: 'skipped'; readonly reason: 'ongoing' | 'no_vehicle' | 'unreadable_times' };

/** `origin_lat/lon` or `destination_lat/lon` → a location cell: both numbers in range, else missing/invalid naming the wire fields. */
function periodLocation(lat: Wire<number>, lon: Wire<number>, names: string): Field<LatLon> {
  const s = MOTIVE_TRIP_SOURCE;
  if (lat.kind === 'absent' || lon.kind === 'absent') return missing(s, `${names}: not reported`);
  const la = checkRange(rawNumber(lat), -90, 90);
  const lo = checkRange(rawNumber(lon), -180, 180);
  if (!la.ok || !lo.ok) return invalid(s, `${names}: not a coordinate in range`);
  return available({ latitude: la.value, longitude: lo.value }, s);
}

/**
 * A driving period → TripRecord. Distance is the odometer delta (`end_kilometers - start_kilometers`,
 * basis `odometer`) in kilometres: the fields are km whatever the embedded vehicle's `metric_units`
 * says (that flag is the vehicle's display preference; a live capture with `metric_units: false`
 * has a 67.885 km delta beside `"distance": "42.2 mi"`). A negative delta (an odometer reset inside
 * the period) is invalid, not a negative or zero distance. Start/end locations are `origin_lat/lon`
 * and `destination_lat/lon`. `fallbackVehicleId` attributes periods without an embedded vehicle
 * (unconfirmed field) when exactly one vehicle was asked for.
 */
export function mapDrivingPeriod(dp: MotiveDrivingPeriod, ctx: { fallbackVehicleId?: string; fetchedAt: string }): TripOutcome {
  if (dp.end_time === null) return { kind: 'skipped', reason: 'ongoing' };
  const vehicleSourceId = dp.vehicle ? String(dp.vehicle.id) : ctx.fallbackVehicleId;
  if (!vehicleSourceId) return { kind: 'skipped', reason: 'no_vehicle' };
  const startedAt = normalizeTime(dp.start_time);
  const endedAt = normalizeTime(dp.end_time);
  if (!startedAt || !endedAt) return { kind: 'skipped', reason: 'unreadable_times' };
  const elapsedMs = Date.parse(endedAt) - Date.parse(startedAt);
  const duration = toTripMilliseconds(rawNumber(dp.duration), 'seconds');
  const s = MOTIVE_TRIP_SOURCE;
  let distanceKm = missing<number>(s, 'start_kilometers/end_kilometers: not reported');
  const start = rawNumber(dp.start_kilometers);
  const end = rawNumber(dp.end_kilometers);
  if (start !== undefined && end !== undefined) {
    if (typeof start !== 'number' || typeof end !== 'number') distanceKm = invalid(s, 'start_kilometers/end_kilometers: retyped');
    else {
      const km = toTripKilometers(end - start, 'kilometers');
      distanceKm = km.ok ? available(km.value, s) : invalid(s, `odometer delta ${km.status === 'invalid' ? km.reason : 'missing'} (odometer reset?)`);
    }
  }
  return {
    kind: 'trip',
    trip: {
      provider: 'motive',
      sourceId: String(dp.id),
      vehicleSourceId,
      driverSourceId: dp.driver ? String(dp.driver.id) : null,
      startedAt,
      endedAt,
      // The reported driving `duration` (s) when usable, else the elapsed interval.
      durationMs: duration.ok ? duration.value : Math.max(0, elapsedMs),
      distanceKm,
      distanceBasis: distanceKm.status === 'available' ? 'odometer' : null,
      startLocation: periodLocation(dp.origin_lat, dp.origin_lon, 'origin_lat/origin_lon'),
      endLocation: periodLocation(dp.destination_lat, dp.destination_lon, 'destination_lat/destination_lon'),
      fetchedAt: ctx.fetchedAt,
    },
  };
}

/**
 * Fault identity within a vehicle: OBD-II `obdii:<code>`; J1939 `j1939:spn<code>:fmi<fmi>` (Motive's
 * `code` is the SPN), so SPN 110 FMI 0 and FMI 1 are distinct faults; other networks `<network>:<code>`.
 */
export function faultKeyOf(f: MotiveFaultCode): string {
  const network = (f.network ?? 'unknown').toLowerCase();
  const hasFmi = f.fmi != null && f.fmi !== '';
  if (network === 'j1939' && hasFmi) return `j1939:spn${f.code}:fmi${String(f.fmi)}`;
  return hasFmi ? `${network}:${f.code}:fmi${String(f.fmi)}` : `${network}:${f.code}`;
}

/** The display code: `SPN <spn> FMI <fmi>` for J1939 (as the other adapters write it), else Motive's `code`. */
export function faultCodeOf(f: MotiveFaultCode): string {
  return (f.network ?? '').toLowerCase() === 'j1939' && f.fmi != null && f.fmi !== '' ? `SPN ${f.code} FMI ${String(f.fmi)}` : f.code;
}

/** Motive says `open` (the guide prose says `opened`) or `closed`; anything else (undefined) cannot be placed in a complete snapshot. */
export function isOpenFault(f: MotiveFaultCode): boolean | undefined {
  const status = f.status.toLowerCase();
  if (status === 'open' || status === 'opened') return true;
  if (status === 'closed') return false;
  return undefined;
}

/**
 * Complete snapshots per vehicle from a full scan of fault codes: every vehicle in `vehicleSourceIds`
 * (or, without a filter, every vehicle that appears in the scan) gets one, possibly empty — an empty
 * snapshot is how a cleared fault is reported in the complete_snapshot model. A vehicle with a code
 * that cannot be placed (unknown status, or a malformed code of it in `unreadable`) gets no snapshot:
 * leaving the code out would claim it cleared. It is reported through `skip` instead, and its last
 * good snapshot stands. An unreadable code of an unknown vehicle (`vehicleSourceId` null) withholds
 * every snapshot of the scan.
 */
export function buildFaultSnapshots(
  codes: readonly MotiveFaultCode[],
  opts: { vehicleSourceIds?: readonly string[]; observedAt: string; fetchedAt: string; unreadable?: readonly SkippedRecord[] },
  skip: (record: SkippedRecord) => void,
): FaultSnapshot[] {
  const wanted = opts.vehicleSourceIds ? new Set(opts.vehicleSourceIds) : undefined;
  const byVehicle = new Map<string, Map<string, FaultCode>>();
  const withheld = new Map<string, string>();
  for (const id of opts.vehicleSourceIds ?? []) byVehicle.set(id, new Map());
  for (const f of codes) {
    const vehicleId = String(f.vehicle.id);
    if (wanted && !wanted.has(vehicleId)) continue;
    const active = byVehicle.get(vehicleId) ?? new Map<string, FaultCode>();
    byVehicle.set(vehicleId, active);
    const open = isOpenFault(f);
    if (open === undefined && !withheld.has(vehicleId)) withheld.set(vehicleId, `fault_code ${f.id}: unknown status ${JSON.stringify(f.status.slice(0, 32))}`);
    if (!open) continue;
    const parts = [f.code_description, f.fmi_description].flatMap((w) => (w.kind === 'value' && w.value.trim() !== '' ? [w.value.trim()] : []));
    const count = f.occurrence_count;
    const occurrenceCount = faultKeyOf(f).startsWith('j1939:') && typeof count === 'number' && Number.isInteger(count) && count >= 0 ? { occurrenceCount: count } : {};
    active.set(faultKeyOf(f), { faultKey: faultKeyOf(f), code: faultCodeOf(f), description: parts.length > 0 ? parts.join(' — ') : null, ...occurrenceCount });
  }
  const unattributed = opts.unreadable?.find((r) => r.sourceId === null);
  for (const record of opts.unreadable ?? []) {
    if (record.sourceId !== null && (!wanted || wanted.has(record.sourceId)) && !withheld.has(record.sourceId)) {
      byVehicle.set(record.sourceId, byVehicle.get(record.sourceId) ?? new Map());
      withheld.set(record.sourceId, record.reason);
    }
  }
  for (const vehicleId of byVehicle.keys()) {
    const reason = withheld.get(vehicleId) ?? (unattributed ? `${unattributed.reason} (a fault code of an unknown vehicle)` : undefined);
    if (reason !== undefined) skip({ sourceId: vehicleId, reason: `${reason}, so the snapshot cannot be complete` });
  }
  return [...byVehicle.entries()]
    .filter(([vehicleSourceId]) => !withheld.has(vehicleSourceId) && !unattributed)
    .sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))
    .map(([vehicleSourceId, active]) => ({
      model: 'complete_snapshot' as const,
      provider: 'motive' as const,
      vehicleSourceId,
      observedAt: opts.observedAt,
      active: [...active.values()].sort((a, b) => a.faultKey.localeCompare(b.faultKey)),
      fetchedAt: opts.fetchedAt,
    }));
}
