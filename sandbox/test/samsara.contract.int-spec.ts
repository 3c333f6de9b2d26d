// The Samsara adapter against the Samsara simulator over real HTTP: every mapped field of vehicles,
// drivers, groups, trips, telemetry and faults checked against the fleet model's truth, with units,
// sources and full pagination. Scenario controls are in samsara-scenarios.contract.int-spec.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { FaultRecord, FaultSnapshot, Observation, TelemetryMetric } from '@switchyard/domain';
import type { Page } from '@switchyard/providers';
import { TELEMETRY_METRICS } from '@switchyard/domain';
import { samsaraDriverId, samsaraHasEcu, samsaraTagId, samsaraVehicleId, vehicleIndexOf } from '../src/samsara/index.js';
import { adapterFaultKey, drain, iso, NOW, PAGE, startSamsaraHarness, type SamsaraHarness } from './samsara-harness.js';

let h: SamsaraHarness;
beforeAll(async () => {
  h = await startSamsaraHarness();
});
afterAll(() => h.close());

const active = () => h.fleet.vehicles().filter((v) => v.active);
const indexOf = (id: string): number => vehicleIndexOf(id) as number;

/** What the adapter must report for `metric` of vehicle `v` at `t`, or undefined when Samsara would send nothing. */
function expected(v: number, metric: TelemetryMetric, t: number): { value: unknown; source: string; units?: unknown } | undefined {
  const s = h.fleet.stateAt(v, t);
  const ecu = samsaraHasEcu(v);
  switch (metric) {
    case 'location':
      return { value: { latitude: s.latitude, longitude: s.longitude }, source: 'samsara:gps' };
    case 'speed':
      return { value: { value: s.speedMps }, source: 'samsara:gps.speedMilesPerHour' };
    case 'heading':
      return { value: { value: s.headingDeg }, source: 'samsara:gps.headingDegrees' };
    case 'odometer':
      return s.odometerM === null ? undefined : { value: { meters: Math.floor(s.odometerM) }, source: ecu ? 'samsara:obdOdometerMeters' : 'samsara:gpsOdometerMeters' };
    case 'engineHours':
      return { value: { seconds: Math.floor(s.engineSeconds) }, source: ecu ? 'samsara:obdEngineSeconds' : 'samsara:syntheticEngineSeconds' };
    case 'totalIdleTime':
      return { value: { seconds: Math.round(s.idleSeconds * 1000) / 1000 }, source: 'samsara:idlingDurationMilliseconds', units: { source: 'milliseconds', normalized: 'seconds', factor: 0.001 } };
    case 'fuelPercent':
      return s.fuelPercent === null ? undefined : { value: { value: Math.round(s.fuelPercent) }, source: 'samsara:fuelPercents' };
    case 'batteryVoltage':
      return { value: { value: Math.round(s.batteryVolts * 1000) / 1000 }, source: 'samsara:batteryMilliVolts' };
    case 'engineState':
      return { value: { state: s.engineState }, source: 'samsara:engineStates' };
  }
}

/** Samsara's fault model is complete_snapshot: any explicit record would be a contract break. */
function snapshotsOnly(page: Page<FaultSnapshot | FaultRecord>): Page<FaultSnapshot> {
  const items = page.items.filter((s): s is FaultSnapshot => s.model === 'complete_snapshot');
  expect(items).toHaveLength(page.items.length);
  return { ...page, items };
}

function checkObservation(o: Observation): void {
  const want = expected(indexOf(o.vehicleSourceId), o.metric, Date.parse(o.observedAt));
  expect(want).toBeDefined();
  expect({ metric: o.metric, source: o.source, units: o.units }).toEqual({ metric: o.metric, source: want?.source, units: want?.units });
  if (o.metric === 'speed') expect(o.value.value).toBeCloseTo((want?.value as { value: number }).value, 9);
  else expect(o.value).toEqual(want?.value);
}

describe('Samsara contract: directory', () => {
  it('vehicles: every active vehicle once, across pages, every field from the fleet', async () => {
    const { items, pages } = await drain((c) => h.adapter().vehicles(c));
    expect(pages).toBe(Math.ceil(active().length / PAGE.maxPageSize));
    expect(items.map((v) => v.sourceId)).toEqual(active().map((v) => samsaraVehicleId(v.index)));
    for (const record of items) {
      const v = h.fleet.vehicle(indexOf(record.sourceId));
      const src = 'samsara:vehicles';
      expect(record.name).toEqual({ status: 'available', value: v.name, source: src });
      expect(record.vin).toEqual(v.vin === null ? { status: 'missing', value: null, source: src } : { status: 'available', value: v.vin, source: src });
      const m = record.metadata;
      expect([m.make.value, m.model.value, m.year.value, m.licensePlate.value, m.serialNumber.value]).toEqual([v.make, v.model, v.year, v.licensePlate, v.serialNumber]);
      expect(Date.parse(m.createdAt.value as string)).toBe(v.createdAtMs);
      expect(Date.parse(m.updatedAt.value as string)).toBe(v.updatedAtMs);
      expect(m.groups.value?.map((g) => g.id)).toEqual(v.groupIndexes.map(samsaraTagId));
      for (const key of ['status', 'providerStatus', 'fuelType', 'sourceFuelType', 'activeFrom', 'activeTo', 'licensePlateRegion'] as const) expect(m[key].status).toBe('unsupported');
    }
    expect(items.some((v) => v.vin.status === 'missing')).toBe(true); // the fleet's VIN gap is exercised
  });

  it('drivers: active and deactivated passes, contacts validated, tags as groups', async () => {
    const { items } = await drain((c) => h.adapter().drivers(c));
    const drivers = h.fleet.drivers();
    expect(items.map((d) => d.sourceId).sort()).toEqual(drivers.map((d) => samsaraDriverId(d.index)).sort());
    for (const record of items) {
      const d = drivers.find((x) => samsaraDriverId(x.index) === record.sourceId)!;
      expect(record.status.value).toBe(d.active ? 'active' : 'inactive');
      expect(record.fields.displayName.value).toBe(`${d.firstName} ${d.lastName}`);
      expect(record.fields.firstName.status).toBe('unsupported');
      expect(record.fields.phone.value).toBe(d.phone);
      expect(record.fields.phone.status).toBe(d.phone === null ? 'missing' : 'available');
      expect(record.fields.email.value).toBe(d.email);
      expect(record.fields.username.value).toBe(d.username);
      expect([record.fields.licenseNumber.value, record.fields.licenseState.value]).toEqual([d.licenseNumber, d.licenseState]);
      expect(record.groupIds.value).toEqual(d.groupIndexes.map(samsaraTagId));
      expect(Date.parse(record.fields.createdAt.value as string)).toBe(d.createdAtMs);
    }
    expect(items.some((d) => d.status.value === 'inactive')).toBe(true);
  });

  it('groups: tags with parents', async () => {
    const { items } = await drain((c) => h.adapter().groups(c));
    expect(items.map((g) => [g.sourceId, g.name.value, g.parentSourceId])).toEqual(
      h.fleet.groups().map((g) => [samsaraTagId(g.index), g.name, g.parentIndex === null ? null : samsaraTagId(g.parentIndex)]),
    );
  });
});

describe('Samsara contract: trips', () => {
  it('completed trips started in the window, distance basis by ECU, driver from legacy, ongoing excluded', async () => {
    const from = NOW - 36 * 3600_000;
    const { items } = await drain((cursor) => h.adapter().trips({ from: iso(from), to: iso(NOW), cursor }));
    const truth = active().flatMap((v) => h.fleet.tripsBetween(v.index, from, NOW, NOW).map((t) => ({ v, t })));
    expect(truth.length).toBeGreaterThan(PAGE.tripsPageSize); // the stream paginates
    expect(items.map((t) => t.sourceId).sort()).toEqual(truth.map(({ v, t }) => `${samsaraVehicleId(v.index)}:${t.startMs}`).sort());
    for (const { v, t } of truth) {
      const record = items.find((r) => r.sourceId === `${samsaraVehicleId(v.index)}:${t.startMs}`)!;
      const odometer = samsaraHasEcu(v.index) && t.startOdometerM !== null && t.endOdometerM !== null;
      expect(record).toMatchObject({
        vehicleSourceId: samsaraVehicleId(v.index),
        driverSourceId: t.driverIndex === null ? null : samsaraDriverId(t.driverIndex),
        startedAt: iso(t.startMs),
        endedAt: iso(t.endMs),
        durationMs: t.endMs - t.startMs,
        distanceBasis: odometer ? 'odometer' : 'gps',
        startLocation: { status: 'available', value: t.start },
        endLocation: { status: 'available', value: t.end },
      });
      const km = odometer ? (Math.floor(t.endOdometerM!) - Math.floor(t.startOdometerM!)) / 1000 : Math.round(t.distanceM) / 1000;
      expect(record.distanceKm.value).toBeCloseTo(km, 9);
    }
    // Some vehicle is mid-trip at NOW: its trip started in the window but must not be reported.
    const driving = active().filter((v) => h.fleet.stateAt(v.index, NOW).engineState !== 'off');
    expect(driving.length).toBeGreaterThan(0);
    expect(items.every((t) => Date.parse(t.endedAt) <= NOW)).toBe(true);
    expect(new Set(items.map((t) => t.distanceBasis))).toEqual(new Set(['odometer', 'gps']));
  });
});

describe('Samsara contract: telemetry and faults', () => {
  it('latest telemetry: every metric of every vehicle, in normalized units with Samsara sources', async () => {
    const { items, pages } = await drain((cursor) => h.adapter().latestTelemetry({ metrics: TELEMETRY_METRICS, cursor }));
    expect(pages).toBe(3 * Math.ceil(active().length / PAGE.statsPageSize)); // 3 type groups × vehicle pages
    const at = Math.floor(NOW / 60_000) * 60_000;
    for (const v of active()) {
      const got = items.filter((o) => o.vehicleSourceId === samsaraVehicleId(v.index));
      const want = TELEMETRY_METRICS.filter((m) => expected(v.index, m, at) !== undefined);
      expect(got.map((o) => o.metric).sort()).toEqual([...want].sort()); // gaps are absent, never zero
      expect(got.every((o) => o.observedAt === iso(at))).toBe(true);
    }
    items.forEach(checkObservation);
    expect(new Set(items.filter((o) => o.metric === 'odometer').map((o) => o.source))).toEqual(new Set(['samsara:obdOdometerMeters', 'samsara:gpsOdometerMeters']));
  });

  it('history: every sample of the window for the requested vehicles', async () => {
    const from = NOW - 6 * 3600_000;
    const ids = active().slice(0, 6).map((v) => samsaraVehicleId(v.index));
    const { items } = await drain((cursor) => h.adapter().telemetryHistory({ from: iso(from), to: iso(NOW), metrics: TELEMETRY_METRICS, vehicleSourceIds: ids, cursor }));
    for (const id of ids) {
      const times = h.fleet.sampleTimes(indexOf(id), from, NOW + 1, 60_000);
      const points = items.filter((o) => o.vehicleSourceId === id && o.metric === 'location');
      expect(points.map((o) => Date.parse(o.observedAt))).toEqual([...times]);
    }
    expect(items.length).toBeGreaterThan(1000);
    items.forEach(checkObservation);
  });

  it('faults: the latest complete snapshot per vehicle, and one snapshot per transition in a window', async () => {
    const { items: latest } = await drain((cursor) => h.adapter().faults({ cursor }).then(snapshotsOnly));
    expect(latest.map((s) => s.vehicleSourceId).sort()).toEqual(active().map((v) => samsaraVehicleId(v.index)).sort());
    for (const snap of latest) {
      expect(snap.model).toBe('complete_snapshot');
      const faults = h.fleet.stateAt(indexOf(snap.vehicleSourceId), NOW).activeFaults;
      expect(snap.active.map((c) => c.faultKey).sort()).toEqual(faults.map(adapterFaultKey).sort());
      expect(snap.active.map((c) => c.code).sort()).toEqual(faults.map((f) => f.code).sort());
    }
    const from = NOW - 20 * 86_400_000;
    const { items: history } = await drain((cursor) => h.adapter().faults({ from: iso(from), to: iso(NOW), cursor }).then(snapshotsOnly));
    const transitions = active().flatMap((v) => [...new Set(h.fleet.faultEventsBetween(v.index, from, NOW).map((e) => `${samsaraVehicleId(v.index)}@${e.tMs}`))]);
    expect(history.map((s) => `${s.vehicleSourceId}@${Date.parse(s.observedAt)}`).sort()).toEqual(transitions.sort());
    expect(history.some((s) => s.active.length === 0) && history.some((s) => s.active.length > 0)).toBe(true);
    for (const snap of history) {
      const faults = h.fleet.stateAt(indexOf(snap.vehicleSourceId), Date.parse(snap.observedAt)).activeFaults;
      expect(snap.active.map((c) => [c.faultKey, c.description])).toEqual(faults.map((f) => [adapterFaultKey(f), f.description]));
    }
  });
});
