import { describe, expect, it } from '@jest/globals';
import { ProviderError } from '../src/errors.js';
import { mapFault } from '../src/geotab/geotab.faults.js';
import { activeStatus, isTrailerDevice, mapDevice, mapGroups, mapTrips, mapUser } from '../src/geotab/geotab.mapper.js';
import { deviceStatusObservations, engineStateHistory, engineStateOf, logRecordObservations, statusDataObservation } from '../src/geotab/geotab.telemetry.js';
import type { GeotabStatusData } from '../src/geotab/geotab.schemas.js';
import { GEOTAB_FIXTURE_SCHEMAS, fixtureNames, fixtureRows, type GeotabFixtureResource } from './geotab-fixtures.js';

const NOW = Date.parse('2024-09-02T12:00:00.000Z');
const ctx = { nowMs: NOW, fetchedAt: '2024-09-02T12:00:00.000Z' };
const ALL = new Set(['location', 'odometer', 'engineHours', 'speed', 'heading', 'fuelPercent', 'batteryVoltage', 'engineState'] as const);

describe('geotab fixtures', () => {
  const resources = Object.keys(GEOTAB_FIXTURE_SCHEMAS) as GeotabFixtureResource[];
  it.each(resources.flatMap((r) => fixtureNames(r, 'ok').map((n) => [r, n] as const)))('%s ok/%s parses', (resource, name) => {
    expect(fixtureRows(resource, 'ok', name).length).toBeGreaterThan(0);
  });
  it.each(resources.flatMap((r) => fixtureNames(r, 'not-ok').map((n) => [r, n] as const)))('%s not-ok/%s is provider_response_changed', (resource, name) => {
    const error = (() => {
      try {
        fixtureRows(resource, 'not-ok', name);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe('provider_response_changed');
  });
});

describe('mapDevice', () => {
  it('maps the reference Device: VIN, plate, serial, groups, far-future activeTo ⇒ active', () => {
    const [device] = fixtureRows('device', 'ok', 'reference-example');
    const v = mapDevice(device, ctx);
    expect(v).toMatchObject({ provider: 'geotab', sourceId: 'b3', name: { status: 'available', value: 'Truck 12', source: 'geotab:Device.name' } });
    expect(v.vin).toEqual({ status: 'available', value: '1FUJGLDR5CLBP8834', source: 'geotab:Device.vehicleIdentificationNumber' });
    expect(v.metadata.status).toEqual({ status: 'available', value: 'active', source: 'geotab:Device.activeTo' });
    expect(v.metadata.activeTo).toMatchObject({ status: 'missing', reason: 'open-ended (far-future activeTo)' });
    expect(v.metadata.activeFrom).toMatchObject({ status: 'available', value: '2023-04-11T17:02:11.000Z' });
    expect(v.metadata.licensePlate).toMatchObject({ value: '7ABC123' });
    expect(v.metadata.licensePlateRegion).toMatchObject({ value: 'CA', source: 'geotab:Device.licenseState' });
    expect(v.metadata.serialNumber).toMatchObject({ value: 'G9A1B2C3D4E5' });
    expect(v.metadata.groups).toMatchObject({ status: 'available', value: [{ id: 'b27AD' }] });
    for (const key of ['make', 'model', 'year', 'fuelType', 'sourceFuelType', 'providerStatus', 'createdAt', 'updatedAt'] as const) {
      expect(v.metadata[key]).toEqual({ status: 'unsupported', value: null, source: 'geotab:Device' });
    }
  });

  it('accepts bare-string and object group references alike; past activeTo ⇒ inactive; ECU VIN fallback', () => {
    const [archived, odd] = fixtureRows('device', 'ok', 'bare-refs-archived');
    const a = mapDevice(archived, ctx);
    expect(a.metadata.groups).toMatchObject({ status: 'available', value: [{ id: 'b27AD' }, { id: 'b27AE' }] });
    expect(a.metadata.status).toMatchObject({ value: 'inactive' });
    expect(a.metadata.activeTo).toMatchObject({ status: 'available', value: '2024-06-30T12:00:00.000Z' });
    expect(a.vin).toEqual({ status: 'available', value: '1FTFW1ET5DFC10312', source: 'geotab:Device.engineVehicleIdentificationNumber' });
    expect(a.metadata.serialNumber.status).toBe('missing');
    const o = mapDevice(odd, ctx);
    expect(o.name.status).toBe('missing');
    expect(o.vin).toMatchObject({ status: 'invalid', source: 'geotab:Device.vehicleIdentificationNumber' });
    expect(o.metadata.licensePlate.status).toBe('missing');
    expect(o.metadata.groups.status).toBe('missing');
    // .NET MaxDate is far-future too.
    expect(o.metadata.status).toMatchObject({ value: 'active' });
    expect(o.metadata.activeTo.status).toBe('missing');
  });
});

describe('Device quirks from real payload shapes (fixtures/provenance.json)', () => {
  it('bare-date activeTo "2050-01-01" (mygeotab README) is open-ended and active, not invalid', () => {
    const [device] = fixtureRows('device', 'ok', 'sdk-readme-bare-dates');
    const v = mapDevice(device, ctx);
    expect(v.metadata.activeTo).toEqual({ status: 'missing', value: null, source: 'geotab:Device.activeTo', reason: 'open-ended (far-future activeTo)' });
    expect(v.metadata.status).toEqual({ status: 'available', value: 'active', source: 'geotab:Device.activeTo' });
    expect(v.name).toMatchObject({ status: 'available', value: 'Test Device' });
    expect(activeStatus('2024-06-30', ctx.nowMs, 's')).toMatchObject({ status: 'available', value: 'inactive' }); // a past bare date ends the device
    expect(activeStatus('30/06/2024', ctx.nowMs, 's')).toMatchObject({ status: 'invalid' });
  });

  it('archived devices\' placeholder serial 000-000-0000 is missing with a reason, never a serial number (mutation: serialField → textField ⇒ fails)', () => {
    const [first, second, current] = fixtureRows('device', 'ok', 'live-capture-page').map((d) => mapDevice(d, ctx));
    for (const archived of [first, second]) {
      expect(archived.metadata.status).toMatchObject({ value: 'inactive' });
      expect(archived.metadata.serialNumber).toEqual({ status: 'missing', value: null, source: 'geotab:Device.serialNumber', reason: 'placeholder serial 000-000-0000 (archived device)' });
    }
    expect(current.metadata.serialNumber).toEqual({ status: 'available', value: 'G9SYNTH00001', source: 'geotab:Device.serialNumber' });
  });

  it('trailer shape: deviceType "None" is not a vehicle; engine VIN "?" is missing, not an invalid VIN', () => {
    const [trailer] = fixtureRows('device', 'ok', 'trailer-device-type-none');
    expect(isTrailerDevice(trailer)).toBe(true);
    expect(mapDevice(trailer, ctx).vin).toEqual({ status: 'missing', value: null, source: 'geotab:Device.vehicleIdentificationNumber' });
    const [reference] = fixtureRows('device', 'ok', 'reference-example');
    expect(isTrailerDevice(reference)).toBe(false);
  });
});

describe('mapUser', () => {
  it('maps a driver: licenseProvince, E.164 phone, login as email, both group kinds', () => {
    const [user] = fixtureRows('user', 'ok', 'reference-example');
    const d = mapUser(user, ctx);
    expect(d).not.toBeNull();
    expect(d?.status).toMatchObject({ value: 'active' });
    expect(d?.fields.licenseState).toEqual({ status: 'available', value: 'CA', source: 'geotab:User.licenseProvince' });
    expect(d?.fields.phone).toMatchObject({ status: 'available', value: '+15555550123' });
    expect(d?.fields.email).toMatchObject({ status: 'available', value: 'ana.ruiz@example.com', source: 'geotab:User.name' });
    expect(d?.fields.displayName).toMatchObject({ value: 'Ana Ruiz' });
    expect(d?.fields.middleName.status).toBe('unsupported');
    expect(d?.fields.createdAt).toMatchObject({ value: '2023-05-02T15:00:00.000Z' });
    expect(d?.groupIds).toMatchObject({ status: 'available', value: ['GroupCompanyId', 'b27AD'] });
  });

  it('skips non-drivers and reports odd values as missing / invalid, never empty', () => {
    const [dispatcher, sparse] = fixtureRows('user', 'ok', 'non-driver-and-sparse');
    expect(mapUser(dispatcher, ctx)).toBeNull();
    const d = mapUser(sparse, ctx);
    expect(d?.fields.firstName.status).toBe('missing');
    expect(d?.fields.displayName).toMatchObject({ value: 'Doe' });
    expect(d?.fields.email).toMatchObject({ status: 'missing', reason: 'login is not an email address' });
    expect(d?.fields.username).toMatchObject({ value: 'jdoe' });
    expect(d?.fields.phone.status).toBe('invalid');
    expect(d?.fields.licenseState.status).toBe('invalid');
    expect(d?.fields.licenseNumber.status).toBe('missing');
    expect(d?.status).toMatchObject({ value: 'inactive' });
    expect(d?.groupIds.status).toBe('missing');
  });
});

describe('mapGroups', () => {
  it('inverts children[] into parents, GroupCompanyId is the root, security trees are dropped', () => {
    const groups = mapGroups(fixtureRows('group', 'ok', 'reference-tree'), ctx);
    const parents = Object.fromEntries(groups.map((g) => [g.sourceId, g.parentSourceId]));
    expect(parents).toEqual({ GroupCompanyId: null, b27AD: 'GroupCompanyId', b27AE: 'GroupCompanyId', b27AF: 'b27AD' });
    expect(groups.find((g) => g.sourceId === 'b27AE')?.description).toMatchObject({ value: 'Atlantic' });
    expect(groups.find((g) => g.sourceId === 'b27AD')?.description.status).toBe('missing');
  });
});

describe('mapTrips', () => {
  const trips = mapTrips(fixtureRows('trip', 'ok', 'reference-example'), ctx);
  const [first, second] = trips;

  it('orders by start; km distance as provider_reported; TimeSpan drivingDuration → ms', () => {
    expect(first).toMatchObject({ sourceId: 'b12AC4053', vehicleSourceId: 'b3', driverSourceId: 'b4C11', durationMs: 11_270_000 });
    expect(first.distanceKm).toEqual({ status: 'available', value: 140.23, source: 'geotab:Trip.distance' });
    expect(first.distanceBasis).toBe('provider_reported');
  });

  it('stopPoint x is longitude, y latitude', () => {
    expect(first.endLocation).toEqual({ status: 'available', value: { latitude: 38.58, longitude: -121.49 }, source: 'geotab:Trip.stopPoint' });
    expect(first.startLocation.status).toBe('missing');
  });

  it('"UnknownDriverId" ⇒ null driver; days and fractions in TimeSpan; start = previous stopPoint; odometer-difference distance', () => {
    expect(second.driverSourceId).toBeNull();
    // 1.01:00:05.5 = 86,400 + 3,600 + 5.5 s.
    expect(second.durationMs).toBe(90_005_500);
    expect(second.startLocation).toMatchObject({ status: 'available', value: { latitude: 38.58, longitude: -121.49 } });
    expect(second.distanceKm).toMatchObject({ status: 'available', value: 1000, source: 'geotab:Trip.odometer(difference)' });
    expect(second.distanceBasis).toBe('odometer');
  });

  it('falls back to the elapsed interval when drivingDuration is malformed, and uses a LogRecord start hint', () => {
    const [raw] = fixtureRows('trip', 'ok', 'reference-example').filter((t) => t.id === 'b12AC4053');
    const [t] = mapTrips([{ ...raw, drivingDuration: '3h07' }], ctx, new Map([['b12AC4053', { latitude: 37.1, longitude: -122.1 }]]));
    expect(t.durationMs).toBe(Date.parse(raw.stop) - Date.parse(raw.start));
    expect(t.startLocation).toMatchObject({ status: 'available', source: 'geotab:LogRecord(first at or after start)' });
  });
});

describe('mapTrips: implausible distance', () => {
  // Mutation: the checkTripDistance test in mapTrips removed ⇒ both tests fail (113,276.75 km served).
  it('a distance implying more than 300 km/h over drivingDuration is invalid, logged through skip; the trip is kept', () => {
    const skipped: { sourceId: string | null; reason: string }[] = [];
    const [trip] = mapTrips(fixtureRows('trip', 'ok', 'demo-database-metres-distance'), ctx, new Map(), (r) => skipped.push(r));
    expect(trip).toMatchObject({ sourceId: 'b3440B9', vehicleSourceId: 'b2D', driverSourceId: 'b2D', durationMs: 5_261_000, distanceBasis: null });
    expect(trip.distanceKm).toEqual({ status: 'invalid', value: null, source: 'geotab:Trip.distance', reason: 'implies more than 300 km/h over the driving duration' });
    expect(trip.endLocation.status).toBe('available');
    expect(skipped).toEqual([{ sourceId: 'b3440B9', reason: expect.stringContaining('distance 113276.75 km in 5261000 ms implies more than 300 km/h') }]);
  });

  it('checks the odometer-difference distance too, and leaves plausible and zero-length trips alone', () => {
    const rows = fixtureRows('trip', 'ok', 'reference-example');
    const skipped: unknown[] = [];
    // The second trip's odometer difference (1,000 km) over 1 min of driving: 60,000 km/h.
    const fast = rows.map((t) => (t.id === 'b12AC4054' ? { ...t, drivingDuration: '00:01:00' } : t));
    const [first, second] = mapTrips(fast, ctx, new Map(), (r) => skipped.push(r));
    expect(first.distanceKm).toMatchObject({ status: 'available', value: 140.23 });
    expect(second.distanceKm).toMatchObject({ status: 'invalid', source: 'geotab:Trip.odometer(difference)' });
    expect(skipped).toEqual([{ sourceId: 'b12AC4054', reason: expect.stringContaining('served without a distance') }]);
    const odd = mapTrips(fixtureRows('trip', 'ok', 'live-capture-odd-records'), ctx, new Map(), (r) => skipped.push(r));
    expect(odd.map((t) => t.distanceKm.status)).toEqual(['available', 'available']);
    expect(skipped).toHaveLength(1);
  });
});

describe('telemetry', () => {
  it('LogRecord: km/h → m/s, no observation for a (0, 0) no-fix', () => {
    const obs = fixtureRows('log-record', 'ok', 'feed-example').flatMap((r) => logRecordObservations(r, ALL, ctx.fetchedAt));
    expect(obs.filter((o) => o.metric === 'location')).toHaveLength(2);
    const speed = obs.find((o) => o.metric === 'speed');
    expect(speed).toMatchObject({ vehicleSourceId: 'b3', source: 'geotab:LogRecord.speed', observedAt: '2024-09-01T06:04:12.000Z' });
    expect(speed?.value).toEqual({ value: Number((38 / 3.6).toPrecision(15)) });
    // The (0, 0) record still reports its speed (0 is a real speed), not its position.
    expect(obs.filter((o) => o.observedAt === '2024-09-01T06:05:31.000Z').map((o) => o.metric)).toEqual(['speed']);
  });

  it('StatusData: metres, seconds, percent, volts as is; out-of-range and unmapped diagnostics dropped', () => {
    const obs = fixtureRows('status-data', 'ok', 'reference-example').map((r) => statusDataObservation(r, ctx.fetchedAt));
    expect(obs.map((o) => (o ? [o.metric, o.value, o.source] : null))).toEqual([
      ['odometer', { meters: 412345678 }, 'geotab:DiagnosticOdometerId'],
      ['engineHours', { seconds: 36025200 }, 'geotab:DiagnosticEngineHoursId'],
      ['fuelPercent', { value: 63.5 }, 'geotab:DiagnosticFuelLevelId'],
      ['batteryVoltage', { value: 14.1 }, 'geotab:DiagnosticGoDeviceVoltageId'],
      null,
      null,
      null,
    ]);
  });

  it('DeviceStatusInfo: position, speed, bearing; engine state from isDriving / ignition', () => {
    const [driving, parked] = fixtureRows('device-status-info', 'ok', 'reference-example');
    const a = deviceStatusObservations(driving, undefined, ALL, ctx.fetchedAt);
    expect(a.map((o) => o.metric)).toEqual(['location', 'speed', 'heading', 'engineState']);
    expect(a.find((o) => o.metric === 'engineState')).toMatchObject({ value: { state: 'on' }, source: 'geotab:DeviceStatusInfo.isDriving' });
    const ignition = (data: number): GeotabStatusData => ({ dateTime: '2024-09-01T17:30:00.000Z', device: 'b4', diagnostic: 'DiagnosticIgnitionId', data });
    expect(deviceStatusObservations(parked, ignition(1), ALL, ctx.fetchedAt).find((o) => o.metric === 'engineState')).toMatchObject({
      value: { state: 'idle' },
      observedAt: '2024-09-01T17:30:00.000Z',
    });
    expect(deviceStatusObservations(parked, ignition(0), ALL, ctx.fetchedAt).find((o) => o.metric === 'engineState')?.value).toEqual({ state: 'off' });
    expect(deviceStatusObservations(parked, undefined, ALL, ctx.fetchedAt).find((o) => o.metric === 'engineState')).toBeUndefined();
  });

  it('engine-state rule and history merge', () => {
    expect([engineStateOf(0, 50), engineStateOf(1, 50), engineStateOf(1, 0), engineStateOf(undefined, 50), engineStateOf(undefined, 0, true)]).toEqual(['off', 'on', 'idle', undefined, 'on']);
    const t = (m: number) => new Date(Date.UTC(2024, 8, 1, 6, m)).toISOString();
    const ign = (m: number, data: number): GeotabStatusData => ({ dateTime: t(m), device: 'b3', diagnostic: 'DiagnosticIgnitionId', data });
    const log = (m: number, speed: number) => ({ dateTime: t(m), device: 'b3', latitude: 1, longitude: 1, speed });
    const states = engineStateHistory('b3', [ign(1, 1), ign(9, 0)], [log(2, 0), log(3, 40), log(5, 60), log(8, 0)], 0, ctx.fetchedAt);
    expect(states.map((o) => [o.observedAt, o.value])).toEqual([
      [t(1), { state: 'idle' }],
      [t(3), { state: 'on' }],
      [t(8), { state: 'idle' }],
      [t(9), { state: 'off' }],
    ]);
  });
});

describe('mapFault', () => {
  const rows = fixtureRows('fault-data', 'ok', 'feed-example');
  const lookups = {
    diagnostics: new Map([['DiagnosticEngineOilPressureId', { id: 'DiagnosticEngineOilPressureId', name: 'Engine oil pressure', code: 100 }]]),
    failureModes: new Map([['bFA31', { id: 'bFA31', code: 1, name: 'Below normal' }]]),
  };

  it('key = device + diagnostic + failureMode + controller; code with FMI; Diagnostic name as description', () => {
    expect(mapFault(rows[0], lookups, ctx)).toEqual({
      model: 'explicit_records',
      provider: 'geotab',
      sourceId: 'b21f201',
      vehicleSourceId: 'b3',
      observedAt: '2024-09-01T07:15:00.000Z',
      faultKey: 'b3|DiagnosticEngineOilPressureId|bFA31|ControllerObdPowertrainId',
      code: '100-FMI1',
      description: 'Engine oil pressure',
      providerState: 'Active',
      dismissedAt: null,
      fetchedAt: ctx.fetchedAt,
      occurrenceCount: 1,
    });
  });

  it('bare-string references, faultStates fallback, dismissDateTime, MinDate = not dismissed', () => {
    const dismissed = mapFault(rows[1], lookups, ctx);
    expect(dismissed).toMatchObject({ code: 'aObdP0420', description: null, providerState: 'Pending', dismissedAt: '2024-09-03T08:00:00.000Z' });
    expect(dismissed?.faultKey).toBe('b3|aObdP0420|NoFailureModeId|ControllerObdPowertrainId');
    const again = mapFault(rows[2], lookups, ctx);
    expect(again).toMatchObject({ dismissedAt: null, providerState: null, faultKey: 'b3|aObdP0420|NoFailureModeId|ControllerNoneId' });
  });
});
