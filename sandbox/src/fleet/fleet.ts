/**
 * `createFleet`: the deterministic synthetic fleet (see fleet.types.ts for the invariants). Static
 * entities are built once (~1 KB per vehicle); everything time-dependent is computed on demand from
 * the day plans of schedule.ts, the route loop of route.ts and the fault slots of faults.ts, so
 * `stateAt`, `tripsBetween` and the odometer always agree: trip distance == odometer delta exactly.
 */
import { makeDriver, makeGroups, makeVehicle, type VehicleProfile } from './entities.js';
import { FaultSchedule } from './faults.js';
import type { Fleet, FleetOptions, SimDriver, SimEngineState, SimGroup, SimTrip, SimVehicle, VehicleState } from './fleet.types.js';
import { TAG, hashString, unit } from './prng.js';
import { makeRoute, pointAt, type Route } from './route.js';
import { Schedule, fuelUsedPct, type Part } from './schedule.js';

export { fixedClock, acceleratedClock, isControllableClock, type ControllableClock, type ClockSetting } from './clock.js';

export const DEFAULT_EPOCH_MS = Date.UTC(2025, 0, 1);
/** Off-engine history cadence: one sample an hour between trips (GPS units report sparsely when parked). */
const PARKED_SAMPLE_MS = 3_600_000;

export function resolveFleetOptions(options: FleetOptions): Required<FleetOptions> {
  if (!Number.isInteger(options.vehicles) || options.vehicles < 0) throw new Error('fleet: vehicles must be a non-negative integer');
  return {
    seed: options.seed,
    vehicles: options.vehicles,
    drivers: options.drivers ?? Math.round(options.vehicles * 1.2),
    groups: options.groups ?? Math.max(3, Math.round(options.vehicles / 20)),
    epochMs: options.epochMs ?? DEFAULT_EPOCH_MS,
  };
}

export function createFleet(input: FleetOptions): Fleet {
  const options = resolveFleetOptions(input);
  const root = hashString(`switchyard-fleet:${options.seed}`);
  const groups: SimGroup[] = makeGroups(root, options.groups);
  const vehicles: SimVehicle[] = [];
  const profiles: VehicleProfile[] = [];
  for (let i = 0; i < options.vehicles; i++) {
    const [vehicle, profile] = makeVehicle(root, i, options.epochMs, groups, options.drivers);
    vehicles.push(vehicle);
    profiles.push(profile);
  }
  const drivers: SimDriver[] = [];
  for (let i = 0; i < options.drivers; i++) drivers.push(makeDriver(root, i, options.epochMs, groups));
  const routes = new Map<number, Route>();

  const vehicle = (index: number): SimVehicle => {
    const v = vehicles[index];
    if (!v) throw new RangeError(`fleet: no vehicle ${index}`);
    return v;
  };
  const profile = (index: number): VehicleProfile => profiles[index] as VehicleProfile;
  const route = (index: number): Route => {
    let r = routes.get(index);
    if (!r) routes.set(index, (r = makeRoute(root, index, profile(index))));
    return r;
  };
  const schedule = new Schedule({ root, epochMs: options.epochMs, drivers: options.drivers, vehicle, profile }, options.vehicles);
  const faults = new FaultSchedule(root, options.epochMs);

  const battery = (v: number, tMs: number, running: boolean): number => {
    const noise = unit(root, TAG.battery, v, Math.floor(tMs / 60_000));
    return Math.round((running ? 13.8 + 0.6 * noise : 12.2 + 0.5 * noise) * 100) / 100;
  };

  function stateAt(v: number, tMs: number): VehicleState {
    const sv = vehicle(v);
    const p = profile(v);
    const day = schedule.dayOf(tMs);
    const plan = schedule.plan(v, day);
    const start = schedule.dayStart(v, day);
    let { distanceM, engineS, idleS, fuelPct } = start;
    const refuel = schedule.refuelTo(v, plan, fuelPct);
    if (refuel !== null && plan.shift && tMs >= plan.shift.startMs) fuelPct = refuel;
    let current: Part | null = null;
    let driverIndex: number | null = plan.shift && tMs >= plan.shift.startMs && tMs < plan.shift.endMs ? plan.shift.driverIndex : null;
    for (const trip of plan.trips) {
      if (tMs < trip.startMs) break;
      if (tMs >= trip.endMs) {
        const tripS = (trip.endMs - trip.startMs) / 1000;
        distanceM += trip.distanceM;
        engineS += tripS;
        idleS += trip.idleS;
        fuelPct -= fuelUsedPct(p, tripS, trip.idleS);
        continue;
      }
      driverIndex = trip.driverIndex;
      let runS = 0;
      let runIdleS = 0;
      for (const part of trip.parts) {
        if (tMs < part.startMs) break;
        const partS = (part.endMs - part.startMs) / 1000;
        const elapsedS = tMs >= part.endMs ? partS : Math.floor((tMs - part.startMs) / 1000);
        if (tMs < part.endMs) current = part;
        // Whole meters, monotonic in elapsed time, exactly part.distanceM at the part's end.
        distanceM += Math.floor((part.distanceM * elapsedS) / partS);
        runS += elapsedS;
        if (part.kind === 'idle') runIdleS += elapsedS;
      }
      engineS += runS;
      idleS += runIdleS;
      fuelPct -= fuelUsedPct(p, runS, runIdleS);
    }
    const point = pointAt(route(v), distanceM);
    const engineState: SimEngineState = current === null ? 'off' : current.kind === 'drive' ? 'on' : 'idle';
    const speedMps = current?.kind === 'drive' ? current.distanceM / ((current.endMs - current.startMs) / 1000) : 0;
    return {
      tMs,
      latitude: point.latitude,
      longitude: point.longitude,
      speedMps,
      headingDeg: point.headingDeg,
      odometerM: sv.hasOdometer ? sv.initialOdometerM + distanceM : null,
      engineSeconds: sv.initialEngineS + engineS,
      idleSeconds: idleS,
      fuelPercent: sv.reportsFuel ? Math.round(fuelPct * 10) / 10 : null,
      batteryVolts: battery(v, tMs, engineState !== 'off'),
      engineState,
      driverIndex,
      activeFaults: faults.active(v, p, tMs),
    };
  }

  function tripsBetween(v: number, fromMs: number, toMs: number, nowMs: number): SimTrip[] {
    const sv = vehicle(v);
    const upTo = Math.min(toMs, nowMs);
    if (upTo <= fromMs) return [];
    const out: SimTrip[] = [];
    const firstDay = Math.max(0, schedule.dayOf(fromMs));
    const lastDay = schedule.dayOf(upTo - 1);
    if (lastDay < firstDay) return [];
    const start = schedule.dayStart(v, firstDay);
    let distanceM = start.distanceM;
    let seq = start.trips;
    for (let d = firstDay; d <= lastDay; d++) {
      for (const trip of schedule.plan(v, d).trips) {
        const startDistance = distanceM;
        distanceM += trip.distanceM;
        seq += 1;
        if (trip.startMs < fromMs || trip.startMs >= upTo || trip.endMs > nowMs) continue;
        const a = pointAt(route(v), startDistance);
        const b = pointAt(route(v), distanceM);
        out.push({
          vehicleIndex: v,
          driverIndex: trip.driverIndex,
          startMs: trip.startMs,
          endMs: trip.endMs,
          distanceM: trip.distanceM,
          startOdometerM: sv.hasOdometer ? sv.initialOdometerM + startDistance : null,
          endOdometerM: sv.hasOdometer ? sv.initialOdometerM + distanceM : null,
          start: { latitude: a.latitude, longitude: a.longitude },
          end: { latitude: b.latitude, longitude: b.longitude },
          idleSeconds: trip.idleS,
          seq: seq - 1,
        });
      }
    }
    return out;
  }

  function sampleTimes(v: number, fromMs: number, toMs: number, stepMs: number): number[] {
    if (!(stepMs > 0)) throw new RangeError('fleet: stepMs must be positive');
    const times = new Set<number>();
    const parkedStep = Math.max(stepMs, PARKED_SAMPLE_MS);
    const aligned = (t: number, step: number): number => Math.ceil(t / step) * step;
    for (let t = aligned(fromMs, parkedStep); t < toMs; t += parkedStep) times.add(t);
    const firstDay = schedule.dayOf(fromMs);
    const lastDay = schedule.dayOf(toMs - 1);
    for (let d = Math.max(0, firstDay); d <= lastDay; d++) {
      for (const trip of schedule.plan(v, d).trips) {
        if (trip.endMs <= fromMs || trip.startMs >= toMs) continue;
        if (trip.startMs >= fromMs) times.add(trip.startMs);
        for (let t = aligned(Math.max(fromMs, trip.startMs), stepMs); t < Math.min(toMs, trip.endMs); t += stepMs) times.add(t);
        if (trip.endMs < toMs) times.add(trip.endMs);
      }
    }
    return [...times].sort((a, b) => a - b);
  }

  return {
    options,
    vehicles: () => vehicles,
    drivers: () => drivers,
    groups: () => groups,
    vehicle,
    stateAt,
    tripsBetween,
    faultEventsBetween: (v, fromMs, toMs) => faults.events(v, profile(vehicle(v).index), fromMs, toMs),
    sampleTimes,
  };
}
