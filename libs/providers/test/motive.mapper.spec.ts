import { describe, expect, it } from '@jest/globals';
import type { SkippedRecord } from '../src/adapter.js';
import type { Observation } from '@switchyard/domain';
import { TELEMETRY_METRICS } from '@switchyard/domain';
import { parseProviderResponse } from '../src/http/parse.js';
import { buildFaultSnapshots, deriveEngineState, mapDrivingPeriod, mapLocationPoint } from '../src/motive/motive-telemetry.mapper.js';
import { mapDriver, mapGroup, mapVehicle, type MembershipLookup } from '../src/motive/motive.mapper.js';
import * as s from '../src/motive/motive.schemas.js';
import { MOTIVE_FIXTURE_RESOURCES, motiveFixture, motiveFixtureNames, type MotiveFixtureResource } from './motive-fixtures.js';

const FETCHED = '2024-09-02T00:00:00.000Z';
const ENVELOPES = {
  vehicles: s.vehiclesEnvelope,
  users: s.usersEnvelope,
  groups: s.groupsEnvelope,
  'vehicle-locations': s.vehicleLocationsEnvelope,
  'vehicle-locations-v3': s.historyEnvelope,
  'driving-periods': s.drivingPeriodsEnvelope,
  'fault-codes': s.faultCodesEnvelope,
} as const satisfies Record<MotiveFixtureResource, unknown>;

type ItemOf<L> = L extends s.MotiveList<infer T> ? T : never;

/** An `ok` fixture of `resource` parsed with the adapter's envelope for it (typed per call site). */
function parse<R extends MotiveFixtureResource>(resource: R, name: string): s.ListPage<ItemOf<(typeof ENVELOPES)[R]>> {
  return s.parseMotiveList(ENVELOPES[resource] as s.MotiveList<unknown>, motiveFixture(resource, 'ok', name), resource) as s.ListPage<ItemOf<(typeof ENVELOPES)[R]>>;
}
const ALL = new Set(TELEMETRY_METRICS);
const noSkip = (r: SkippedRecord): never => {
  throw new Error(`unexpected skip: ${r.reason}`);
};
const byMetric = (obs: Observation[]) => Object.fromEntries(obs.map((o) => [o.metric, o]));

describe.each(MOTIVE_FIXTURE_RESOURCES)('motive %s fixtures', (resource) => {
  it.each(motiveFixtureNames(resource, 'ok'))('ok/%s parses', (name) => {
    expect(() => parse(resource, name)).not.toThrow();
  });
  it.each(motiveFixtureNames(resource, 'not-ok'))('not-ok/%s is provider_response_changed', (name) => {
    expect(() => s.parseMotiveList(ENVELOPES[resource] as s.MotiveList<unknown>, motiveFixture(resource, 'not-ok', name), resource)).toThrow(
      expect.objectContaining({ code: 'provider_response_changed' }),
    );
  });
});

describe('mapVehicle', () => {
  it('maps the reference vehicle: year string → int, plate + state, fuel type + raw, serial', () => {
    const [v] = parse('vehicles', 'reference-example').items.map((x) => mapVehicle(x, FETCHED));
    expect(v).toMatchObject({ provider: 'motive', sourceId: '4', name: { status: 'available', value: 'Truck 12', source: 'motive:vehicles' }, vin: { value: '1FUJGLDR5CLBP8834' } });
    const values = Object.fromEntries(Object.entries(v.metadata).map(([k, f]) => [k, f.value]));
    expect(values).toEqual({
      make: 'Freightliner', model: 'Cascadia', year: 2019, status: 'active', providerStatus: 'active', fuelType: 'diesel', sourceFuelType: 'diesel',
      createdAt: '2023-04-11T17:02:11.000Z', updatedAt: '2024-09-01T08:15:30.000Z', activeFrom: null, activeTo: null,
      licensePlate: '7ABC123', licensePlateRegion: 'CA', serialNumber: 'AABL36RC400066', groups: null,
    });
    expect(v.metadata.groups.status).toBe('unsupported');
    for (const cell of Object.values(v.metadata)) expect(cell.source).toBe('motive:vehicles');
  });

  it('reports gaps as missing and retyped or unmappable values as invalid, never 0 or ""', () => {
    const [a, b, c] = parse('vehicles', 'gaps-and-retypes').items.map((x) => mapVehicle(x, FETCHED));
    expect(a.vin.status).toBe('missing');
    expect(a.metadata.make).toMatchObject({ status: 'missing', value: null, reason: 'make: empty' });
    expect(a.metadata.year.status).toBe('missing');
    expect(a.metadata.fuelType.status).toBe('missing');
    expect(a.metadata.serialNumber.status).toBe('missing');
    expect(a.metadata.licensePlate.status).toBe('missing');
    expect(a.metadata.status.value).toBe('inactive'); // deactivated
    expect(a.metadata.createdAt.value).toBe('2023-04-11T17:02:11.123Z'); // microseconds
    expect(a.metadata.updatedAt).toMatchObject({ status: 'invalid', value: null });
    expect(b.metadata.year).toMatchObject({ status: 'invalid', value: null, reason: 'year: retyped (got number)' });
    expect(b.metadata.fuelType.status).toBe('invalid'); // bare "hybrid" is ambiguous
    expect(b.metadata.sourceFuelType.value).toBe('hybrid');
    expect(b.metadata.status).toMatchObject({ status: 'invalid' });
    expect(b.metadata.providerStatus.value).toBe('retired');
    expect(b.metadata.serialNumber.status).toBe('missing'); // eld_device without identifier
    expect(c.metadata.year.status).toBe('invalid'); // 1850 < 1886
    expect(c.metadata.fuelType.value).toBe('compressed_natural_gas');
  });
});

describe('mapDriver', () => {
  const index: MembershipLookup = { kind: 'index', byUser: new Map([['11', ['6', '7']]]) };

  it('maps the reference user with memberships', () => {
    const [d] = parse('users', 'reference-example').items.map((u) => mapDriver(u, index, FETCHED));
    expect(d.sourceId).toBe('11');
    expect(d.status.value).toBe('active');
    expect(Object.fromEntries(Object.entries(d.fields).map(([k, f]) => [k, f.value]))).toEqual({
      firstName: 'Ana', middleName: null, lastName: 'Ruiz', displayName: 'Ana Ruiz', email: 'ana.ruiz@example.com', phone: '+15555550123',
      username: 'aruiz', licenseNumber: 'D1234567', licenseState: 'CA', createdAt: '2023-05-02T15:00:00.000Z', updatedAt: '2024-08-20T10:11:12.000Z',
    });
    expect(d.groupIds).toEqual({ status: 'available', value: ['6', '7'], source: 'motive:groups.users' });
  });

  it('validates phone (E.164), license state (spec list) and email; formatting is stripped from phones', () => {
    const [bo, nameless] = parse('users', 'bad-contacts').items.map((u) => mapDriver(u, index, FETCHED));
    expect(bo.fields.phone.value).toBe('+15555550199');
    expect(bo.fields.email.status).toBe('invalid');
    expect(bo.fields.licenseState.status).toBe('invalid');
    expect(bo.fields.licenseNumber.status).toBe('missing');
    expect(bo.fields.displayName.value).toBe('Bo');
    expect(bo.status.value).toBe('inactive');
    expect(bo.groupIds.value).toEqual([]);
    expect(nameless.fields.phone.status).toBe('invalid');
    expect(nameless.fields.licenseState.status).toBe('invalid'); // lower-case "qc" is not in the list
    expect(nameless.fields.displayName.status).toBe('missing');
    expect(nameless.fields.email.status).toBe('missing');
  });

  it('reports groupIds missing (not empty) when memberships could not be read', () => {
    const [d] = parse('users', 'reference-example').items.map((u) => mapDriver(u, { kind: 'unavailable', reason: 'provider_scope_mismatch' }, FETCHED));
    expect(d.groupIds).toMatchObject({ status: 'missing', value: null, reason: 'provider_scope_mismatch' });
  });
});

it('mapGroup keeps parent ids and roots', () => {
  const groups = parse('groups', 'reference-example').items.map((g) => mapGroup(g, FETCHED));
  expect(groups.map((g) => [g.sourceId, g.name.value, g.parentSourceId])).toEqual([['6', 'All Regions', null], ['7', 'West Region', '6']]);
});

describe('mapLocationPoint', () => {
  const point = parse('vehicle-locations', 'reference-example').items[0].current_location!;

  it('metric mode: true_* preferred, km → m and h → s with UnitConversion, km/h → m/s', () => {
    const o = byMetric(mapLocationPoint(point, { vehicleSourceId: '4', mode: 'metric', metrics: ALL, fetchedAt: FETCHED }));
    expect(Object.keys(o).sort()).toEqual(['batteryVoltage', 'engineHours', 'engineState', 'fuelPercent', 'heading', 'location', 'odometer', 'speed']);
    expect(o.odometer).toMatchObject({ value: { meters: 412340200 }, source: 'motive:true_odometer', units: { source: 'kilometers', normalized: 'meters', factor: 1000 }, observedAt: '2024-09-01T18:04:11.000Z', fetchedAt: FETCHED });
    expect(o.engineHours).toMatchObject({ value: { seconds: 36019800 }, source: 'motive:true_engine_hours', units: { source: 'hours', normalized: 'seconds', factor: 3600 } });
    expect(o.speed.value).toEqual({ value: Number((67 / 3.6).toPrecision(15)) });
    expect(o.location.value).toEqual({ latitude: 37.7749, longitude: -122.4194 });
    expect(o.heading.value).toEqual({ value: 92 });
    expect(o.fuelPercent.value).toEqual({ value: 62 });
    expect(o.batteryVoltage.value).toEqual({ value: 13.9 });
    expect(o.engineState).toMatchObject({ value: { state: 'on' }, source: 'motive:type' });
  });

  it('imperial mode (X-Metric-Units ignored): miles → m and mph → m/s', () => {
    const o = byMetric(mapLocationPoint(point, { vehicleSourceId: '4', mode: 'imperial', metrics: ALL, fetchedAt: FETCHED }));
    expect(o.odometer).toMatchObject({ value: { meters: Number((412340.2 * 1609.344).toPrecision(15)) }, units: { source: 'miles', normalized: 'meters', factor: 1609.344 } });
    expect(o.speed.value).toEqual({ value: Number((67 * 0.44704).toPrecision(15)) });
    expect(o.engineHours.value).toEqual({ seconds: 36019800 }); // hours either way
  });

  it('emits only requested metrics, and nothing for absent, retyped or out-of-range readings', () => {
    expect(mapLocationPoint(point, { vehicleSourceId: '4', mode: 'metric', metrics: new Set(['odometer']), fetchedAt: FETCHED }).map((x) => x.metric)).toEqual(['odometer']);
    const gaps = parse('vehicle-locations', 'gaps').items;
    expect(gaps[0].current_location).toBeNull();
    const o = mapLocationPoint(gaps[1].current_location!, { vehicleSourceId: '9', mode: 'metric', metrics: ALL, fetchedAt: FETCHED });
    // bearing 400 out of range, odometers null, engine_hours "12.5" retyped, fuel null, breadcrumb at speed 0 = unknown engine state.
    expect(o.map((x) => x.metric).sort()).toEqual(['location', 'speed']);
    expect(byMetric(o).speed.value).toEqual({ value: 0 });
  });

  it('falls back from a missing true_odometer to odometer', () => {
    const o = mapLocationPoint({ ...point, true_odometer: { kind: 'absent' } }, { vehicleSourceId: '4', mode: 'metric', metrics: new Set(['odometer']), fetchedAt: FETCHED });
    expect(o[0]).toMatchObject({ source: 'motive:odometer', value: { meters: 412345700 } });
  });

  it('derives engine state only where the type says so', () => {
    const states = parse('vehicle-locations-v3', 'engine-states').items.map((p) => deriveEngineState(p.type, p.speed));
    expect(states).toEqual(['off', 'idle', undefined, 'on', undefined]);
  });
});

describe('phones (fixtures/provenance.json: users carry phone and phone_country_code apart)', () => {
  const none: MembershipLookup = { kind: 'unavailable', reason: 'not read' };
  it('prefixes a national number with Motive\'s own phone_country_code; too short stays invalid; null stays missing', () => {
    const [full, empty] = parse('users', 'phone-country-code-apart').items;
    expect(mapDriver(full!, none, FETCHED).fields.phone).toEqual({ status: 'invalid', value: null, source: 'motive:users', reason: 'phone: not an E.164 phone number (phone_country_code included)' }); // "+1" + 7 digits
    const national = mapDriver({ ...full!, phone: { kind: 'value', value: '(555) 555-0100' } }, none, FETCHED).fields.phone;
    expect(national).toEqual({ status: 'available', value: '+15555550100', source: 'motive:users' });
    const noCode = mapDriver({ ...full!, phone: { kind: 'value', value: '555 555 0100' }, phone_country_code: { kind: 'absent' } }, none, FETCHED).fields.phone;
    expect(noCode.status).toBe('invalid'); // no country code is guessed
    expect(mapDriver(empty!, none, FETCHED).fields.phone).toMatchObject({ status: 'missing' });
  });
});

describe('mapDrivingPeriod', () => {
  it('maps the reference period: odometer-delta distance in km, duration s → ms', () => {
    const [dp] = parse('driving-periods', 'reference-example').items;
    expect(mapDrivingPeriod(dp, { fetchedAt: FETCHED })).toEqual({
      kind: 'trip',
      trip: expect.objectContaining({
        provider: 'motive', sourceId: '98231', vehicleSourceId: '4', driverSourceId: '11', startedAt: '2024-09-01T06:03:40.000Z', endedAt: '2024-09-01T09:11:30.000Z',
        durationMs: 11_270_000, distanceKm: { status: 'available', value: 140, source: 'motive:driving_periods' }, distanceBasis: 'odometer',
      }),
    });
  });

  it('excludes ongoing periods, reads *_kilometers as km whatever metric_units says, flags resets, tolerates retyped duration', () => {
    const [ongoing, preferenceImperial, reset, retyped] = parse('driving-periods', 'ongoing-preference-reset').items.map((dp) => mapDrivingPeriod(dp, { fetchedAt: FETCHED }));
    expect(ongoing).toEqual({ kind: 'skipped', reason: 'ongoing' });
    expect(preferenceImperial.kind === 'trip' && preferenceImperial.trip.distanceKm.value).toBe(50); // metric_units: false, 100 → 150 km
    expect(reset.kind === 'trip' && reset.trip).toMatchObject({ distanceKm: { status: 'invalid', value: null }, distanceBasis: null, driverSourceId: null });
    expect(retyped).toEqual({ kind: 'skipped', reason: 'no_vehicle' });
    const attributed = mapDrivingPeriod(parse('driving-periods', 'ongoing-preference-reset').items[3], { fallbackVehicleId: '4', fetchedAt: FETCHED });
    expect(attributed.kind === 'trip' && attributed.trip).toMatchObject({ vehicleSourceId: '4', durationMs: 11_270_000 }); // elapsed 06:03:40 → 09:11:30
    expect(attributed.kind === 'trip' && attributed.trip.startLocation).toEqual({ status: 'missing', value: null, source: 'motive:driving_periods', reason: 'origin_lat/origin_lon: not reported' });
  });

  // Live capture (fixtures/provenance.json): every vehicle says metric_units: false, yet the odometer
  // delta 475051.29712 - 474983.41176 = 67.885 km matches the payload's own "distance": "42.2 mi" (67.9 km).
  it('live capture: km odometers under metric_units false, origin/destination coordinates, ongoing skipped', () => {
    const [long, short, inProgress] = parse('driving-periods', 'live-capture-metric-units-false').items.map((dp) => mapDrivingPeriod(dp, { fetchedAt: FETCHED }));
    expect(long.kind === 'trip' && long.trip).toMatchObject({
      sourceId: '4000000009', vehicleSourceId: '500001', driverSourceId: '2000006', startedAt: '2026-07-14T23:54:21.000Z', endedAt: '2026-07-15T00:41:46.000Z', durationMs: 2_845_000,
      distanceBasis: 'odometer',
      startLocation: { status: 'available', value: { latitude: 40.0011, longitude: -100.0011 } },
      endLocation: { status: 'available', value: { latitude: 40.0012, longitude: -100.0012 } },
    });
    const km = long.kind === 'trip' ? long.trip.distanceKm.value : null;
    expect(km).toBeCloseTo(67.885, 3);
    expect(Math.abs((km ?? 0) - 42.2 * 1.609344)).toBeLessThan(0.1); // agrees with "42.2 mi"
    expect(short.kind === 'trip' && short.trip.distanceKm.value).toBeCloseTo(4.624, 3); // "2.9 mi" = 4.67 km
    expect(inProgress).toEqual({ kind: 'skipped', reason: 'ongoing' });
  });

  it('live capture vehicle with year "0" and empty make/model: all missing, never 0 or ""', () => {
    const [, short] = parse('driving-periods', 'live-capture-metric-units-false').items;
    const raw = motiveFixture('driving-periods', 'ok', 'live-capture-metric-units-false') as { driving_periods: Array<{ driving_period: { vehicle: Record<string, unknown> } }> };
    const vehicle = parseProviderResponse(s.vehicleSchema, { status: 'active', ...raw.driving_periods[1].driving_period.vehicle }, 'fixture');
    expect(short.vehicle?.id).toBe(500016);
    const v = mapVehicle(vehicle, FETCHED);
    expect(v.metadata.year).toEqual({ status: 'missing', value: null, source: 'motive:vehicles', reason: 'year: "0" (not entered)' });
    expect(v.metadata.make).toMatchObject({ status: 'missing', reason: 'make: empty' });
    expect(v.metadata.model).toMatchObject({ status: 'missing', reason: 'model: empty' });
  });

  it('an out-of-range coordinate is invalid, not dropped or zeroed', () => {
    const [dp] = parse('driving-periods', 'live-capture-metric-units-false').items;
    const trip = mapDrivingPeriod({ ...dp, destination_lat: { kind: 'value', value: 91 } }, { fetchedAt: FETCHED });
    expect(trip.kind === 'trip' && trip.trip.endLocation).toEqual({ status: 'invalid', value: null, source: 'motive:driving_periods', reason: 'destination_lat/destination_lon: not a coordinate in range' });
  });
});

describe('buildFaultSnapshots', () => {
  it('builds complete snapshots of open codes per vehicle; closed-only vehicles get an empty snapshot', () => {
    const snaps = buildFaultSnapshots(parse('fault-codes', 'open-and-reopened').items, { observedAt: FETCHED, fetchedAt: FETCHED }, noSkip);
    expect(snaps.map((x) => [x.vehicleSourceId, x.active.map((a) => a.faultKey)])).toEqual([
      ['4', ['j1939:spn110:fmi0', 'obdii:P0420']],
      ['5', []],
    ]);
    expect(snaps[0].active[0].code).toBe('SPN 110 FMI 0');
    expect(snaps[0].active[0].description).toBe('Engine Coolant Temperature — Data valid but above normal operating range');
    expect(snaps[0].model).toBe('complete_snapshot');
    // occurrence_count null (as Motive documents it): no count.
    expect(snaps[0].active.map((a) => a.occurrenceCount)).toEqual([undefined, undefined]);
  });

  it('carries a J1939 code\'s occurrence_count when Motive reports one (not an OBD-II one\'s)', () => {
    const items = parse('fault-codes', 'open-and-reopened').items.map((f) => ({ ...f, occurrence_count: 4 }));
    const [snap] = buildFaultSnapshots(items, { observedAt: FETCHED, fetchedAt: FETCHED }, noSkip);
    expect(snap?.active.map((a) => [a.faultKey, a.occurrenceCount])).toEqual([
      ['j1939:spn110:fmi0', 4],
      ['obdii:P0420', undefined],
    ]);
  });

  it('gives every requested vehicle a snapshot; a code of unknown status withholds only its vehicle\'s snapshot, reported as skipped', () => {
    const closed = parse('fault-codes', 'reference-example').items;
    expect(buildFaultSnapshots(closed, { vehicleSourceIds: ['4', '99'], observedAt: FETCHED, fetchedAt: FETCHED }, noSkip).map((x) => [x.vehicleSourceId, x.active.length])).toEqual([['4', 0], ['99', 0]]);
    const skipped: SkippedRecord[] = [];
    const snaps = buildFaultSnapshots([{ ...closed[0], status: 'pending' }], { vehicleSourceIds: ['4', '99'], observedAt: FETCHED, fetchedAt: FETCHED }, (r) => skipped.push(r));
    expect(snaps.map((x) => x.vehicleSourceId)).toEqual(['99']);
    expect(skipped).toEqual([{ sourceId: '4', reason: `fault_code ${closed[0].id}: unknown status "pending", so the snapshot cannot be complete` }]);
  });

  it('a malformed code withholds its vehicle\'s snapshot; one of an unknown vehicle withholds every snapshot', () => {
    const codes = parse('fault-codes', 'open-and-reopened').items;
    const skipped: SkippedRecord[] = [];
    const snaps = buildFaultSnapshots(codes, { observedAt: FETCHED, fetchedAt: FETCHED, unreadable: [{ sourceId: '5', reason: 'bad code' }] }, (r) => skipped.push(r));
    expect(snaps.map((x) => x.vehicleSourceId)).toEqual(['4']);
    expect(skipped).toEqual([{ sourceId: '5', reason: 'bad code, so the snapshot cannot be complete' }]);
    skipped.length = 0;
    expect(buildFaultSnapshots(codes, { observedAt: FETCHED, fetchedAt: FETCHED, unreadable: [{ sourceId: null, reason: 'bad code' }] }, (r) => skipped.push(r))).toEqual([]);
    expect(skipped.map((r) => r.sourceId)).toEqual(['4', '5']);
  });
});
