/**
 * MyGeotab telemetry → normalized Observations: LogRecord (GPS, km/h), StatusData (KnownId
 * diagnostics, already SI: metres, seconds, percent, volts) and DeviceStatusInfo (latest state).
 *
 * Invariants: an observation always carries a real value — absent, malformed or out-of-range
 * readings are simply not emitted (never 0); a position of exactly (0, 0) is Geotab's "no fix"
 * (unconfirmed, but no fleet parks at Null Island) and is dropped. Engine state is OUR derivation,
 * not a Geotab field (geotab.md §6.5): ignition 0 → off; ignition 1 and moving (speed > 0 or
 * `isDriving`) → on; ignition 1 and speed 0 → idle.
 */
import { checkRange, isRfc3339DateTime, toMeters, toMetersPerSecond, toSeconds, type EngineState, type Observation, type TelemetryMetric } from '@switchyard/domain';
import { GEOTAB_DIAGNOSTICS, type GeotabDeviceStatusInfo, type GeotabLogRecord, type GeotabStatusData } from './geotab.schemas.js';

type ObservationOf<M extends TelemetryMetric> = Extract<Observation, { metric: M }>;

function observation<M extends TelemetryMetric>(
  metric: M,
  vehicleSourceId: string,
  value: ObservationOf<M>['value'],
  source: string,
  observedAt: string,
  fetchedAt: string,
): Observation {
  return { provider: 'geotab', vehicleSourceId, metric, value, source, observedAt, fetchedAt } as Observation;
}

function iso(raw: string): string | null {
  return isRfc3339DateTime(raw) ? new Date(raw).toISOString() : null;
}

function position(latitude: unknown, longitude: unknown): { latitude: number; longitude: number } | null {
  const lat = checkRange(latitude, -90, 90);
  const lon = checkRange(longitude, -180, 180);
  if (!lat.ok || !lon.ok || (lat.value === 0 && lon.value === 0)) return null;
  return { latitude: lat.value, longitude: lon.value };
}

/** LogRecord → location and speed (km/h → m/s). LogRecord has no heading. */
export function logRecordObservations(record: GeotabLogRecord, metrics: ReadonlySet<TelemetryMetric>, fetchedAt: string): Observation[] {
  const at = iso(record.dateTime);
  if (!at) return [];
  const out: Observation[] = [];
  const where = position(record.latitude, record.longitude);
  if (metrics.has('location') && where) out.push(observation('location', record.device, where, 'geotab:LogRecord', at, fetchedAt));
  const speed = toMetersPerSecond(record.speed, 'kilometers_per_hour');
  if (metrics.has('speed') && speed.ok) out.push(observation('speed', record.device, { value: speed.value }, 'geotab:LogRecord.speed', at, fetchedAt));
  return out;
}

/** Which metric each StatusData diagnostic feeds. Ignition feeds engineState through `engineState`. */
export const DIAGNOSTIC_FOR_METRIC: Partial<Record<TelemetryMetric, string>> = {
  odometer: GEOTAB_DIAGNOSTICS.odometer,
  engineHours: GEOTAB_DIAGNOSTICS.engineHours,
  fuelPercent: GEOTAB_DIAGNOSTICS.fuelLevel,
  batteryVoltage: GEOTAB_DIAGNOSTICS.voltage,
  engineState: GEOTAB_DIAGNOSTICS.ignition,
};

/** StatusData → one observation, or null when the diagnostic is not one we map or the value is bad. */
export function statusDataObservation(record: GeotabStatusData, fetchedAt: string): Observation | null {
  const at = iso(record.dateTime);
  if (!at) return null;
  const source = `geotab:${record.diagnostic}`;
  switch (record.diagnostic) {
    case GEOTAB_DIAGNOSTICS.odometer: {
      const m = toMeters(record.data, 'meters');
      return m.ok ? observation('odometer', record.device, { meters: m.value }, source, at, fetchedAt) : null;
    }
    case GEOTAB_DIAGNOSTICS.engineHours: {
      // Despite the name, DiagnosticEngineHoursId is in seconds (UnitOfMeasure has no hours unit).
      const s = toSeconds(record.data, 'seconds');
      return s.ok ? observation('engineHours', record.device, { seconds: s.value }, source, at, fetchedAt) : null;
    }
    case GEOTAB_DIAGNOSTICS.fuelLevel: {
      const pct = checkRange(record.data, 0, 100);
      return pct.ok ? observation('fuelPercent', record.device, { value: pct.value }, source, at, fetchedAt) : null;
    }
    case GEOTAB_DIAGNOSTICS.voltage: {
      const v = checkRange(record.data, 0, 100);
      return v.ok ? observation('batteryVoltage', record.device, { value: v.value }, source, at, fetchedAt) : null;
    }
    default:
      return null;
  }
}

/** Our engine-state rule (see the file header). Undefined when there is not enough to decide. */
export function engineStateOf(ignition: number | null | undefined, speedKmh: number | null | undefined, isDriving?: boolean | null): EngineState | undefined {
  if (isDriving === true) return 'on';
  if (ignition === 0) return 'off';
  if (ignition === 1) {
    if (typeof speedKmh === 'number' && speedKmh > 0) return 'on';
    if (typeof speedKmh === 'number' && speedKmh === 0) return 'idle';
    return isDriving === false ? 'idle' : undefined;
  }
  return undefined;
}

/**
 * Latest state of one device: DeviceStatusInfo (position, speed, bearing, isDriving) plus the
 * latest ignition StatusData. The engine-state reading is dated by the newer of its two inputs.
 */
export function deviceStatusObservations(
  dsi: GeotabDeviceStatusInfo,
  ignition: GeotabStatusData | undefined,
  metrics: ReadonlySet<TelemetryMetric>,
  fetchedAt: string,
): Observation[] {
  const at = iso(dsi.dateTime);
  const out: Observation[] = [];
  if (at) {
    const where = position(dsi.latitude, dsi.longitude);
    if (metrics.has('location') && where) out.push(observation('location', dsi.device, where, 'geotab:DeviceStatusInfo', at, fetchedAt));
    const speed = toMetersPerSecond(dsi.speed, 'kilometers_per_hour');
    if (metrics.has('speed') && speed.ok) out.push(observation('speed', dsi.device, { value: speed.value }, 'geotab:DeviceStatusInfo.speed', at, fetchedAt));
    const heading = checkRange(dsi.bearing, 0, 360);
    if (metrics.has('heading') && heading.ok) out.push(observation('heading', dsi.device, { value: heading.value }, 'geotab:DeviceStatusInfo.bearing', at, fetchedAt));
  }
  if (metrics.has('engineState')) {
    const ignitionAt = ignition ? iso(ignition.dateTime) : null;
    const ignitionValue = ignitionAt ? ignition?.data : undefined;
    const state = engineStateOf(ignitionValue, at ? dsi.speed : undefined, at ? dsi.isDriving : undefined);
    const when = [at, ignitionAt].filter((t): t is string => t !== null).sort().at(-1);
    if (state && when) {
      const source = dsi.isDriving === true ? 'geotab:DeviceStatusInfo.isDriving' : `geotab:${GEOTAB_DIAGNOSTICS.ignition}+DeviceStatusInfo.speed`;
      out.push(observation('engineState', dsi.device, { state }, source, when, fetchedAt));
    }
  }
  return out;
}

/**
 * Engine-state history of one device from ignition StatusData and LogRecord speeds, merged by
 * time: a state is emitted at every ignition record and every GPS record, using the last known
 * ignition value (`initialIgnition` is the value in effect at the window start) and the last known
 * speed. Consecutive duplicates are collapsed so the result is a list of transitions plus the first.
 */
export function engineStateHistory(
  device: string,
  ignitions: readonly GeotabStatusData[],
  logs: readonly GeotabLogRecord[],
  initialIgnition: number | undefined,
  fetchedAt: string,
): Observation[] {
  type Event = { at: string; ms: number; ignition?: number; speed?: number };
  const events: Event[] = [];
  for (const r of ignitions) {
    const at = iso(r.dateTime);
    if (at && (r.data === 0 || r.data === 1)) events.push({ at, ms: Date.parse(at), ignition: r.data });
  }
  for (const r of logs) {
    const at = iso(r.dateTime);
    if (at && typeof r.speed === 'number' && r.speed >= 0) events.push({ at, ms: Date.parse(at), speed: r.speed });
  }
  // Ignition before GPS within one instant, so a key-on fix is read after the key-on resets the speed.
  events.sort((a, b) => a.ms - b.ms || Number(a.ignition === undefined) - Number(b.ignition === undefined));
  const out: Observation[] = [];
  let ignition = initialIgnition;
  let speed: number | undefined;
  let last: EngineState | undefined;
  for (let n = 0; n < events.length; n++) {
    const event = events[n] as Event;
    if (event.ignition !== undefined) {
      // A key-on or key-off makes the last GPS speed stale: until a fix says otherwise the vehicle is standing.
      if (event.ignition !== ignition) speed = 0;
      ignition = event.ignition;
    }
    if (event.speed !== undefined) speed = event.speed;
    // Apply every record of one instant before deciding (ignition and a GPS fix at key-on share a time).
    if (events[n + 1]?.ms === event.ms) continue;
    const state = engineStateOf(ignition, speed);
    if (!state || state === last) continue;
    last = state;
    out.push(observation('engineState', device, { state }, `geotab:${GEOTAB_DIAGNOSTICS.ignition}+LogRecord.speed`, event.at, fetchedAt));
  }
  return out;
}
