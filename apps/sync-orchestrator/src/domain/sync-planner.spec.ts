import { describe, expect, it } from '@jest/globals';
import { SYNC_PLAN } from '@switchyard/contracts';
import { planSync, sliceCount, splitPlan, TRIP_SLICE_MS, type PlannedUnit, type PlanInput, type PlanPart } from './sync-planner.js';

const ALL_SUPPORTED = { 'vehicle.name': 'supported', 'vehicle.groups': 'supported', 'trip.startedAt': 'supported', 'trip.endedAt': 'conditional' };
const end = new Date('2026-11-22T12:00:00.000Z');
const base: PlanInput = {
  purposes: ['vehicles', 'groupMemberships', 'trips'],
  vehicleSourceIds: ['v1', 'v2'],
  startFrom: new Date(end.getTime() - 2.5 * TRIP_SLICE_MS),
  intervalEnd: end,
  support: ALL_SUPPORTED,
};

describe('planSync', () => {
  it('plans snapshot units per vehicle and one trip unit per vehicle per day slice, the last slice partial', () => {
    const plan = planSync(base);
    if (!plan.ok) throw new Error(plan.detail);
    expect(plan.units).toHaveLength(2 + 2 + 3 * 2);
    expect(plan.units.map((u) => u.seq)).toEqual([...plan.units.keys()]);
    expect(plan.units.slice(0, 4).map((u) => [u.purpose, u.vehicleSourceId, u.windowStart])).toEqual([
      ['vehicles', 'v1', null],
      ['vehicles', 'v2', null],
      ['groupMemberships', 'v1', null],
      ['groupMemberships', 'v2', null],
    ]);
    const trips = plan.units.filter((u) => u.purpose === 'trips');
    expect(trips[0]).toMatchObject({ vehicleSourceId: 'v1', windowStart: '2026-11-20T00:00:00.000Z', windowEnd: '2026-11-21T00:00:00.000Z' });
    expect(trips.at(-1)).toMatchObject({ vehicleSourceId: 'v2', windowStart: '2026-11-22T00:00:00.000Z', windowEnd: '2026-11-22T12:00:00.000Z' });
    expect(plan.bytes).toBe(Buffer.byteLength(JSON.stringify(plan.units)));
  });

  it('plans no trip units for an empty interval when snapshot purposes remain (the first default sync)', () => {
    const plan = planSync({ ...base, startFrom: end });
    expect(plan.ok && plan.units.map((u) => u.purpose)).toEqual(['vehicles', 'vehicles', 'groupMemberships', 'groupMemberships']);
  });

  it('refuses a trip-only plan with an empty or inverted interval', () => {
    expect(planSync({ ...base, purposes: ['trips'], startFrom: end })).toMatchObject({ ok: false, error: 'empty_interval' });
    expect(planSync({ ...base, purposes: ['trips'], startFrom: new Date(end.getTime() + 1000) })).toMatchObject({ ok: false, error: 'empty_interval' });
    expect(planSync({ ...base, purposes: ['trips'], startFrom: new Date(end.getTime() - 1) })).toMatchObject({ ok: true });
  });

  it('rejects the whole plan when one required purpose is unsupported by the provider', () => {
    const plan = planSync({ ...base, support: { ...ALL_SUPPORTED, 'vehicle.groups': 'unsupported' } });
    expect(plan).toEqual({ ok: false, error: 'unsupported_purpose', detail: 'groupMemberships needs vehicle.groups' });
    expect(planSync({ ...base, purposes: ['vehicles', 'trips'], support: { ...ALL_SUPPORTED, 'vehicle.groups': 'unsupported' } }).ok).toBe(true);
  });

  it('refuses an empty selection and a plan without purposes', () => {
    expect(planSync({ ...base, vehicleSourceIds: [] })).toMatchObject({ ok: false, error: 'empty_selection' });
    expect(planSync({ ...base, purposes: [] })).toMatchObject({ ok: false, error: 'gate_disabled' });
  });

  it('accepts exactly 10,000 units and rejects 10,001 whole, without building them', () => {
    const vehicles = Array.from({ length: 100 }, (_, i) => `v${i}`);
    const exact = planSync({ ...base, purposes: ['trips'], vehicleSourceIds: vehicles, startFrom: new Date(end.getTime() - 100 * TRIP_SLICE_MS) });
    expect(exact.ok && exact.units.length).toBe(10_000);
    const over = planSync({ ...base, purposes: ['vehicles', 'trips'], vehicleSourceIds: vehicles, startFrom: new Date(end.getTime() - 100 * TRIP_SLICE_MS) });
    expect(over).toEqual({ ok: false, error: 'sync_plan_too_large', detail: '10100 units > 10000' });
    const huge = planSync({ ...base, purposes: ['trips'], vehicleSourceIds: vehicles, startFrom: new Date(0) });
    expect(huge).toMatchObject({ ok: false, error: 'sync_plan_too_large' });
  });

  it('rejects a plan over 4 MiB serialized even under 10,000 units', () => {
    const vehicles = Array.from({ length: 100 }, (_, i) => `${i}-${'x'.repeat(1000)}`);
    const plan = planSync({ ...base, purposes: ['trips'], vehicleSourceIds: vehicles, startFrom: new Date(end.getTime() - 40 * TRIP_SLICE_MS) });
    expect(plan).toMatchObject({ ok: false, error: 'sync_plan_too_large' });
    if (!plan.ok) expect(plan.detail).toMatch(/bytes > 4194304$/);
    expect(planSync({ ...base, purposes: ['trips'], vehicleSourceIds: vehicles, startFrom: new Date(end.getTime() - 30 * TRIP_SLICE_MS) }).ok).toBe(true);
  });

  it('counts slices', () => {
    expect(sliceCount(end, end)).toBe(0);
    expect(sliceCount(new Date(end.getTime() - 1), end)).toBe(1);
    expect(sliceCount(new Date(end.getTime() - TRIP_SLICE_MS), end)).toBe(1);
    expect(sliceCount(new Date(end.getTime() - TRIP_SLICE_MS - 1), end)).toBe(2);
  });
});

describe('planSync with internal purposes', () => {
  const support = { ...ALL_SUPPORTED, 'driver.status': 'supported', 'group.name': 'supported', 'faults.open': 'supported' };
  const internal: PlanInput = { ...base, purposes: ['drivers', 'groups', 'telemetryLatest', 'telemetryHistory', 'faults'], support };

  it('plans one connection-level unit for drivers and groups, per-vehicle latest and faults units, and history per vehicle per slice', () => {
    const plan = planSync(internal);
    if (!plan.ok) throw new Error(plan.detail);
    expect(plan.units.map((u) => [u.purpose, u.vehicleSourceId])).toEqual([
      ['drivers', null],
      ['groups', null],
      ['telemetryLatest', 'v1'],
      ['telemetryLatest', 'v2'],
      ['faults', 'v1'],
      ['faults', 'v2'],
      ...[0, 1, 2].flatMap(() => [
        ['telemetryHistory', 'v1'],
        ['telemetryHistory', 'v2'],
      ]),
    ]);
    expect(plan.units.filter((u) => u.purpose === 'drivers' || u.purpose === 'groups' || u.purpose === 'telemetryLatest').every((u) => u.windowStart === null && u.windowEnd === null)).toBe(true);
    // Faults carry the whole interval: records inside it, or the snapshot at its end.
    expect(plan.units.find((u) => u.purpose === 'faults')).toMatchObject({ windowStart: base.startFrom.toISOString(), windowEnd: end.toISOString() });
    const history = plan.units.filter((u) => u.purpose === 'telemetryHistory');
    expect(history[0]).toMatchObject({ windowStart: '2026-11-20T00:00:00.000Z', windowEnd: '2026-11-21T00:00:00.000Z' });
    expect(history.at(-1)).toMatchObject({ windowStart: '2026-11-22T00:00:00.000Z', windowEnd: '2026-11-22T12:00:00.000Z' });
  });

  it('plans connection-level purposes without approved vehicles, but refuses per-vehicle ones', () => {
    const plan = planSync({ ...internal, purposes: ['drivers', 'groups'], vehicleSourceIds: [] });
    expect(plan.ok && plan.units.map((u) => u.purpose)).toEqual(['drivers', 'groups']);
    expect(planSync({ ...internal, vehicleSourceIds: [] })).toMatchObject({ ok: false, error: 'empty_selection' });
  });

  it('treats telemetry history like trips on an empty interval', () => {
    expect(planSync({ ...internal, purposes: ['telemetryHistory'], startFrom: end })).toMatchObject({ ok: false, error: 'empty_interval' });
    const plan = planSync({ ...internal, purposes: ['telemetryLatest', 'telemetryHistory'], startFrom: end });
    expect(plan.ok && plan.units.map((u) => u.purpose)).toEqual(['telemetryLatest', 'telemetryLatest']);
  });

  it('rejects an internal purpose the provider cannot serve', () => {
    expect(planSync({ ...internal, support: { ...support, 'faults.open': 'unsupported' } })).toMatchObject({ ok: false, error: 'unsupported_purpose', detail: 'faults needs faults.open' });
  });

  it('counts connection-level and windowed units against the limit', () => {
    const vehicles = Array.from({ length: 100 }, (_, i) => `v${i}`);
    const over = planSync({ ...internal, purposes: ['drivers', 'telemetryHistory'], vehicleSourceIds: vehicles, startFrom: new Date(end.getTime() - 100 * TRIP_SLICE_MS) });
    expect(over).toEqual({ ok: false, error: 'sync_plan_too_large', detail: '10001 units > 10000' });
  });
});

describe('splitPlan (scheduled windows over the limits)', () => {
  const support = { ...ALL_SUPPORTED, 'driver.status': 'supported', 'group.name': 'supported', 'faults.open': 'supported' };
  const hundred = Array.from({ length: 100 }, (_, i) => `v${i}`);
  const hundredDays = new Date(end.getTime() - 100 * TRIP_SLICE_MS);
  const key = (u: PlannedUnit) => `${u.purpose}|${u.vehicleSourceId}|${u.windowStart}|${u.windowEnd}`;

  /** Plans every part as its own run (planSync with the same limits) and returns their units' keys. */
  function plannedParts(input: PlanInput, parts: readonly PlanPart[]): string[] {
    const limits = input.limits ?? SYNC_PLAN;
    return parts.flatMap((part) => {
      const plan = planSync({ ...input, purposes: part.purposes, vehicleSourceIds: part.vehicleSourceIds });
      if (!plan.ok) throw new Error(`part refused: ${plan.detail}`);
      expect(plan.units).toHaveLength(part.units);
      expect(plan.units.length).toBeLessThanOrEqual(limits.maxUnits);
      expect(plan.bytes).toBeLessThanOrEqual(part.bytes);
      expect(part.bytes).toBeLessThanOrEqual(limits.maxBytes);
      return plan.units.map(key);
    });
  }

  /** Every unit of the unlimited plan, each in exactly one part. */
  function expectExactCover(input: PlanInput, parts: readonly PlanPart[]): void {
    const whole = planSync({ ...input, limits: { maxUnits: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER } });
    if (!whole.ok) throw new Error(whole.detail);
    const planned = plannedParts(input, parts);
    expect(new Set(planned).size).toBe(planned.length);
    expect([...planned].sort()).toEqual(whole.units.map(key).sort());
  }

  it('keeps a plan of exactly 10,000 units whole: one part, the same units as planSync', () => {
    const input: PlanInput = { ...base, purposes: ['trips'], vehicleSourceIds: hundred, startFrom: hundredDays };
    const split = splitPlan(input);
    if (!split.ok) throw new Error(split.detail);
    expect(split.parts.map((p) => [p.purposes, p.vehicleSourceIds.length, p.units])).toEqual([[['trips'], 100, 10_000]]);
    expectExactCover(input, split.parts);
  });

  it('cuts 10,001 units into two parts at a vehicle boundary, connection-level units in the first only', () => {
    const input: PlanInput = { ...base, purposes: ['drivers', 'telemetryHistory'], vehicleSourceIds: hundred, startFrom: hundredDays, support };
    expect(planSync(input)).toMatchObject({ ok: false, error: 'sync_plan_too_large' });
    const split = splitPlan(input);
    if (!split.ok) throw new Error(split.detail);
    // drivers + 99 vehicles × 100 slices = 9,901; the 100th vehicle (last in code-unit order: v99) would make 10,001.
    expect(split.parts.map((p) => [p.purposes, p.vehicleSourceIds.length, p.units])).toEqual([
      [['drivers', 'telemetryHistory'], 99, 9_901],
      [['telemetryHistory'], 1, 100],
    ]);
    expect(split.parts[1]!.vehicleSourceIds).toEqual(['v99']);
    expectExactCover(input, split.parts);
  });

  it('cuts on the byte limit when the units fit: exactly the limit stays whole, one byte less splits', () => {
    const input: PlanInput = { ...base, purposes: ['drivers', 'groups', 'vehicles', 'faults'], vehicleSourceIds: ['a', 'b', 'c', 'd'], support };
    const whole = planSync(input);
    if (!whole.ok) throw new Error(whole.detail);
    // 10 units: every seq has one digit at most, so the split's size bound is exact.
    const exact = splitPlan({ ...input, limits: { maxUnits: 10, maxBytes: whole.bytes } });
    expect(exact.ok && exact.parts.map((p) => [p.vehicleSourceIds, p.units, p.bytes])).toEqual([[['a', 'b', 'c', 'd'], 10, whole.bytes]]);
    const under = { ...input, limits: { maxUnits: 10, maxBytes: whole.bytes - 1 } };
    const split = splitPlan(under);
    if (!split.ok) throw new Error(split.detail);
    expect(split.parts.map((p) => p.vehicleSourceIds)).toEqual([['a', 'b', 'c'], ['d']]);
    expectExactCover(under, split.parts);
  });

  it('keeps every part under 4 MiB with long vehicle ids, where the count alone would fit', () => {
    const vehicles = Array.from({ length: 1_100 }, (_, i) => `${String(i).padStart(4, '0')}${'x'.repeat(4_000)}`);
    const input: PlanInput = { ...base, purposes: ['vehicles'], vehicleSourceIds: vehicles };
    expect(planSync(input)).toMatchObject({ ok: false, error: 'sync_plan_too_large', detail: expect.stringContaining('bytes') });
    const split = splitPlan(input);
    if (!split.ok) throw new Error(split.detail);
    expect(split.parts).toHaveLength(2);
    expectExactCover(input, split.parts);
  });

  it('cuts many vehicles into deterministic parts, whatever the order of the approved list', () => {
    const vehicles = Array.from({ length: 37 }, (_, i) => `veh-${(i * 7919) % 1000}`);
    const input: PlanInput = { ...base, purposes: ['vehicles', 'trips', 'drivers', 'groups', 'telemetryLatest', 'telemetryHistory', 'faults'], vehicleSourceIds: vehicles, support, limits: { maxUnits: 50, maxBytes: SYNC_PLAN.maxBytes } };
    const split = splitPlan(input);
    if (!split.ok) throw new Error(split.detail);
    // 9 units per vehicle (3 snapshots + 2 windowed × 3 slices): 5 vehicles with drivers and groups (47), then 5 per part (45).
    expect(split.parts.map((p) => p.vehicleSourceIds.length)).toEqual([5, 5, 5, 5, 5, 5, 5, 2]);
    expect(split.parts.map((p) => p.purposes.includes('drivers'))).toEqual([true, false, false, false, false, false, false, false]);
    expect(split.parts.flatMap((p) => p.vehicleSourceIds)).toEqual([...vehicles].sort());
    expect(splitPlan({ ...input, vehicleSourceIds: [...vehicles].reverse() })).toEqual(split);
    expectExactCover(input, split.parts);
  });

  it('gives connection-level purposes alone one part without vehicles', () => {
    expect(splitPlan({ ...base, purposes: ['drivers', 'groups'], vehicleSourceIds: ['v1'], support })).toMatchObject({
      ok: true,
      parts: [{ purposes: ['drivers', 'groups'], vehicleSourceIds: [], units: 2 }],
    });
  });

  it("refuses only what cannot be split: one vehicle's work over the limits, and planSync's refusals", () => {
    const one = splitPlan({ ...base, purposes: ['trips'], vehicleSourceIds: ['v1', 'v2'], limits: { maxUnits: 2, maxBytes: SYNC_PLAN.maxBytes } });
    expect(one).toMatchObject({ ok: false, error: 'sync_plan_too_large', detail: expect.stringContaining('vehicle v1 alone is 3 units') });
    expect(splitPlan({ ...base, vehicleSourceIds: [] })).toMatchObject({ ok: false, error: 'empty_selection' });
    expect(splitPlan({ ...base, support: { ...ALL_SUPPORTED, 'vehicle.groups': 'unsupported' } })).toMatchObject({ ok: false, error: 'unsupported_purpose' });
    expect(splitPlan({ ...base, purposes: ['trips'], startFrom: end })).toMatchObject({ ok: false, error: 'empty_interval' });
  });
});
