/**
 * One account's view of the shared fleet with the data-level scenarios applied, read live from the
 * account's scenarios on every call:
 * - odometer_reset: from `atMs` the odometer reads `toMeters` + distance driven since `atMs`
 *   (stateAt and trip odometers; trip distances stay the true distance driven).
 * - device_swap: from `atMs` the vehicle's device serial changes (a new one per swap);
 *   `vehicle(i)` / `vehicles()` show the serial at the clock's now.
 * - late_history: `historyVisible(t)` is false for t in [fromMs, toMs) until the clock passes
 *   `availableAtMs`; `sampleTimes`, `tripsBetween` and `faultEventsBetween` leave such times out.
 *   `stateAt` is not filtered: it is also the latest-state source.
 * - standing_fault: the catalog fault is active from `openedAtMs` until `clearedAtMs` (stateAt's
 *   activeFaults, unless the vehicle's own schedule has the key active then) and opens and clears
 *   in faultEventsBetween, so every provider renders it as it renders the vehicle's own faults.
 */
import { CATALOG_FAULTS, faultKey } from '../fleet/catalog.js';
import type { Fleet, SimFault, SimFaultEvent, SimTrip, SimVehicle, SimClock, VehicleState } from '../fleet/fleet.types.js';
import { Stream, hashString } from '../fleet/prng.js';
import type { Scenario } from './scenario.types.js';
import type { AccountFleet } from './sim-kit.types.js';

type Reset = Extract<Scenario, { kind: 'odometer_reset' }>;
type Swap = Extract<Scenario, { kind: 'device_swap' }>;
type Late = Extract<Scenario, { kind: 'late_history' }>;
type Standing = Extract<Scenario, { kind: 'standing_fault' }>;

/** The SimFault of a standing_fault scenario (its code from the catalog; the schema admits catalog keys only). */
function standingFault(s: Standing, clearedAtMs: number | null): SimFault {
  const code = CATALOG_FAULTS.get(s.fault);
  if (!code) throw new Error(`standing_fault: ${s.fault} is not a catalog fault`);
  return { key: faultKey(code), protocol: code.protocol, code: code.code, ...(code.spn !== undefined ? { spn: code.spn, fmi: code.fmi } : {}), description: code.description, openedAtMs: s.openedAtMs, clearedAtMs };
}

const SERIAL_CHARS = 'ABCDEFGHJKLMNPRSTUVWXYZ23456789';

/** The serial a vehicle's device carries after its `swaps`-th swap (0 = the original). */
export function swappedSerial(original: string, swaps: number): string {
  if (swaps === 0) return original;
  const draw = new Stream(hashString(`device_swap:${original}:${swaps}`));
  let out = 'SY';
  for (let i = 0; i < 10; i++) out += SERIAL_CHARS[draw.int(0, SERIAL_CHARS.length - 1)];
  return out;
}

export function createAccountFleet(fleet: Fleet, clock: SimClock, scenarios: () => readonly Scenario[]): AccountFleet {
  const of = <K extends Scenario['kind']>(kind: K) => scenarios().filter((s): s is Extract<Scenario, { kind: K }> => s.kind === kind);

  const resetOdometer = (v: number, tMs: number, odometerM: number | null): number | null => {
    if (odometerM === null) return null;
    const resets = of('odometer_reset').filter((r: Reset) => r.vehicleIndex === v && r.atMs <= tMs);
    if (resets.length === 0) return odometerM;
    const last = resets.reduce((a, b) => (b.atMs >= a.atMs ? b : a));
    const atReset = fleet.stateAt(v, last.atMs).odometerM ?? 0;
    return last.toMeters + (odometerM - atReset);
  };

  const swapsAt = (v: number, tMs: number): number => of('device_swap').filter((s: Swap) => s.vehicleIndex === v && s.atMs <= tMs).length;

  const historyVisible = (tMs: number): boolean => {
    const now = clock.now();
    return !of('late_history').some((l: Late) => tMs >= l.fromMs && tMs < l.toMs && now < l.availableAtMs);
  };

  const withSerial = (vehicle: SimVehicle): SimVehicle => {
    const now = clock.now();
    const swaps = of('device_swap').filter((s) => s.vehicleIndex === vehicle.index && s.atMs <= now);
    if (swaps.length === 0) return vehicle;
    const lastSwap = Math.max(...swaps.map((s) => s.atMs));
    return { ...vehicle, serialNumber: swappedSerial(vehicle.serialNumber, swaps.length), updatedAtMs: Math.max(vehicle.updatedAtMs, lastSwap) };
  };

  const standing = (v: number): Standing[] => of('standing_fault').filter((s) => s.vehicleIndex === v);

  const stateAt = (v: number, tMs: number): VehicleState => {
    const state = fleet.stateAt(v, tMs);
    const odometerM = resetOdometer(v, tMs, state.odometerM);
    const own = new Set(state.activeFaults.map((f) => f.key));
    const extra = standing(v)
      .filter((s) => s.openedAtMs <= tMs && tMs < (s.clearedAtMs ?? Infinity))
      .map((s) => standingFault(s, null))
      .filter((f) => !own.has(f.key));
    if (odometerM === state.odometerM && extra.length === 0) return state;
    const activeFaults = [...state.activeFaults, ...extra].sort((a, b) => a.openedAtMs - b.openedAtMs || a.key.localeCompare(b.key));
    return { ...state, odometerM, activeFaults };
  };

  const faultEventsBetween = (v: number, fromMs: number, toMs: number): SimFaultEvent[] => {
    const events = [...fleet.faultEventsBetween(v, fromMs, toMs)];
    for (const s of standing(v)) {
      const cleared = s.clearedAtMs !== undefined && s.clearedAtMs < toMs ? s.clearedAtMs : null;
      if (s.openedAtMs >= fromMs && s.openedAtMs < toMs) events.push({ vehicleIndex: v, fault: standingFault(s, cleared), kind: 'opened', tMs: s.openedAtMs });
      if (s.clearedAtMs !== undefined && s.clearedAtMs >= fromMs && s.clearedAtMs < toMs) events.push({ vehicleIndex: v, fault: standingFault(s, s.clearedAtMs), kind: 'cleared', tMs: s.clearedAtMs });
    }
    return events.filter((e) => historyVisible(e.tMs)).sort((a, b) => a.tMs - b.tMs || a.fault.key.localeCompare(b.fault.key));
  };

  const tripsBetween = (v: number, fromMs: number, toMs: number, nowMs: number): readonly SimTrip[] =>
    fleet
      .tripsBetween(v, fromMs, toMs, nowMs)
      .filter((trip) => historyVisible(trip.startMs))
      .map((trip) => {
        const startOdometerM = resetOdometer(v, trip.startMs, trip.startOdometerM);
        const endOdometerM = resetOdometer(v, trip.endMs, trip.endOdometerM);
        return startOdometerM === trip.startOdometerM && endOdometerM === trip.endOdometerM ? trip : { ...trip, startOdometerM, endOdometerM };
      });

  return {
    options: fleet.options,
    vehicles: () => (of('device_swap').length === 0 ? fleet.vehicles() : fleet.vehicles().map(withSerial)),
    drivers: () => fleet.drivers(),
    groups: () => fleet.groups(),
    vehicle: (index) => withSerial(fleet.vehicle(index)),
    stateAt,
    tripsBetween,
    faultEventsBetween,
    sampleTimes: (v, fromMs, toMs, stepMs) => fleet.sampleTimes(v, fromMs, toMs, stepMs).filter(historyVisible),
    deviceSerial: (v, tMs) => swappedSerial(fleet.vehicle(v).serialNumber, swapsAt(v, tMs)),
    historyVisible,
  };
}
