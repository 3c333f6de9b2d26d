/**
 * Geotab contract suite, part 1: the adapter against the Geotab simulator over real HTTP, every
 * mapped field checked against the fleet model's truth (ids, sources, km → km, TimeSpan → ms,
 * km/h → m/s, x = longitude, gaps as missing), with full pagination of feeds and time slices.
 * Scenario controls are in geotab-scenarios.contract.int-spec.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DriverRecord, FaultRecord, Observation, TripRecord, VehicleRecord } from '@switchyard/domain';
import { deviceSchema, logRecordSchema } from '@switchyard/providers';
import { faultDiagnosticId, failureModeId, faultControllerId, geotabDeviceId, geotabGroupId, geotabTripId, geotabUserId, LOG_STEP_MS, STATUS_STEP_MS } from '../src/geotab/index.js';
import { allPages, DAY, HOUR, iso, lastSampleAtOrBefore, mpsAsReported, NOW, startGeotabHarness, type GeotabHarness } from './geotab-contract.support.js';

let h: GeotabHarness;
beforeAll(async () => {
  // One database per area: Authenticate is limited to 10/min per user, and each adapter here authenticates once.
  h = await startGeotabHarness(['acme', 'trips', 'telemetry', 'faults', 'feed']);
});
afterAll(() => h.close());

const ALL_METRICS = ['location', 'odometer', 'engineHours', 'totalIdleTime', 'speed', 'heading', 'fuelPercent', 'batteryVoltage', 'engineState'] as const;
const byVehicle = (id: string) => Number.parseInt(id.slice(1), 16) - 1;

describe('vehicles (GetFeed Device)', () => {
  it('pages the Device feed and maps every Device field from the fleet', async () => {
    const adapter = h.adapter('acme', { pageSizes: { entityFeed: 10 } });
    const { items, pages } = await allPages<VehicleRecord>((c) => adapter.vehicles(c));
    expect(pages).toBe(3);
    expect(items.map((v) => v.sourceId).sort()).toEqual(h.fleet.vehicles().map((v) => geotabDeviceId(v.index)).sort());
    for (const record of items) {
      const v = h.fleet.vehicle(byVehicle(record.sourceId));
      expect(record.name).toEqual({ status: 'available', value: v.name, source: 'geotab:Device.name' });
      if (v.vin === null) expect(record.vin).toEqual({ status: 'missing', value: null, source: 'geotab:Device.vehicleIdentificationNumber' });
      else expect(record.vin).toEqual({ status: 'available', value: v.vin, source: v.index % 7 === 2 ? 'geotab:Device.engineVehicleIdentificationNumber' : 'geotab:Device.vehicleIdentificationNumber' });
      const m = record.metadata;
      expect(m.status).toEqual({ status: 'available', value: v.active ? 'active' : 'inactive', source: 'geotab:Device.activeTo' });
      expect(m.activeFrom).toEqual({ status: 'available', value: iso(v.createdAtMs), source: 'geotab:Device.activeFrom' });
      if (v.active) expect(m.activeTo).toMatchObject({ status: 'missing', reason: 'open-ended (far-future activeTo)' });
      else expect(m.activeTo).toEqual({ status: 'available', value: iso(Math.min(v.updatedAtMs, NOW - 1)), source: 'geotab:Device.activeTo' });
      expect(m.licensePlate).toEqual({ status: 'available', value: v.licensePlate, source: 'geotab:Device.licensePlate' });
      expect(m.licensePlateRegion).toEqual({ status: 'available', value: v.licenseState, source: 'geotab:Device.licenseState' });
      expect(m.serialNumber).toEqual({ status: 'available', value: v.serialNumber, source: 'geotab:Device.serialNumber' });
      expect(m.groups).toEqual({ status: 'available', value: v.groupIndexes.map((g) => ({ id: geotabGroupId(g) })), source: 'geotab:Device.groups' });
      for (const key of ['make', 'model', 'year', 'fuelType', 'createdAt', 'updatedAt'] as const) expect(m[key].status).toBe('unsupported');
    }
    // The fleet's gaps are there: no VIN for index % 20 == 3, archived for % 20 == 9.
    expect(items.filter((v) => v.vin.status === 'missing').length).toBeGreaterThan(0);
    expect(items.filter((v) => v.metadata.status.value === 'inactive').length).toBeGreaterThan(0);
  });
});

describe('drivers and groups', () => {
  it('maps Users with isDriver (the service user is not a driver)', async () => {
    const adapter = h.adapter('acme');
    const { items } = await allPages<DriverRecord>((c) => adapter.drivers(c));
    expect(items.map((d) => d.sourceId).sort()).toEqual(h.fleet.drivers().map((d) => geotabUserId(d.index)).sort());
    for (const record of items) {
      const d = h.fleet.drivers()[Number.parseInt(record.sourceId.slice(2), 16) - 1];
      const f = record.fields;
      expect(record.status.value).toBe(d.active ? 'active' : 'inactive');
      expect([f.firstName.value, f.lastName.value, f.displayName.value]).toEqual([d.firstName, d.lastName, `${d.firstName} ${d.lastName}`]);
      expect(f.username).toEqual({ status: 'available', value: d.email ?? d.username, source: 'geotab:User.name' });
      expect(f.email).toMatchObject(d.email ? { status: 'available', value: d.email } : { status: 'missing', reason: 'login is not an email address' });
      // "+1 5555550123" on the wire → E.164.
      expect(f.phone).toMatchObject(d.phone ? { status: 'available', value: d.phone, source: 'geotab:User.phoneNumber' } : { status: 'missing' });
      expect(f.licenseNumber.value).toBe(d.licenseNumber);
      expect(f.licenseState).toMatchObject(d.licenseState ? { status: 'available', value: d.licenseState, source: 'geotab:User.licenseProvince' } : { status: 'missing' });
      expect(f.createdAt.value).toBe(iso(d.createdAtMs));
      expect(record.groupIds.value).toEqual(['GroupCompanyId', ...d.groupIndexes.map(geotabGroupId)]);
    }
  });

  it('inverts children[] to parents; fleet roots hang under GroupCompanyId; security groups are left out', async () => {
    const { items, next } = await h.adapter('acme').groups();
    expect(next).toBeNull();
    const parents = Object.fromEntries(items.map((g) => [g.sourceId, g.parentSourceId]));
    const expected = Object.fromEntries(h.fleet.groups().map((g) => [geotabGroupId(g.index), g.parentIndex === null ? 'GroupCompanyId' : geotabGroupId(g.parentIndex)]));
    expect(parents).toEqual({ GroupCompanyId: null, ...expected });
    for (const g of h.fleet.groups()) expect(items.find((r) => r.sourceId === geotabGroupId(g.index))?.name).toEqual({ status: 'available', value: g.name, source: 'geotab:Group.name' });
  });
});

describe('trips (Get Trip in time slices)', () => {
  const from = NOW - 2 * DAY;
  const truth = () => h.fleet.vehicles().flatMap((v) => h.fleet.tripsBetween(v.index, from, NOW, NOW));

  it('halves slices that hit resultsLimit and returns exactly the completed trips that started in the window', async () => {
    const adapter = h.adapter('trips', { pageSizes: { windowed: 20 } });
    const { items, pages } = await allPages<TripRecord>((cursor) => adapter.trips({ from: iso(from), to: iso(NOW), cursor }));
    expect(pages).toBeGreaterThan(5);
    const expected = truth();
    expect(items.map((t) => t.sourceId).sort()).toEqual(expected.map((t) => geotabTripId(t.vehicleIndex, t.seq)).sort());
    for (const trip of expected) {
      const r = items.find((t) => t.sourceId === geotabTripId(trip.vehicleIndex, trip.seq)) as TripRecord;
      expect(r).toMatchObject({ vehicleSourceId: geotabDeviceId(trip.vehicleIndex), driverSourceId: trip.driverIndex === null ? null : geotabUserId(trip.driverIndex), startedAt: iso(trip.startMs), endedAt: iso(trip.endMs) });
      // drivingDuration TimeSpan ("hh:mm:ss[.fffffff]") → ms, exactly.
      expect(r.durationMs).toBe(trip.endMs - trip.startMs);
      expect(r.distanceKm).toEqual({ status: 'available', value: trip.distanceM / 1000, source: 'geotab:Trip.distance' });
      expect(r.distanceBasis).toBe('provider_reported');
      // stopPoint {x: longitude, y: latitude}.
      expect(r.endLocation).toEqual({ status: 'available', value: { latitude: trip.end.latitude, longitude: trip.end.longitude }, source: 'geotab:Trip.stopPoint' });
      expect(r.startLocation.status).toBe('available');
      expect(r.startLocation.value?.latitude).toBeCloseTo(trip.start.latitude, 9);
      expect(r.startLocation.value?.longitude).toBeCloseTo(trip.start.longitude, 9);
    }
    expect(items.some((t) => t.driverSourceId === null) || expected.every((t) => t.driverIndex !== null)).toBe(true);
  });

  it('per-vehicle trips walk one device after another', async () => {
    const ids = [geotabDeviceId(0), geotabDeviceId(1)];
    const adapter = h.adapter('trips');
    const { items } = await allPages<TripRecord>((cursor) => adapter.trips({ from: iso(from), to: iso(NOW), vehicleSourceIds: ids, cursor }));
    expect(items.map((t) => t.sourceId).sort()).toEqual(truth().filter((t) => t.vehicleIndex < 2).map((t) => geotabTripId(t.vehicleIndex, t.seq)).sort());
  });
});

describe('latest telemetry (DeviceStatusInfo + StatusData at now, in ExecuteMultiCall)', () => {
  it('reports every active vehicle at its last logged point, in SI units, and omits what a vehicle lacks', async () => {
    const adapter = h.adapter('telemetry', { pageSizes: { latestDevices: 10 } });
    const { items, pages } = await allPages<Observation>((cursor) => adapter.latestTelemetry({ metrics: ALL_METRICS, cursor }));
    expect(pages).toBe(3);
    for (const v of h.fleet.vehicles()) {
      const obs = items.filter((o) => o.vehicleSourceId === geotabDeviceId(v.index));
      if (!v.active) {
        expect(obs).toEqual([]);
        continue;
      }
      const at = lastSampleAtOrBefore(h.fleet, v.index, NOW, LOG_STEP_MS) as number;
      const state = h.fleet.stateAt(v.index, at);
      const get = <M extends Observation['metric']>(m: M) => obs.filter((o): o is Extract<Observation, { metric: M }> => o.metric === m);
      expect(get('location')).toEqual([expect.objectContaining({ value: { latitude: state.latitude, longitude: state.longitude }, source: 'geotab:DeviceStatusInfo', observedAt: iso(at) })]);
      expect(get('speed')[0].value.value).toBeCloseTo(mpsAsReported(state.speedMps), 12);
      expect(get('heading')[0].value.value).toBe(Math.round(state.headingDeg) % 360);
      const engine = get('engineState')[0];
      expect(engine.value.state).toBe(h.fleet.stateAt(v.index, Date.parse(engine.observedAt)).engineState);
      const statusAt = lastSampleAtOrBefore(h.fleet, v.index, NOW, STATUS_STEP_MS) as number;
      const s = h.fleet.stateAt(v.index, statusAt);
      expect(get('odometer')).toEqual(v.hasOdometer ? [expect.objectContaining({ value: { meters: s.odometerM }, source: 'geotab:DiagnosticOdometerId', observedAt: iso(statusAt) })] : []);
      expect(get('engineHours')).toEqual([expect.objectContaining({ value: { seconds: s.engineSeconds }, source: 'geotab:DiagnosticEngineHoursId' })]);
      expect(get('fuelPercent')).toEqual(v.reportsFuel ? [expect.objectContaining({ value: { value: s.fuelPercent }, source: 'geotab:DiagnosticFuelLevelId' })] : []);
      expect(get('batteryVoltage')).toEqual([expect.objectContaining({ value: { value: s.batteryVolts }, source: 'geotab:DiagnosticGoDeviceVoltageId' })]);
      // Geotab has no cumulative idle counter: never reported.
      expect(get('totalIdleTime')).toEqual([]);
    }
  });
});

describe('telemetry history (Get LogRecord / StatusData per device, time slices)', () => {
  it('returns every GPS and engine record of the window, converted, with derived engine states', async () => {
    const from = NOW - 8 * HOUR;
    const ids = [0, 1, 2].map(geotabDeviceId);
    const adapter = h.adapter('telemetry', { pageSizes: { windowed: 150 } });
    const { items, pages } = await allPages<Observation>((cursor) => adapter.telemetryHistory({ from: iso(from), to: iso(NOW), metrics: ALL_METRICS, vehicleSourceIds: ids, cursor }));
    expect(pages).toBeGreaterThan(3);
    for (const v of [0, 1, 2]) {
      const vehicle = h.fleet.vehicle(v);
      const obs = items.filter((o) => o.vehicleSourceId === geotabDeviceId(v));
      const times = (m: string) => obs.filter((o) => o.metric === m).map((o) => Date.parse(o.observedAt));
      expect(times('location')).toEqual(h.fleet.sampleTimes(v, from, NOW, LOG_STEP_MS));
      expect(times('odometer')).toEqual(vehicle.hasOdometer ? h.fleet.sampleTimes(v, from, NOW, STATUS_STEP_MS) : []);
      expect(times('fuelPercent')).toEqual(vehicle.reportsFuel ? h.fleet.sampleTimes(v, from, NOW, STATUS_STEP_MS) : []);
      expect(times('heading')).toEqual([]);
      for (const o of obs) {
        const s = h.fleet.stateAt(v, Date.parse(o.observedAt));
        if (o.metric === 'location') expect(o.value).toEqual({ latitude: s.latitude, longitude: s.longitude });
        if (o.metric === 'speed') expect(o.value.value).toBeCloseTo(mpsAsReported(s.speedMps), 12);
        if (o.metric === 'odometer') expect(o.value.meters).toBe(s.odometerM);
        if (o.metric === 'engineHours') expect(o.value.seconds).toBe(s.engineSeconds);
        if (o.metric === 'batteryVoltage') expect(o.value.value).toBe(s.batteryVolts);
        if (o.metric === 'engineState') expect(o.value.state).toBe(s.engineState);
      }
      // Engine states are transitions (collapsed within a page), far fewer than GPS records.
      expect(times('engineState').length).toBeGreaterThan(0);
      expect(times('engineState').length).toBeLessThan(times('location').length / 2);
    }
    expect(items.some((o) => o.metric === 'engineState' && o.value.state === 'idle')).toBe(true);
  });
});

describe('faults (FaultData: windowed Get and the native feed)', () => {
  const expectedFaults = (fromMs: number, toMs: number) =>
    h.fleet.vehicles().flatMap((v) => {
      const opened = h.fleet.faultEventsBetween(v.index, fromMs, toMs).filter((e) => e.kind === 'opened').map((e) => ({ v: v.index, t: e.tMs, fault: e.fault }));
      const repeats = h.fleet.tripsBetween(v.index, fromMs, toMs, Number.MAX_SAFE_INTEGER).flatMap((trip) => h.fleet.stateAt(v.index, trip.startMs).activeFaults.filter((f) => f.openedAtMs < trip.startMs).map((fault) => ({ v: v.index, t: trip.startMs, fault })));
      return [...opened, ...repeats].filter((x) => x.t < toMs && x.t <= NOW);
    });

  it('windowed: one explicit record per occurrence, keyed device|diagnostic|failureMode|controller', async () => {
    const from = NOW - 20 * DAY;
    const adapter = h.adapter('faults', { pageSizes: { windowed: 40 } });
    const { items } = await allPages<FaultRecord>((cursor) => adapter.faults({ from: iso(from), to: iso(NOW), cursor }) as Promise<{ items: FaultRecord[]; next: string | null }>);
    const expected = expectedFaults(from, NOW);
    expect(expected.length).toBeGreaterThan(20);
    const key = (v: number, t: number, diagnostic: string) => `${v}@${t}@${diagnostic}`;
    expect(items.map((f) => key(byVehicle(f.vehicleSourceId), Date.parse(f.observedAt), f.faultKey.split('|')[1] as string)).sort()).toEqual(expected.map((e) => key(e.v, e.t, faultDiagnosticId(e.fault))).sort());
    for (const e of expected) {
      const r = items.find((f) => f.vehicleSourceId === geotabDeviceId(e.v) && f.observedAt === iso(e.t) && f.faultKey.includes(faultDiagnosticId(e.fault))) as FaultRecord;
      const j1939 = e.fault.protocol === 'j1939';
      expect(r).toMatchObject({
        model: 'explicit_records',
        faultKey: [geotabDeviceId(e.v), faultDiagnosticId(e.fault), j1939 ? failureModeId(e.fault.fmi ?? 0) : 'NoFailureModeId', faultControllerId(e.fault.protocol)].join('|'),
        code: j1939 ? `${e.fault.spn}-FMI${e.fault.fmi}` : e.fault.code,
        description: e.fault.description,
        providerState: 'Active',
        dismissedAt: null,
      });
    }
  });

  it('feed: GetFeed FaultData from the start pages through all history', async () => {
    const adapter = h.adapter('faults', { pageSizes: { faultFeed: 100 } });
    const { items, pages } = await allPages<FaultRecord>((cursor) => adapter.faults({ cursor }) as Promise<{ items: FaultRecord[]; next: string | null }>);
    expect(pages).toBeGreaterThan(2);
    expect(new Set(items.map((f) => f.sourceId)).size).toBe(items.length);
    expect(items.length).toBe(expectedFaults(h.fleet.options.epochMs, NOW + 1).length);
  });
});

describe('GetFeed directly (the client the adapter uses)', () => {
  it('LogRecord feed: seed by fromDate, resume by toVersion, versions strictly increase, caught-up feed is empty', async () => {
    const client = h.client('feed');
    const seed = NOW - 3 * HOUR;
    const seen: { id: string; version: string }[] = [];
    let from: string | undefined;
    let calls = 0;
    for (;;) {
      const page = await client.getFeed('LogRecord', logRecordSchema, { fromVersion: from, search: { fromDate: iso(seed) }, resultsLimit: 400 });
      calls++;
      seen.push(...page.data.map((r) => ({ id: r.id as string, version: (r as unknown as { version: string }).version })));
      from = page.toVersion;
      if (page.data.length < 400) break;
    }
    expect(calls).toBeGreaterThan(2);
    const expected = h.fleet.vehicles().flatMap((v) => h.fleet.sampleTimes(v.index, seed, NOW + 1, LOG_STEP_MS));
    expect(seen).toHaveLength(expected.length);
    expect(new Set(seen.map((r) => r.id)).size).toBe(seen.length);
    expect(seen.every((r, n) => n === 0 || r.version > (seen[n - 1] as { version: string }).version)).toBe(true);
    const again = await client.getFeed('LogRecord', logRecordSchema, { fromVersion: from, resultsLimit: 400 });
    expect(again).toEqual({ data: [], toVersion: from });
  });

  it('Get caps results at 50,000 and honours resultsLimit', async () => {
    const client = h.client('feed');
    expect(await client.get('Device', deviceSchema, { resultsLimit: 7 })).toHaveLength(7);
    const rows = await client.get('LogRecord', logRecordSchema, { search: { fromDate: iso(h.fleet.options.epochMs) } });
    expect(rows).toHaveLength(50_000);
  });
});
