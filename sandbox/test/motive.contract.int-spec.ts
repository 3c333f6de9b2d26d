// The Motive adapter against the Motive simulator over real HTTP: every mapped field of vehicles,
// drivers, groups, trips, telemetry and faults checked against the fleet model's truth, with unit
// conversions, sources and full pagination (pages of 10). Scenario controls are in
// motive-scenarios.contract.int-spec.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Observation, TelemetryMetric } from '@switchyard/domain';
import { TELEMETRY_METRICS } from '@switchyard/domain';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MOTIVE_FUEL_TYPES, MOTIVE_HISTORY_STEP_MS } from '../src/motive/index.js';
import { DAY_MS, driverId, drain, groupId, iso, key, MAX_PER_PAGE, NOW, second, startMotiveHarness, vehicleId, vehicleIndexOf, type MotiveHarness } from './motive-harness.js';

let h: MotiveHarness;
beforeAll(async () => {
  h = await startMotiveHarness();
});
afterAll(() => h.close());

const KM = { source: 'kilometers', normalized: 'meters', factor: 1000 };
const HOURS = { source: 'hours', normalized: 'seconds', factor: 3600 };

/** Checks one observation against the fleet's state at its time (what Motive would report in metric mode). */
function checkObservation(o: Observation, units: unknown = KM): void {
  const s = h.fleet.stateAt(vehicleIndexOf(o.vehicleSourceId), Date.parse(o.observedAt));
  switch (o.metric) {
    case 'location':
      expect([o.source, o.value]).toEqual(['motive:lat,lon', { latitude: s.latitude, longitude: s.longitude }]);
      break;
    case 'odometer':
      expect([o.source, o.units]).toEqual(['motive:true_odometer', units]);
      expect(o.value.meters).toBeCloseTo(s.odometerM as number, 3);
      break;
    case 'engineHours':
      expect([o.source, o.units]).toEqual(['motive:true_engine_hours', HOURS]);
      expect(o.value.seconds).toBeCloseTo(s.engineSeconds, 3);
      break;
    case 'speed':
      expect(o.source).toBe('motive:speed');
      expect(o.value.value).toBeCloseTo(s.speedMps, 9);
      break;
    case 'heading':
      expect([o.source, o.value]).toEqual(['motive:bearing', { value: s.headingDeg }]);
      break;
    case 'fuelPercent':
      expect([o.source, o.value]).toEqual(['motive:fuel_primary_remaining_percentage', { value: s.fuelPercent }]);
      break;
    case 'batteryVoltage':
      expect([o.source, o.value]).toEqual(['motive:battery_voltage', { value: s.batteryVolts }]);
      break;
    case 'engineState':
      expect([o.source, o.value]).toEqual(['motive:type', { state: s.engineState }]);
      break;
    case 'totalIdleTime':
      throw new Error('Motive has no cumulative idle counter: totalIdleTime must never be emitted');
  }
  if (o.metric !== 'odometer' && o.metric !== 'engineHours') expect(o.units).toBeUndefined();
  expect(o.fetchedAt).toBe(iso(NOW));
}

/** Metrics Motive reports for a vehicle at a time: the fleet's gaps are absences, never zeros. */
function expectedMetrics(v: number, t: number): TelemetryMetric[] {
  const s = h.fleet.stateAt(v, t);
  return TELEMETRY_METRICS.filter((m) => m !== 'totalIdleTime' && !(m === 'odometer' && s.odometerM === null) && !(m === 'fuelPercent' && s.fuelPercent === null));
}

describe('Motive contract: directory', () => {
  it('vehicles: every vehicle once, across pages, every field from the fleet', async () => {
    const { items, pages } = await drain((c) => h.adapter(key('directory')).vehicles(c));
    const fleet = h.fleet.vehicles();
    expect(pages).toBe(Math.ceil(fleet.length / MAX_PER_PAGE));
    expect(items.map((r) => r.sourceId)).toEqual(fleet.map((v) => vehicleId(v.index)));
    for (const r of items) {
      const v = h.fleet.vehicle(vehicleIndexOf(r.sourceId));
      const src = 'motive:vehicles';
      expect(r.name).toEqual({ status: 'available', value: v.name, source: src });
      expect(r.vin).toMatchObject(v.vin === null ? { status: 'missing', value: null, source: src } : { status: 'available', value: v.vin, source: src });
      const m = r.metadata;
      expect([m.make.value, m.model.value, m.year.value, m.licensePlate.value, m.licensePlateRegion.value, m.serialNumber.value]).toEqual([v.make, v.model, v.year, v.licensePlate, v.licenseState, v.serialNumber]);
      expect([m.status.value, m.providerStatus.value]).toEqual(v.active ? ['active', 'active'] : ['inactive', 'deactivated']);
      expect(m.sourceFuelType.value).toBe(MOTIVE_FUEL_TYPES[v.fuelType]);
      // Motive's bare "hybrid" does not say gasoline or diesel: invalid rather than guessed.
      expect(m.fuelType).toMatchObject(v.fuelType === 'hybrid_gasoline' ? { status: 'invalid', value: null } : { status: 'available', value: v.fuelType });
      expect([m.createdAt.value, m.updatedAt.value]).toEqual([iso(v.createdAtMs), iso(v.updatedAtMs)]);
      for (const k of ['activeFrom', 'activeTo', 'groups'] as const) expect(m[k].status).toBe('unsupported');
      for (const cell of Object.values(m)) expect(cell.source).toBe(src);
      expect(r.fetchedAt).toBe(iso(NOW));
    }
    expect(items.some((r) => r.vin.status === 'missing')).toBe(true); // the fleet's VIN gap is exercised
    expect(items.some((r) => r.metadata.status.value === 'inactive')).toBe(true);
  });

  it('drivers: role=driver only (admins dropped), names, contacts, license, status, group memberships', async () => {
    const { items, pages } = await drain((c) => h.adapter(key('directory')).drivers(c));
    const drivers = h.fleet.drivers();
    expect(pages).toBe(Math.ceil(drivers.length / MAX_PER_PAGE));
    expect(items.map((d) => d.sourceId)).toEqual(drivers.map((d) => driverId(d.index)));
    for (const r of items) {
      const d = drivers[Number(r.sourceId) - Number(driverId(0))]!;
      const f = Object.fromEntries(Object.entries(r.fields).map(([k, x]) => [k, x.status === 'available' ? x.value : x.status]));
      expect(f).toEqual({
        firstName: d.firstName,
        middleName: 'unsupported',
        lastName: d.lastName,
        displayName: `${d.firstName} ${d.lastName}`,
        email: d.email ?? 'missing',
        phone: d.phone ?? 'missing',
        username: d.username,
        licenseNumber: d.licenseNumber ?? 'missing',
        licenseState: d.licenseState ?? 'missing',
        createdAt: iso(d.createdAtMs),
        updatedAt: iso(d.updatedAtMs),
      });
      expect(r.status.value).toBe(d.active ? 'active' : 'inactive');
      expect(r.groupIds).toEqual({ status: 'available', value: d.groupIndexes.map(groupId), source: 'motive:groups.users' });
    }
    expect(items.some((r) => r.fields.phone.status === 'missing')).toBe(true);
  });

  it('groups: names and parents (hierarchy), across pages', async () => {
    const { items } = await drain((c) => h.adapter(key('directory')).groups(c));
    expect(items.map((g) => [g.sourceId, g.name.value, g.parentSourceId, g.description.status])).toEqual(
      h.fleet.groups().map((g) => [groupId(g.index), g.name, g.parentIndex === null ? null : groupId(g.parentIndex), 'unsupported']),
    );
    expect(items.some((g) => g.parentSourceId !== null)).toBe(true);
  });
});

describe('Motive contract: trips', () => {
  const from = NOW - 2 * DAY_MS;

  it('completed driving periods that started in the window: ids, driver, times, duration, odometer distance', async () => {
    const a = h.adapter(key('directory'));
    const { items, pages } = await drain((cursor) => a.trips({ from: iso(from), to: iso(NOW), cursor }));
    expect(pages).toBeGreaterThan(3);
    const truth = h.fleet.vehicles().flatMap((v) => h.fleet.tripsBetween(v.index, from, NOW, NOW));
    expect(items.map((t) => `${t.vehicleSourceId}@${t.startedAt}`).sort()).toEqual(truth.map((t) => `${vehicleId(t.vehicleIndex)}@${iso(t.startMs)}`).sort());
    for (const trip of items) {
      const t = truth.find((x) => vehicleId(x.vehicleIndex) === trip.vehicleSourceId && iso(x.startMs) === trip.startedAt)!;
      expect(trip).toMatchObject({
        provider: 'motive',
        sourceId: String((t.vehicleIndex + 1) * 10_000_000 + t.seq),
        driverSourceId: t.driverIndex === null ? null : driverId(t.driverIndex),
        endedAt: iso(t.endMs),
        durationMs: Math.round((t.endMs - t.startMs) / 1000) * 1000,
        distanceBasis: t.startOdometerM === null ? null : 'odometer',
        startLocation: { status: 'available', value: t.start },
        endLocation: { status: 'available', value: t.end },
      });
      if (t.startOdometerM === null) expect(trip.distanceKm.status).toBe('missing');
      else expect(trip.distanceKm.value).toBeCloseTo(t.distanceM / 1000, 6);
    }
    // A vehicle driving right now has a period with end_time null: it is not a trip yet.
    const driving = h.fleet.vehicles().filter((v) => h.fleet.stateAt(v.index, NOW).engineState !== 'off');
    expect(driving.length).toBeGreaterThan(0);
    for (const trip of items) expect(Date.parse(trip.endedAt)).toBeLessThanOrEqual(NOW);
  });

  it('filters by vehicle ids', async () => {
    const ids = [vehicleId(0), vehicleId(3)];
    const { items } = await drain((cursor) => h.adapter(key('directory')).trips({ from: iso(NOW - DAY_MS), to: iso(NOW), vehicleSourceIds: ids, cursor }));
    expect(items.length).toBeGreaterThan(0);
    expect(new Set(items.map((t) => t.vehicleSourceId))).toEqual(new Set(ids.filter((id) => h.fleet.tripsBetween(vehicleIndexOf(id), NOW - DAY_MS, NOW, NOW).length > 0)));
  });

  it('a window over 30 days is read in slices the 30-day cap accepts; the cap itself answers Motive\'s 400', async () => {
    const res = await fetch(`${h.sim.url}/v1/driving_periods?start_date=${iso(NOW - 45 * DAY_MS).slice(0, 10)}&end_date=${iso(NOW).slice(0, 10)}`, { headers: { 'x-api-key': key('directory') } });
    expect([res.status, await res.json()]).toEqual([400, { error_message: 'Date range cannot be greater than 30 days' }]);
    const ids = [vehicleId(0)];
    const wide = NOW - 45 * DAY_MS;
    const { items } = await drain((cursor) => h.adapter(key('directory')).trips({ from: iso(wide), to: iso(NOW), vehicleSourceIds: ids, cursor }));
    const truth = h.fleet.tripsBetween(0, wide, NOW, NOW);
    expect(items.map((t) => t.startedAt).sort()).toEqual(truth.map((t) => iso(t.startMs)).sort());
  });
});

describe('Motive contract: telemetry', () => {
  it('latest: every metric of every vehicle in SI units, gaps absent, sources and conversions', async () => {
    const { items, pages } = await drain((cursor) => h.adapter(key('telemetry')).latestTelemetry({ metrics: TELEMETRY_METRICS, cursor }));
    expect(pages).toBe(Math.ceil(h.fleet.vehicles().length / MAX_PER_PAGE));
    const t = second(NOW);
    for (const v of h.fleet.vehicles()) {
      const mine = items.filter((o) => o.vehicleSourceId === vehicleId(v.index));
      expect(mine.map((o) => o.metric).sort()).toEqual(expectedMetrics(v.index, t).sort());
      for (const o of mine) {
        expect(o.observedAt).toBe(iso(t));
        checkObservation(o);
      }
    }
    const states = new Set(items.filter((o) => o.metric === 'engineState').map((o) => (o.value as { state: string }).state));
    expect(states).toEqual(new Set(['on', 'off', 'idle']));
  });

  it('history: v3 points in the window for each vehicle, paged, each value from the fleet', async () => {
    const from = NOW - 6 * 3_600_000;
    const ids = [vehicleId(0), vehicleId(1), vehicleId(2)];
    const a = h.adapter(key('telemetry'));
    const { items, pages } = await drain((cursor) => a.telemetryHistory({ from: iso(from), to: iso(NOW), metrics: TELEMETRY_METRICS, vehicleSourceIds: ids, cursor }));
    expect(pages).toBeGreaterThan(ids.length);
    const dayStart = Math.floor(from / DAY_MS) * DAY_MS;
    for (const id of ids) {
      const v = vehicleIndexOf(id);
      const times = h.fleet.sampleTimes(v, dayStart, NOW + 1, MOTIVE_HISTORY_STEP_MS).filter((t) => t >= from && t < NOW);
      const mine = items.filter((o) => o.vehicleSourceId === id);
      expect(mine.filter((o) => o.metric === 'location').map((o) => Date.parse(o.observedAt))).toEqual(times);
      for (const t of times) expect(mine.filter((o) => Date.parse(o.observedAt) === t).map((o) => o.metric).sort()).toEqual(expectedMetrics(v, t).sort());
      for (const o of mine) checkObservation(o);
    }
  });
});

describe('Motive contract: faults', () => {
  const truthOf = (v: number) =>
    h.fleet
      .stateAt(v, NOW)
      // The simulator reports occurrence_count 1 on every code; the adapter keeps it for J1939 codes only.
      .activeFaults.map((f) => ({ faultKey: f.key, code: f.code, description: f.description, ...(f.key.startsWith('j1939:') ? { occurrenceCount: 1 } : {}) }))
      .sort((a, b) => a.faultKey.localeCompare(b.faultKey));

  it('complete snapshots for the requested vehicles: open codes only, closed ones cleared', async () => {
    const ids = h.fleet.vehicles().map((v) => vehicleId(v.index));
    const res = await h.adapter(key('directory')).faults({ vehicleSourceIds: ids });
    expect(res.next).toBeNull();
    expect(res.items.map((s) => s.vehicleSourceId)).toEqual(ids);
    for (const s of res.items) {
      if (s.model !== 'complete_snapshot') throw new Error('Motive faults are complete snapshots');
      expect(s.active).toEqual(truthOf(vehicleIndexOf(s.vehicleSourceId)));
      expect([s.observedAt, s.fetchedAt]).toEqual([iso(NOW), iso(NOW)]);
    }
    expect(res.items.some((s) => s.model === 'complete_snapshot' && s.active.length > 0)).toBe(true);
    expect(res.items.some((s) => s.model === 'complete_snapshot' && s.active.some((f) => f.faultKey.startsWith('j1939:')))).toBe(true);
  });
});

describe('Motive contract: units when X-Metric-Units is ignored', () => {
  let proxy: Server;
  let proxyUrl: string;
  beforeAll(async () => {
    // A hop that drops X-Metric-Units, as an account whose preference wins would behave: the simulator then answers in imperial.
    proxy = createServer((req, res) => {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'x-metric-units' && k !== 'host')) as Record<string, string>;
      fetch(`${h.sim.url}${req.url ?? '/'}`, { headers })
        .then(async (r) => res.writeHead(r.status, { 'content-type': 'application/json' }).end(Buffer.from(await r.arrayBuffer())))
        .catch(() => res.writeHead(502).end());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => proxy.close(() => r())));

  it('driving-period odometers stay km when the response is imperial; locations are read in the units we asked for', async () => {
    const a = h.adapter(key('units'), { baseUrl: proxyUrl });
    const trips = await drain((cursor) => a.trips({ from: iso(NOW - DAY_MS), to: iso(NOW), cursor }));
    const truth = h.fleet.vehicles().flatMap((v) => h.fleet.tripsBetween(v.index, NOW - DAY_MS, NOW, NOW).filter((t) => t.startOdometerM !== null));
    expect(truth.length).toBeGreaterThan(0);
    for (const t of truth) {
      const trip = trips.items.find((x) => x.startedAt === iso(t.startMs) && x.vehicleSourceId === vehicleId(t.vehicleIndex));
      expect(trip?.distanceKm.value).toBeCloseTo(t.distanceM / 1000, 6);
    }
    // metric_units (a display preference) no longer switches location units: a dropped header is not detectable here.
    const { items } = await drain((cursor) => a.latestTelemetry({ metrics: ['odometer'], vehicleSourceIds: [vehicleId(0)], cursor }));
    for (const o of items) expect(o.units).toEqual(KM);
  });
});
