// The synthetic fleet's invariants (fleet.types.ts): determinism, physical consistency between
// stateAt / tripsBetween / faultEventsBetween, valid VINs, and real gaps.
import { describe, expect, it } from '@jest/globals';
import { acceleratedClock, createFleet, fixedClock, isValidVin, vinCheckDigit, type Fleet } from '../src/index.js';

const DAY = 86_400_000;
const EPOCH = Date.UTC(2025, 0, 1);

function allTrips(fleet: Fleet, v: number, fromMs: number, toMs: number) {
  return fleet.tripsBetween(v, fromMs, toMs, Number.POSITIVE_INFINITY);
}

describe('createFleet', () => {
  const fleet = createFleet({ seed: 'spec', vehicles: 60 });

  it('is deterministic for a seed and differs between seeds', () => {
    const again = createFleet({ seed: 'spec', vehicles: 60 });
    const other = createFleet({ seed: 'other', vehicles: 60 });
    expect(again.vehicles()).toEqual(fleet.vehicles());
    expect(again.drivers()).toEqual(fleet.drivers());
    expect(again.groups()).toEqual(fleet.groups());
    expect(other.vehicles().map((v) => v.vin)).not.toEqual(fleet.vehicles().map((v) => v.vin));
    const t = EPOCH + 40 * DAY + 9 * 3_600_000;
    for (let v = 0; v < 60; v += 7) {
      expect(again.stateAt(v, t)).toEqual(fleet.stateAt(v, t));
      expect(again.tripsBetween(v, t - 10 * DAY, t, t)).toEqual(fleet.tripsBetween(v, t - 10 * DAY, t, t));
      expect(again.faultEventsBetween(v, EPOCH, t)).toEqual(fleet.faultEventsBetween(v, EPOCH, t));
    }
  });

  it('gives the same answers whatever order the caches were filled in', () => {
    const cold = createFleet({ seed: 'spec', vehicles: 60 });
    const t = EPOCH + 100 * DAY + 13 * 3_600_000;
    for (let d = 1; d <= 100; d += 3) fleet.stateAt(5, EPOCH + d * DAY + 12 * 3_600_000);
    expect(cold.stateAt(5, t)).toEqual(fleet.stateAt(5, t));
    expect(cold.tripsBetween(5, t - DAY, t, t)).toEqual(fleet.tripsBetween(5, t - DAY, t, t));
  });

  it('carries every counter across midnight and checkpoint boundaries unchanged', () => {
    for (const v of [0, 1, 2, 3, 4, 6]) {
      for (const d of [1, 5, 31, 32, 63, 64, 200]) {
        const before = fleet.stateAt(v, EPOCH + d * DAY - 1000);
        const after = fleet.stateAt(v, EPOCH + d * DAY);
        expect([after.odometerM, after.engineSeconds, after.idleSeconds, after.fuelPercent]).toEqual([before.odometerM, before.engineSeconds, before.idleSeconds, before.fuelPercent]);
      }
    }
  });

  it('builds a 10,000-vehicle fleet and answers for every vehicle', () => {
    const big = createFleet({ seed: 'big', vehicles: 10_000 });
    expect(big.vehicles().length).toBe(10_000);
    expect(big.drivers().length).toBe(12_000);
    const t = EPOCH + 3 * DAY + 10 * 3_600_000;
    let driving = 0;
    for (let v = 0; v < 10_000; v++) if (big.stateAt(v, t).engineState === 'on') driving++;
    expect(driving).toBeGreaterThan(1000);
  });

  it('keeps odometer, engine and idle seconds monotonic and speed 0 outside driving over a week', () => {
    const from = EPOCH + 20 * DAY;
    // Violations are collected and asserted once: 60,000 samples × 10 expect() calls would take ~20 s.
    const violations: string[] = [];
    const check = (ok: boolean, what: string, v: number, t: number) => {
      if (!ok && violations.length < 20) violations.push(`vehicle ${v} at ${new Date(t).toISOString()}: ${what}`);
    };
    for (const v of [0, 1, 2, 4, 8, 13]) {
      const trips = allTrips(fleet, v, from - DAY, from + 8 * DAY);
      let prev = fleet.stateAt(v, from);
      let refuels = 0;
      let moved = 0;
      for (let t = from + 60_000; t < from + 7 * DAY; t += 60_000) {
        const s = fleet.stateAt(v, t);
        check((s.odometerM ?? 0) >= (prev.odometerM ?? 0), 'odometer decreased', v, t);
        check(s.engineSeconds >= prev.engineSeconds, 'engine seconds decreased', v, t);
        check(s.idleSeconds >= prev.idleSeconds, 'idle seconds decreased', v, t);
        const inTrip = trips.some((trip) => trip.startMs <= t && t < trip.endMs);
        if (s.speedMps > 0) {
          check(s.engineState === 'on' && inTrip, 'moving without driving', v, t);
          moved++;
        }
        check(s.engineState === 'off' || inTrip, 'engine running outside a trip', v, t);
        if (s.engineState === 'off' && prev.engineState === 'off') check(s.engineSeconds === prev.engineSeconds && s.odometerM === prev.odometerM, 'counters rose while off', v, t);
        if (s.engineState === 'idle' && prev.engineState === 'idle') check(s.idleSeconds === prev.idleSeconds + 60 && s.odometerM === prev.odometerM, 'idle did not count idle time', v, t);
        if (s.engineState === 'on' && prev.engineState === 'on') check(s.engineSeconds === prev.engineSeconds + 60 && s.odometerM !== prev.odometerM, 'driving did not count engine time', v, t);
        const [low, high] = s.engineState === 'off' ? [12.2, 12.7] : [13.8, 14.4];
        check(s.batteryVolts >= low && s.batteryVolts <= high, `battery ${s.batteryVolts} V while ${s.engineState}`, v, t);
        if (s.fuelPercent !== null && prev.fuelPercent !== null) {
          if (s.fuelPercent > prev.fuelPercent) {
            refuels++;
            check(s.fuelPercent >= 92 && s.engineState === 'off', 'refuel not to full while parked', v, t);
          }
          check(s.fuelPercent > 0, 'ran dry', v, t);
          if (s.engineState === 'on' && prev.engineState === 'on') check(s.fuelPercent <= prev.fuelPercent, 'fuel rose while driving', v, t);
        }
        prev = s;
      }
      check(moved > 0, 'never moved', v, from);
      check(refuels <= 7, 'refuels more than daily', v, from);
    }
    expect(violations).toEqual([]);
  });

  it('makes trips exactly the driving intervals, with distance == odometer delta', () => {
    for (const v of [0, 1, 2, 3, 7, 10]) {
      const trips = allTrips(fleet, v, EPOCH + 30 * DAY, EPOCH + 37 * DAY);
      expect(trips.length).toBeGreaterThan(0);
      for (const [i, trip] of trips.entries()) {
        const atStart = fleet.stateAt(v, trip.startMs);
        const atEnd = fleet.stateAt(v, trip.endMs);
        expect(fleet.stateAt(v, trip.startMs - 1).engineState).toBe('off');
        expect(atStart.engineState).not.toBe('off');
        expect(fleet.stateAt(v, trip.endMs - 1).engineState).not.toBe('off');
        expect(atEnd.engineState).toBe('off');
        expect(atStart.odometerM).toBe(trip.startOdometerM);
        expect(atEnd.odometerM).toBe(trip.endOdometerM);
        if (trip.startOdometerM !== null && trip.endOdometerM !== null) expect(trip.distanceM).toBe(trip.endOdometerM - trip.startOdometerM);
        expect(trip.distanceM).toBeGreaterThan(0);
        expect({ latitude: atStart.latitude, longitude: atStart.longitude }).toEqual(trip.start);
        expect({ latitude: atEnd.latitude, longitude: atEnd.longitude }).toEqual(trip.end);
        expect(atEnd.idleSeconds - atStart.idleSeconds).toBe(trip.idleSeconds);
        if (i > 0) expect(trip.seq).toBe((trips[i - 1]?.seq ?? -2) + 1);
        // Positions stay in North America.
        expect(atStart.latitude).toBeGreaterThan(24);
        expect(atStart.latitude).toBeLessThan(60);
        expect(atStart.longitude).toBeLessThan(-60);
      }
    }
  });

  it('moves as far as the odometer says, heading along the route', () => {
    let checked = 0;
    for (const trip of allTrips(fleet, 0, EPOCH + 50 * DAY, EPOCH + 57 * DAY)) {
      for (let t = trip.startMs; t < trip.endMs; t += 120_000) {
        const a = fleet.stateAt(0, t);
        const b = fleet.stateAt(0, t + 10_000);
        if (a.speedMps === 0 || b.speedMps !== a.speedMps || a.headingDeg !== b.headingDeg) continue;
        const dn = (b.latitude - a.latitude) * 111_320;
        const de = (b.longitude - a.longitude) * 111_320 * Math.cos((a.latitude * Math.PI) / 180);
        // Whole-meter odometer steps: within 2 m of speed × 10 s, in the direction of the heading.
        expect(Math.abs(Math.hypot(dn, de) - a.speedMps * 10)).toBeLessThan(2);
        const bearing = ((Math.atan2(de, dn) * 180) / Math.PI + 360) % 360;
        expect(Math.abs(bearing - a.headingDeg) % 360).toBeLessThan(1);
        expect((b.odometerM ?? 0) - (a.odometerM ?? 0)).toBeCloseTo(a.speedMps * 10, -1);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(10);
  });

  it('excludes trips still in progress at now, and trips whose start is outside the range', () => {
    const trips = allTrips(fleet, 0, EPOCH + 60 * DAY, EPOCH + 63 * DAY);
    const middle = trips[1];
    if (!middle) throw new Error('need trips');
    const now = middle.startMs + 1000;
    const seen = fleet.tripsBetween(0, EPOCH + 60 * DAY, EPOCH + 63 * DAY, now);
    expect(seen).toEqual(trips.slice(0, 1));
    expect(fleet.tripsBetween(0, middle.startMs + 1, EPOCH + 63 * DAY, Infinity)[0]?.seq).toBe(middle.seq + 1);
  });

  it('opens and clears faults consistently with stateAt', () => {
    let checked = 0;
    for (let v = 0; v < 60; v++) {
      const events = fleet.faultEventsBetween(v, EPOCH, EPOCH + 60 * DAY);
      for (const e of events) {
        const keysAt = (t: number) => fleet.stateAt(v, t).activeFaults.map((f) => f.key);
        if (e.kind === 'opened') {
          expect(keysAt(e.tMs)).toContain(e.fault.key);
          expect(keysAt(e.tMs - 1)).not.toContain(e.fault.key);
          const active = fleet.stateAt(v, e.tMs).activeFaults.find((f) => f.key === e.fault.key);
          expect(active?.openedAtMs).toBe(e.tMs);
          expect(active?.clearedAtMs).toBeNull();
        } else {
          expect(keysAt(e.tMs)).not.toContain(e.fault.key);
          expect(keysAt(e.tMs - 1)).toContain(e.fault.key);
          expect(e.fault.clearedAtMs).toBe(e.tMs);
        }
        expect(e.fault.key).toMatch(/^(obdii:P\d{4}|j1939:spn\d+:fmi\d+)$/);
        checked++;
      }
      expect(events.map((e) => e.tMs)).toEqual([...events.map((e) => e.tMs)].sort((a, b) => a - b));
    }
    expect(checked).toBeGreaterThan(20);
    const faultless = fleet.vehicles().filter((v) => fleet.faultEventsBetween(v.index, EPOCH, EPOCH + 365 * DAY).length === 0);
    expect(faultless.length).toBeGreaterThan(0);
  });

  it('emits VINs with valid ISO 3779 check digits', () => {
    expect(vinCheckDigit('1M8GDM9AXKP042788')).toBe('X');
    expect(isValidVin('1M8GDM9AXKP042788')).toBe(true);
    expect(isValidVin('1M8GDM9A1KP042788')).toBe(false);
    const vins = createFleet({ seed: 'vins', vehicles: 1000 }).vehicles().flatMap((v) => (v.vin ? [v.vin] : []));
    expect(vins.length).toBeGreaterThan(900);
    for (const vin of vins) {
      expect(vin).toHaveLength(17);
      expect(isValidVin(vin)).toBe(true);
    }
  });

  it('has real gaps in a 1,000-vehicle fleet, and omits what is missing', () => {
    const big = createFleet({ seed: 'gaps', vehicles: 1000 });
    const vs = big.vehicles();
    const count = (p: (v: (typeof vs)[number]) => boolean) => vs.filter(p).length;
    expect(count((v) => v.vin === null)).toBe(50);
    expect(count((v) => !v.reportsFuel)).toBe(100);
    expect(count((v) => !v.hasOdometer)).toBe(31);
    expect(count((v) => !v.active)).toBe(50);
    const t = EPOCH + 10 * DAY;
    for (const v of vs.filter((x) => !x.hasOdometer)) expect(big.stateAt(v.index, t).odometerM).toBeNull();
    for (const v of vs.filter((x) => !x.reportsFuel)) expect(big.stateAt(v.index, t).fuelPercent).toBeNull();
    for (const v of vs.filter((x) => !x.active).slice(0, 10)) expect(big.tripsBetween(v.index, EPOCH, EPOCH + 30 * DAY, Infinity)).toEqual([]);
    const unassigned = vs.slice(0, 100).flatMap((v) => big.tripsBetween(v.index, EPOCH, EPOCH + 14 * DAY, Infinity)).filter((trip) => trip.driverIndex === null);
    expect(unassigned.length).toBeGreaterThan(0);
  });

  it('builds a group hierarchy at most 3 levels deep', () => {
    const groups = createFleet({ seed: 'g', vehicles: 400 }).groups();
    expect(groups.length).toBe(20);
    const depth = (i: number): number => {
      const parent = groups[i]?.parentIndex;
      return parent === null || parent === undefined ? 1 : 1 + depth(parent);
    };
    const depths = groups.map((g) => depth(g.index));
    expect(Math.max(...depths)).toBe(3);
    expect(depths.filter((d) => d === 1).length).toBeGreaterThan(0);
  });

  it('samples history densely while driving and sparsely while parked', () => {
    const [trip] = allTrips(fleet, 0, EPOCH + 70 * DAY, EPOCH + 71 * DAY);
    if (!trip) throw new Error('no trip');
    const times = fleet.sampleTimes(0, EPOCH + 70 * DAY, EPOCH + 71 * DAY, 30_000);
    expect(times).toEqual([...new Set(times)].sort((a, b) => a - b));
    expect(times.every((t) => t >= EPOCH + 70 * DAY && t < EPOCH + 71 * DAY)).toBe(true);
    expect(times).toContain(trip.startMs);
    const during = times.filter((t) => t >= trip.startMs && t < trip.endMs).length;
    expect(during).toBeGreaterThanOrEqual(Math.floor((trip.endMs - trip.startMs) / 30_000));
    expect(times.length).toBeLessThan(86_400 / 30);
  });
});

describe('clocks', () => {
  it('fixed clocks stand still until set or advanced', () => {
    const clock = fixedClock(EPOCH);
    expect(clock.now()).toBe(EPOCH);
    clock.advance(5000);
    expect(clock.now()).toBe(EPOCH + 5000);
    clock.set({ nowMs: EPOCH + DAY });
    expect(clock.describe()).toEqual({ nowMs: EPOCH + DAY, factor: 0 });
  });

  it('accelerated clocks run factor times faster than wall time', () => {
    let wall = 1_000;
    const clock = acceleratedClock({ startMs: EPOCH, factor: 60, wallNow: () => wall });
    wall += 1000;
    expect(clock.now()).toBe(EPOCH + 60_000);
    clock.set({ factor: 0 });
    wall += 1000;
    expect(clock.now()).toBe(EPOCH + 60_000);
    expect(() => clock.set({ factor: -1 })).toThrow();
  });
});
