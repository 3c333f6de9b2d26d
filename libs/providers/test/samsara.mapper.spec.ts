// Samsara mapper edge cases from the reference: singular vs plural stat keys, units, fallbacks,
// missing ≠ 0, retyped attributes → invalid, ongoing trips, fault snapshots.
import { describe, expect, it } from '@jest/globals';
import type { Observation } from '@switchyard/domain';
import type { z } from 'zod';
import type { SkippedRecord } from '../src/adapter.js';
import { parseProviderResponse } from '../src/http/parse.js';
import { PHONE_REASONS } from '../src/phones.js';
import { findLegacy, legacyJoinKey } from '../src/samsara/samsara.adapter.js';
import { parseSamsaraPage } from '../src/samsara/samsara.client.js';
import { mapDriver, mapTag, mapTrip, mapVehicle } from '../src/samsara/samsara.mapper.js';
import { mapFaultSnapshots, mapStatsSeries, planStatTypeGroups, snapshotToSeries } from '../src/samsara/samsara-stats.mapper.js';
import { TELEMETRY_METRICS } from '@switchyard/domain';
import { loadFixture, SAMSARA_FIXTURE_SCHEMAS, SAMSARA_LEGACY_TRIPS_SCHEMA } from './samsara-fixtures.js';

const ctx = { fetchedAt: '2024-09-01T18:10:00.000Z' };
type Schemas = typeof SAMSARA_FIXTURE_SCHEMAS;
const page = <K extends keyof Schemas>(resource: K, name: string) =>
  parseSamsaraPage(SAMSARA_FIXTURE_SCHEMAS[resource] as z.ZodType, loadFixture(resource, 'ok', name), resource).data as readonly z.output<Schemas[K]>[];
const byMetric = (obs: Observation[], vehicle: string) => Object.fromEntries(obs.filter((o) => o.vehicleSourceId === vehicle).map((o) => [o.metric, o]));

describe('mapVehicle', () => {
  it('maps the reference vehicle with source samsara:vehicles and Samsara-less cells unsupported', () => {
    const [v] = page('vehicles', 'reference-example').map((raw) => mapVehicle(raw, ctx));
    expect(v).toMatchObject({ provider: 'samsara', sourceId: '281474976710657', fetchedAt: ctx.fetchedAt });
    expect(v?.name).toEqual({ status: 'available', value: 'Truck 12', source: 'samsara:vehicles' });
    expect(v?.vin).toEqual({ status: 'available', value: '1FUJGLDR5CLBP8834', source: 'samsara:vehicles' });
    const m = v!.metadata;
    expect(m.year).toEqual({ status: 'available', value: 2019, source: 'samsara:vehicles' });
    expect(m.serialNumber).toMatchObject({ status: 'available', value: 'GXYZ-4MN-K7P' });
    expect(m.groups).toMatchObject({ status: 'available', value: [{ id: '3914', name: 'West Region' }] });
    expect(m.createdAt).toMatchObject({ status: 'available', value: '2023-04-11T17:02:11.000Z' }); // normalized like the other adapters
    for (const key of ['status', 'providerStatus', 'fuelType', 'sourceFuelType', 'activeFrom', 'activeTo', 'licensePlateRegion'] as const) {
      expect(m[key]).toEqual({ status: 'unsupported', value: null, source: 'samsara:vehicles' });
    }
  });

  it('reports absent and empty as missing, malformed and retyped as invalid — never a default', () => {
    const [sparse, odd, retyped, old] = page('vehicles', 'sparse-and-odd').map((raw) => mapVehicle(raw, ctx));
    expect(sparse?.name.status).toBe('missing');
    expect(sparse?.vin.status).toBe('missing');
    expect(sparse?.metadata.year.status).toBe('missing');
    expect(sparse?.metadata.groups.status).toBe('missing');
    expect(sparse?.metadata.createdAt).toMatchObject({ status: 'available', value: '2023-04-11T17:02:11.455Z' });
    expect(odd?.name.status).toBe('missing'); // whitespace only
    expect(odd?.vin).toMatchObject({ status: 'invalid', reason: 'not a 17-character VIN' });
    expect(odd?.metadata.year).toMatchObject({ status: 'invalid' });
    expect(odd?.metadata.groups).toMatchObject({ status: 'available', value: [] });
    expect(odd?.metadata.licensePlate.status).toBe('missing');
    expect(retyped?.vin).toMatchObject({ status: 'available', value: '1FUJGLDR5CLBP8834' }); // upper-cased
    expect(retyped?.metadata.year).toMatchObject({ status: 'invalid', reason: 'expected a string, got number' });
    expect(retyped?.metadata.createdAt).toMatchObject({ status: 'invalid' });
    expect(retyped?.metadata.groups).toMatchObject({ status: 'invalid' });
    expect(old?.metadata.year).toMatchObject({ status: 'invalid', reason: 'year outside 1886-2200' });
    expect(old?.metadata.serialNumber).toMatchObject({ status: 'available', value: 'ONLY-TOP-LEVEL' });
  });
});

describe('mapDriver', () => {
  it('maps the reference driver; name parts are unsupported (one full-name field)', () => {
    const [d] = page('drivers', 'reference-example').map((raw) => mapDriver(raw, 'active', ctx));
    expect(d?.status).toEqual({ status: 'available', value: 'active', source: 'samsara:drivers' });
    expect(d?.fields.displayName).toMatchObject({ status: 'available', value: 'Ana Ruiz' });
    expect(d?.fields.firstName.status).toBe('unsupported');
    expect(d?.fields.lastName.status).toBe('unsupported');
    expect(d?.fields.phone).toMatchObject({ status: 'available', value: '+15555550123' });
    expect(d?.fields.email.status).toBe('missing');
    expect(d?.fields.licenseState).toMatchObject({ status: 'available', value: 'CA' });
    expect(d?.groupIds).toMatchObject({ status: 'available', value: ['3914'] });
  });

  it('validates phone, email and license state instead of passing bad values', () => {
    const [bo, cy, noName] = page('drivers', 'bad-contacts').map((raw) => mapDriver(raw, 'active', ctx));
    expect(bo?.fields.phone).toMatchObject({ status: 'invalid', reason: PHONE_REASONS.national }); // no country code: ambiguous, not guessed
    expect(bo?.fields.email).toMatchObject({ status: 'invalid' });
    expect(bo?.fields.licenseState).toMatchObject({ status: 'invalid' });
    expect(bo?.status).toMatchObject({ value: 'inactive' }); // isDeactivated wins over the request's pass
    expect(bo?.groupIds.status).toBe('missing');
    expect(cy?.fields.phone).toMatchObject({ status: 'available', value: '+15555550199' }); // formatting dropped
    expect(cy?.fields.email).toMatchObject({ status: 'available', value: 'cy@example.com' });
    expect(cy?.fields.licenseState).toMatchObject({ status: 'available', value: 'ON' });
    expect(cy?.status).toMatchObject({ value: 'inactive' });
    expect(noName?.fields.displayName.status).toBe('missing');
    expect(noName?.fields.phone).toMatchObject({ status: 'invalid', reason: 'expected a string, got number' });
    expect(noName?.status).toMatchObject({ status: 'invalid' }); // "suspended" is not a documented status
  });
});

describe('mapTag', () => {
  it('roots have a null parent; parentTagId is the parent', () => {
    const [root, west] = page('tags', 'reference-example').map((raw) => mapTag(raw, ctx));
    expect(root).toMatchObject({ sourceId: '3900', parentSourceId: null, name: { status: 'available', value: 'All Regions' }, description: { status: 'unsupported' } });
    expect(west).toMatchObject({ sourceId: '3914', parentSourceId: '3900' });
  });
});

describe('mapTrip', () => {
  const legacy = parseProviderResponse(SAMSARA_LEGACY_TRIPS_SCHEMA, loadFixture('legacy-trips', 'ok', 'reference-example'), 'x').trips;
  const [completed, ongoing] = page('trips-stream', 'reference-example');

  it('keys by asset id + start ms, takes the odometer difference, the legacy driver and stream locations', () => {
    const trip = mapTrip(completed!, legacy[0], ctx);
    expect(trip).toMatchObject({
      sourceId: '281474976710657:1725170620000',
      vehicleSourceId: '281474976710657',
      driverSourceId: '52341',
      startedAt: '2024-09-01T06:03:40.000Z',
      endedAt: '2024-09-01T09:11:30.000Z',
      durationMs: 11_270_000,
      distanceKm: { status: 'available', value: 140.23, source: 'samsara:v1/fleet/trips.endOdometer-startOdometer' },
      distanceBasis: 'odometer',
      startLocation: { status: 'available', value: { latitude: 37.7, longitude: -122.4 }, source: 'samsara:trips' },
    });
  });

  // fixtures/provenance.json: legacy startMs keeps milliseconds (…600123) where the stream says "…00:00:00Z".
  it('joins a whole-second stream trip to its millisecond legacy trip (tolerant key): driver and odometer distance', () => {
    const [stream] = page('trips-stream', 'whole-second-start');
    const [ms] = parseProviderResponse(SAMSARA_LEGACY_TRIPS_SCHEMA, loadFixture('legacy-trips', 'ok', 'millisecond-start'), 'x').trips;
    const index = new Map([[legacyJoinKey('212000000000001', ms!.startMs), ms!]]);
    const match = findLegacy(index, stream!.asset.id, Date.parse(stream!.tripStartTime));
    expect(match).toBe(ms);
    expect(mapTrip(stream!, match, ctx)).toMatchObject({
      sourceId: '212000000000001:1767225600000', driverSourceId: '7100001', startedAt: '2026-01-01T00:00:00.000Z',
      distanceKm: { status: 'available', value: 52, source: 'samsara:v1/fleet/trips.endOdometer-startOdometer' }, distanceBasis: 'odometer',
    });
    expect(findLegacy(index, stream!.asset.id, Date.parse(stream!.tripStartTime) + 2000)).toBeUndefined(); // another trip, not a neighbour
  });

  it('falls back to GPS distance when the odometers went backwards (reset), and to nothing without legacy data', () => {
    const reset = mapTrip(completed!, { ...legacy[0]!, endOdometer: 1000 }, ctx);
    expect(reset).toMatchObject({ distanceKm: { status: 'available', value: 140.23, source: 'samsara:v1/fleet/trips.distanceMeters' }, distanceBasis: 'gps' });
    const bare = mapTrip(completed!, undefined, ctx);
    expect(bare).toMatchObject({ distanceKm: { status: 'missing' }, distanceBasis: null, driverSourceId: null });
  });

  it('excludes trips in progress (stream status, no end) and ignores ongoing legacy records', () => {
    expect(mapTrip(ongoing!, undefined, ctx)).toBeUndefined();
    expect(legacy[1]!.endMs).toBeGreaterThan(Number.MAX_SAFE_INTEGER);
    expect(mapTrip(completed!, legacy[1], ctx)).toMatchObject({ driverSourceId: null, distanceKm: { status: 'missing' } });
  });
});

describe('stats', () => {
  it('packs ≤ 3 types per request and keeps fallbacks together', () => {
    expect(planStatTypeGroups(TELEMETRY_METRICS)).toEqual([
      ['gps', 'obdOdometerMeters', 'gpsOdometerMeters'],
      ['obdEngineSeconds', 'syntheticEngineSeconds', 'idlingDurationMilliseconds'],
      ['fuelPercents', 'batteryMilliVolts', 'engineStates'],
    ]);
    expect(planStatTypeGroups(['speed', 'location', 'heading'])).toEqual([['gps']]);
    expect(planStatTypeGroups(['fuelPercent', 'odometer', 'engineHours'])).toEqual([['obdOdometerMeters', 'gpsOdometerMeters'], ['obdEngineSeconds', 'syntheticEngineSeconds', 'fuelPercents']]);
  });

  it('reads the snapshot singular keys and converts mph, mV and ms', () => {
    const obs = page('stats-snapshot', 'reference-example').flatMap((item) => mapStatsSeries(snapshotToSeries(item), TELEMETRY_METRICS, ctx));
    const truck = byMetric(obs, '281474976710657');
    expect(truck.location).toMatchObject({ value: { latitude: 37.7749, longitude: -122.4194 }, source: 'samsara:gps', observedAt: '2024-09-01T18:04:11.000Z' });
    expect(truck.speed).toMatchObject({ value: { value: 18.596864 }, source: 'samsara:gps.speedMilesPerHour' });
    expect(truck.speed).not.toHaveProperty('units');
    expect(truck.heading).toMatchObject({ value: { value: 92 } });
    expect(truck.engineState).toMatchObject({ value: { state: 'on' }, source: 'samsara:engineStates' });
    expect(truck.fuelPercent).toMatchObject({ value: { value: 54 }, source: 'samsara:fuelPercents' });
    expect(truck.odometer).toMatchObject({ value: { meters: 412345678 }, source: 'samsara:obdOdometerMeters' }); // obd preferred over gps
    expect(truck.odometer).not.toHaveProperty('units');
    expect(truck.engineHours).toMatchObject({ value: { seconds: 36025200 }, source: 'samsara:obdEngineSeconds' });
    expect(truck.totalIdleTime).toMatchObject({ value: { seconds: 7200.5 }, units: { source: 'milliseconds', normalized: 'seconds', factor: 0.001 } });
    expect(truck.batteryVoltage).toMatchObject({ value: { value: 14.1 }, source: 'samsara:batteryMilliVolts' });
    expect(obs.filter((o) => o.vehicleSourceId === '281474976710657')).toHaveLength(9);
  });

  it('falls back to gps odometer / synthetic engine seconds; drops unknown states and out-of-range values; emits nothing for absent stats', () => {
    const obs = page('stats-snapshot', 'reference-example').flatMap((item) => mapStatsSeries(snapshotToSeries(item), TELEMETRY_METRICS, ctx));
    const van = byMetric(obs, '281474976710658');
    expect(van.odometer).toMatchObject({ value: { meters: 1000 }, source: 'samsara:gpsOdometerMeters' });
    expect(van.engineHours).toMatchObject({ value: { seconds: 3600 }, source: 'samsara:syntheticEngineSeconds' });
    expect(Object.keys(van).sort()).toEqual(['engineHours', 'odometer']); // "Standby" and 140 % dropped
    expect(obs.some((o) => o.vehicleSourceId === '281474976710659')).toBe(false);
  });

  it('emits only requested metrics', () => {
    const obs = page('stats-snapshot', 'reference-example').flatMap((item) => mapStatsSeries(snapshotToSeries(item), ['odometer'], ctx));
    expect(new Set(obs.map((o) => o.metric))).toEqual(new Set(['odometer']));
  });

  it('reads the history plural keys into a series', () => {
    const obs = page('stats-history', 'reference-example').flatMap((item) => mapStatsSeries(item, TELEMETRY_METRICS, ctx));
    expect(obs.filter((o) => o.metric === 'engineState').map((o) => o.metric === 'engineState' && o.value.state)).toEqual(['on', 'idle', 'off']);
    expect(obs.filter((o) => o.metric === 'fuelPercent').map((o) => o.observedAt)).toEqual(['2024-09-01T06:00:05.000Z', '2024-09-01T09:12:00.000Z']);
    expect(obs.filter((o) => o.metric === 'location')).toHaveLength(0); // decorations are not readings of their own
  });
});

const noSkip = (record: SkippedRecord): void => {
  throw new Error(`unexpected skip: ${record.reason}`);
};

describe('faults', () => {
  it('turns each faultCodes point into a complete snapshot across J1939, OBD-II and OEM', () => {
    const [snap] = page('stats-snapshot', 'reference-example').flatMap((item) => mapFaultSnapshots(snapshotToSeries(item), ctx, noSkip));
    expect(snap).toMatchObject({ model: 'complete_snapshot', vehicleSourceId: '281474976710658', observedAt: '2024-09-01T07:15:00.000Z' });
    expect(snap?.active).toEqual([
      { faultKey: 'j1939:0:spn3226:fmi2', code: 'SPN 3226 FMI 2', description: 'Aftertreatment 1 Outlet NOx: Data erratic', occurrenceCount: 3 },
      { faultKey: 'obdii:7:P0420:confirmed', code: 'P0420', description: 'Catalyst efficiency below threshold' },
      { faultKey: 'obdii:7:300:pending', code: '300', description: null },
      { faultKey: 'oem:CA2387', code: 'CA2387', description: 'KVGT Servo Error' },
    ]);
  });

  it('an empty code list is a snapshot with nothing active (everything cleared)', () => {
    const snaps = page('stats-history', 'reference-example').flatMap((item) => mapFaultSnapshots(item, ctx, noSkip));
    expect(snaps.map((s) => s.active.length)).toEqual([1, 0]);
  });

  // fixtures/provenance.json: the OEM code shape of Samsara's SDK, where codeIdentifier is optional.
  it('an OEM code without codeIdentifier skips that vehicle\'s snapshot with a reason; a malformed record is skipped; the page is used', () => {
    const parsed = parseSamsaraPage(SAMSARA_FIXTURE_SCHEMAS['stats-snapshot'], loadFixture('stats-snapshot', 'ok', 'oem-code-without-identifier'), '/fleet/vehicles/stats');
    expect(parsed.skipped).toEqual([{ sourceId: '281474976710660', reason: '/fleet/vehicles/stats data.2.faultCodes: Invalid input' }]);
    const skipped: SkippedRecord[] = [];
    const snaps = parsed.data.flatMap((item) => mapFaultSnapshots(snapshotToSeries(item), ctx, (r) => skipped.push(r)));
    expect(snaps).toEqual([
      { model: 'complete_snapshot', provider: 'samsara', vehicleSourceId: '281474976710658', observedAt: '2024-09-01T07:15:00.000Z', active: [{ faultKey: 'oem:CA2387', code: 'CA2387', description: 'KVGT Servo Error' }], fetchedAt: ctx.fetchedAt },
    ]);
    expect(skipped).toEqual([{ sourceId: '281474976710659', reason: 'faultCodes at 2024-09-01T07:16:00Z: an OEM code without codeIdentifier, so the snapshot cannot be complete' }]);
  });
});
