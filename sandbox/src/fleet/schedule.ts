/**
 * Shift schedules: which intervals a vehicle drives, idles or stands still on a given day, and the
 * running totals (distance, engine / idle seconds, fuel, trip count) at the start of any day.
 *
 * A day is a pure function of (seed, vehicle, day): a shift window (05:00-10:00 start, 6-10 h long)
 * on ~90 % of weekdays and ~25 % of weekend days, holding up to 12 trips; the first starts 5-30 min
 * into the shift (inspection, refuel at shift start when below 35 %). A trip is one engine-on
 * interval: warm-up idle, 1-4 drive parts at a constant speed separated by short idles, an optional
 * cool-down idle; engine off between trips. All durations are whole seconds and all distances whole
 * meters, so odometer deltas and trip distances are exact integers.
 * Totals before a day come from checkpoints every 32 days per vehicle (5 doubles each: ~1 KB per
 * vehicle per 18 years) plus at most 31 day walks, so memory stays bounded for 10,000 vehicles.
 */
import type { SimVehicle } from './fleet.types.js';
import type { VehicleProfile } from './entities.js';
import { Stream, TAG, hash, unit } from './prng.js';

export const DAY_MS = 86_400_000;
const CHECKPOINT_DAYS = 32;
const MAX_TRIPS = 12;
/** Refuel at shift start below this level; a 10 h shift burns at most 30 %, so fuel never runs out. */
const REFUEL_BELOW_PCT = 35;

export interface Part {
  readonly kind: 'drive' | 'idle';
  readonly startMs: number;
  readonly endMs: number;
  /** Whole meters, 0 for idle parts. */
  readonly distanceM: number;
}

export interface DayTrip {
  readonly startMs: number;
  readonly endMs: number;
  readonly parts: readonly Part[];
  readonly driverIndex: number | null;
  readonly distanceM: number;
  readonly idleS: number;
}

export interface DayPlan {
  readonly day: number;
  readonly shift: { startMs: number; endMs: number; driverIndex: number | null } | null;
  /** Fuel level right after the shift-start refuel, or null when the day starts without one. */
  readonly refuelToPct: number | null;
  readonly trips: readonly DayTrip[];
}

/** Running totals at the start of a day (fuel before that day's refuel). */
export interface DayStart {
  distanceM: number;
  engineS: number;
  idleS: number;
  trips: number;
  fuelPct: number;
}

export interface ScheduleContext {
  readonly root: number;
  readonly epochMs: number;
  readonly drivers: number;
  vehicle(index: number): SimVehicle;
  profile(index: number): VehicleProfile;
}

const EMPTY_DAY = (day: number): DayPlan => ({ day, shift: null, refuelToPct: null, trips: [] });

// Scratch space for one trip's parts (at most warm-up + 4 drives + 3 idles + cool-down = 9):
// walking a day allocates nothing, which keeps building checkpoints for 10,000 vehicles cheap.
const DUR = new Int32Array(9);
const IS_DRIVE = new Uint8Array(9);
const DIST = new Float64Array(9);

/** Called per trip with its parts in DUR / IS_DRIVE / DIST [0, n). */
type TripSink = (startMs: number, n: number, driverIndex: number | null) => void;
type ShiftSink = (startMs: number, endMs: number, driverIndex: number | null) => void;

/** The one definition of a day: draws the shift and its trips in a fixed order and reports them. */
function walkDay(ctx: ScheduleContext, v: number, day: number, onShift: ShiftSink | null, onTrip: TripSink): void {
  if (day < 0 || !ctx.vehicle(v).active) return;
  const profile = ctx.profile(v);
  const draw = new Stream(hash(ctx.root, TAG.day, v, day));
  const dayStartMs = ctx.epochMs + day * DAY_MS;
  const weekday = (Math.floor(dayStartMs / DAY_MS) + 4) % 7; // 1970-01-01 was a Thursday (4)
  const weekend = weekday === 0 || weekday === 6;
  if (draw.next() >= (weekend ? 0.25 : 0.9)) return;
  const shiftStartMs = dayStartMs + (5 * 3600 + draw.int(0, 300) * 60) * 1000;
  const shiftEndMs = shiftStartMs + draw.int(6 * 60, 10 * 60) * 60_000;
  const who = draw.next();
  const shiftDriver = ctx.drivers === 0 ? null : who < 0.8 ? profile.primaryDriver : who < 0.92 ? draw.int(0, ctx.drivers - 1) : null;
  onShift?.(shiftStartMs, shiftEndMs, shiftDriver);
  const [minSpeed, maxSpeed] = profile.model.speedMps;
  // Pre-trip inspection (and the refuel, when due) before the first engine start: 5-30 min.
  let t = shiftStartMs + draw.int(5, 30) * 60_000;
  for (let i = 0; i < MAX_TRIPS; i++) {
    // Draw the whole trip first so the stream's order never depends on where the shift ends.
    let n = 0;
    const part = (seconds: number, drive: boolean, distance: number) => {
      DUR[n] = seconds;
      IS_DRIVE[n] = drive ? 1 : 0;
      DIST[n] = distance;
      n++;
    };
    part(draw.int(30, 300), false, 0);
    const drives = draw.int(1, 4);
    for (let j = 0; j < drives; j++) {
      if (j > 0) part(draw.int(20, 240), false, 0);
      const seconds = draw.int(300, 2700);
      part(seconds, true, Math.round(seconds * draw.range(minSpeed, maxSpeed)));
    }
    const cooldown = draw.int(0, 120);
    if (cooldown > 0) part(cooldown, false, 0);
    const stopS = draw.int(600, 5400);
    const unassigned = draw.next() < 0.08;
    let totalS = 0;
    for (let j = 0; j < n; j++) totalS += DUR[j] as number;
    if (t + totalS * 1000 > shiftEndMs) break;
    onTrip(t, n, unassigned ? null : shiftDriver);
    t += (totalS + stopS) * 1000;
    if (t >= shiftEndMs) break;
  }
}

/** The day's plan, before the fuel decision (which depends on earlier days): `refuelToPct` unset. */
function buildDay(ctx: ScheduleContext, v: number, day: number): DayPlan {
  let shift: DayPlan['shift'] = null;
  const trips: DayTrip[] = [];
  walkDay(
    ctx,
    v,
    day,
    (startMs, endMs, driverIndex) => (shift = { startMs, endMs, driverIndex }),
    (startMs, n, driverIndex) => {
      const parts: Part[] = [];
      let at = startMs;
      let distanceM = 0;
      let idleS = 0;
      for (let j = 0; j < n; j++) {
        const seconds = DUR[j] as number;
        const drive = IS_DRIVE[j] === 1;
        parts.push({ kind: drive ? 'drive' : 'idle', startMs: at, endMs: at + seconds * 1000, distanceM: DIST[j] as number });
        distanceM += DIST[j] as number;
        if (!drive) idleS += seconds;
        at += seconds * 1000;
      }
      trips.push({ startMs, endMs: at, parts, driverIndex, distanceM, idleS });
    },
  );
  return { day, shift, refuelToPct: null, trips };
}

export function fuelUsedPct(profile: VehicleProfile, engineS: number, idleS: number): number {
  return (engineS - idleS) * profile.fuelDrivePctPerS + idleS * profile.fuelIdlePctPerS;
}

/** Per-fleet schedule with bounded caches: recent day plans (LRU) and per-vehicle checkpoints. */
export class Schedule {
  private readonly plans = new Map<number, DayPlan>();
  private readonly checkpoints = new Map<number, number[]>();
  /** Recent day starts (LRU): history queries ask for the same vehicle-day many times. */
  private readonly starts = new Map<number, DayStart>();

  /** Day starts are 5 numbers: keep two days per vehicle so a full-fleet poll never thrashes. */
  private readonly startCacheSize: number;

  constructor(
    private readonly ctx: ScheduleContext,
    vehicles: number,
    /** Plans hold ~10 trips of up to 9 parts (~2 KB): 8,192 of them is ~16 MB. */
    private readonly planCacheSize = 8192,
  ) {
    this.startCacheSize = Math.max(8192, 2 * vehicles);
  }

  dayOf(tMs: number): number {
    return Math.floor((tMs - this.ctx.epochMs) / DAY_MS);
  }

  /** The day plan without the fuel decision; see `planWithFuel`. */
  plan(v: number, day: number): DayPlan {
    if (day < 0) return EMPTY_DAY(day);
    const key = v * 4_194_304 + day;
    const hit = this.plans.get(key);
    if (hit) {
      this.plans.delete(key);
      this.plans.set(key, hit);
      return hit;
    }
    const plan = buildDay(this.ctx, v, day);
    this.plans.set(key, plan);
    if (this.plans.size > this.planCacheSize) this.plans.delete(this.plans.keys().next().value as number);
    return plan;
  }

  /** Totals at the start of `day` (0 before the epoch). */
  dayStart(v: number, day: number): DayStart {
    const profile = this.ctx.profile(v);
    if (day <= 0) return { distanceM: 0, engineS: 0, idleS: 0, trips: 0, fuelPct: profile.initialFuelPct };
    const key = v * 4_194_304 + day;
    const hit = this.starts.get(key);
    if (hit) {
      this.starts.delete(key);
      this.starts.set(key, hit);
      return { ...hit };
    }
    const computed = this.computeDayStart(v, day, profile);
    this.starts.set(key, computed);
    if (this.starts.size > this.startCacheSize) this.starts.delete(this.starts.keys().next().value as number);
    return { ...computed };
  }

  private computeDayStart(v: number, day: number, profile: VehicleProfile): DayStart {
    let cps = this.checkpoints.get(v);
    if (!cps) {
      cps = [0, 0, 0, 0, profile.initialFuelPct];
      this.checkpoints.set(v, cps);
    }
    const want = Math.floor(day / CHECKPOINT_DAYS);
    while (cps.length / 5 <= want) {
      const k = cps.length / 5 - 1;
      const s = this.fromCheckpoint(cps, k);
      this.advance(v, s, k * CHECKPOINT_DAYS, (k + 1) * CHECKPOINT_DAYS);
      cps.push(s.distanceM, s.engineS, s.idleS, s.trips, s.fuelPct);
    }
    const s = this.fromCheckpoint(cps, want);
    this.advance(v, s, want * CHECKPOINT_DAYS, day);
    return s;
  }

  /** The refuel decision of `day`, given the fuel level at its start. */
  refuelTo(v: number, plan: DayPlan, startFuelPct: number): number | null {
    if (!plan.shift || startFuelPct >= REFUEL_BELOW_PCT) return null;
    return this.refuelLevel(v, plan.day);
  }

  private refuelLevel(v: number, day: number): number {
    return 92 + 8 * unit(this.ctx.root, TAG.fuel, v, day);
  }

  private fromCheckpoint(cps: number[], k: number): DayStart {
    const o = k * 5;
    return { distanceM: cps[o] as number, engineS: cps[o + 1] as number, idleS: cps[o + 2] as number, trips: cps[o + 3] as number, fuelPct: cps[o + 4] as number };
  }

  /** Roll `s` forward over days [fromDay, toDay), walking days without building plans. */
  private advance(v: number, s: DayStart, fromDay: number, toDay: number): void {
    const profile = this.ctx.profile(v);
    let day = fromDay;
    // Same order of float operations as stateAt: refuel at shift start, then subtract trip by trip.
    const onShift = () => {
      if (s.fuelPct < REFUEL_BELOW_PCT) s.fuelPct = this.refuelLevel(v, day);
    };
    const onTrip = (_startMs: number, n: number) => {
      let engineS = 0;
      let idleS = 0;
      for (let j = 0; j < n; j++) {
        engineS += DUR[j] as number;
        if (IS_DRIVE[j] === 1) s.distanceM += DIST[j] as number;
        else idleS += DUR[j] as number;
      }
      s.engineS += engineS;
      s.idleS += idleS;
      s.trips += 1;
      s.fuelPct -= fuelUsedPct(profile, engineS, idleS);
    };
    for (; day < toDay; day++) walkDay(this.ctx, v, day, onShift, onTrip);
  }
}
