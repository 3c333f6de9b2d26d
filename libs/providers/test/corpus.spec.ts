/**
 * The real-payload corpus (issue 17): every fixture listed in fixtures/provenance.json — payloads the
 * providers publish (docs, SDK test files) and ones independent projects recorded from live accounts
 * — goes through its adapter's schema, record by record as the adapter reads it, and its mapper; the
 * normalized result is asserted, units included. One table: a row names the file, how it is read
 * (`read`, the adapter's own parse + map for that resource) and what a reader of /v1 must get.
 * A provenance entry without a row fails here, so the corpus cannot grow untested.
 */
import { describe, expect, it } from '@jest/globals';
import { TELEMETRY_METRICS } from '@switchyard/domain';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { SkippedRecord } from '../src/adapter.js';
import { parseGeotabRows } from '../src/geotab/geotab.client.js';
import { isTrailerDevice, mapDevice, mapTrips, mapUser, TRAILER_SKIP_REASON } from '../src/geotab/geotab.mapper.js';
import { mapFault } from '../src/geotab/geotab.faults.js';
import { deviceSchema, faultDataSchema, logRecordSchema, tripSchema, userSchema } from '../src/geotab/geotab.schemas.js';
import { logRecordObservations } from '../src/geotab/geotab.telemetry.js';
import { parseProviderResponse } from '../src/http/parse.js';
import { PHONE_REASONS } from '../src/phones.js';
import { buildFaultSnapshots, mapDrivingPeriod, mapLocationPoint } from '../src/motive/motive-telemetry.mapper.js';
import { mapDriver as mapMotiveDriver, mapGroup as mapMotiveGroup, mapVehicle as mapMotiveVehicle } from '../src/motive/motive.mapper.js';
import * as motive from '../src/motive/motive.schemas.js';
import { findLegacy, legacyJoinKey } from '../src/samsara/samsara.adapter.js';
import { parseSamsaraPage } from '../src/samsara/samsara.client.js';
import { mapDriver, mapTag, mapTrip, mapVehicle } from '../src/samsara/samsara.mapper.js';
import { mapFaultSnapshots, mapStatsSeries, snapshotToSeries } from '../src/samsara/samsara-stats.mapper.js';
import {
  samsaraDriverSchema,
  samsaraLegacyTripsResponseSchema,
  samsaraStatsSeriesItemSchema,
  samsaraStatsSnapshotItemSchema,
  samsaraStreamTripSchema,
  samsaraTagSchema,
  samsaraVehicleSchema,
  type SamsaraStreamTrip,
} from '../src/samsara/samsara.schemas.js';

const root = path.join(import.meta.dirname, 'fixtures');
const json = (file: string): unknown => JSON.parse(readFileSync(path.join(root, file), 'utf8')) as unknown;
const manifest = json('provenance.json') as Record<string, unknown>;

const FETCHED = '2024-09-02T00:00:00.000Z';
const NOW_MS = Date.parse(FETCHED);
const samsaraCtx = { fetchedAt: FETCHED };
const geotabCtx = { fetchedAt: FETCHED, nowMs: NOW_MS };
const ALL_METRICS = new Set(TELEMETRY_METRICS);

/** What one read of a corpus file yields: the normalized records and the records reported instead. */
interface Read {
  readonly records: readonly unknown[];
  readonly skipped: readonly SkippedRecord[];
}

/** A Geotab body's rows: `result` (Get) or `result.data` (GetFeed). */
const geotabRows = (body: unknown): unknown => {
  const result = (body as { result?: unknown }).result;
  return Array.isArray(result) ? result : (result as { data?: unknown }).data;
};

/** How each resource is read: the adapter's own record-by-record parse, then its mapper. */
const READ = {
  'samsara/vehicles': (body: unknown): Read => {
    const page = parseSamsaraPage(samsaraVehicleSchema, body, '/fleet/vehicles');
    return { records: page.data.map((v) => mapVehicle(v, samsaraCtx)), skipped: page.skipped };
  },
  'samsara/drivers': (body: unknown): Read => {
    const page = parseSamsaraPage(samsaraDriverSchema, body, '/fleet/drivers');
    return { records: page.data.map((d) => mapDriver(d, 'active', samsaraCtx)), skipped: page.skipped };
  },
  'samsara/tags': (body: unknown): Read => {
    const page = parseSamsaraPage(samsaraTagSchema, body, '/tags');
    return { records: page.data.map((t) => mapTag(t, samsaraCtx)), skipped: page.skipped };
  },
  'samsara/stats-history': (body: unknown): Read => {
    const page = parseSamsaraPage(samsaraStatsSeriesItemSchema, body, '/fleet/vehicles/stats/history');
    return { records: page.data.flatMap((item) => mapStatsSeries(item, ['location', 'speed', 'heading', 'odometer', 'engineHours'], samsaraCtx)), skipped: page.skipped };
  },
  'samsara/stats-snapshot (latest)': (body: unknown): Read => {
    const page = parseSamsaraPage(samsaraStatsSnapshotItemSchema, body, '/fleet/vehicles/stats');
    return { records: page.data.flatMap((item) => mapStatsSeries(snapshotToSeries(item), [...TELEMETRY_METRICS], samsaraCtx)), skipped: page.skipped };
  },
  'samsara/stats-snapshot (faults)': (body: unknown): Read => {
    const page = parseSamsaraPage(samsaraStatsSnapshotItemSchema, body, '/fleet/vehicles/stats');
    const skipped = [...page.skipped];
    return { records: page.data.flatMap((item) => mapFaultSnapshots(snapshotToSeries(item), samsaraCtx, (r) => skipped.push(r))), skipped };
  },
  /** Legacy trips joined to the stream trips of the same vehicles, as `trips()` does. */
  'samsara/trips (stream + legacy)': (legacyBody: unknown, stream: unknown): Read => {
    const page = parseSamsaraPage(samsaraStreamTripSchema, stream, '/trips/stream');
    const legacy = parseProviderResponse(samsaraLegacyTripsResponseSchema, legacyBody, '/v1/fleet/trips').trips;
    const vehicle = (t: SamsaraStreamTrip) => t.asset.id;
    const index = new Map(page.data.flatMap((t) => legacy.map((l) => [legacyJoinKey(vehicle(t), l.startMs), l] as const)));
    return { records: page.data.flatMap((t) => mapTrip(t, findLegacy(index, vehicle(t), Date.parse(t.tripStartTime)), samsaraCtx) ?? []), skipped: page.skipped };
  },
  'geotab/device': (body: unknown): Read => {
    const page = parseGeotabRows(deviceSchema, geotabRows(body), 'geotab:GetFeed:Device');
    const trailers = page.data.filter(isTrailerDevice).map((d) => ({ sourceId: d.id, reason: TRAILER_SKIP_REASON }));
    return { records: page.data.filter((d) => !isTrailerDevice(d)).map((d) => mapDevice(d, geotabCtx)), skipped: [...page.skipped, ...trailers] };
  },
  'geotab/user': (body: unknown): Read => {
    const page = parseGeotabRows(userSchema, geotabRows(body), 'geotab:GetFeed:User');
    return { records: page.data.flatMap((u) => mapUser(u, geotabCtx) ?? []), skipped: page.skipped };
  },
  'geotab/trip': (body: unknown): Read => {
    const page = parseGeotabRows(tripSchema, geotabRows(body), 'geotab:Get:Trip');
    const skipped = [...page.skipped];
    return { records: mapTrips(page.data, geotabCtx, new Map(), (r) => skipped.push(r)), skipped };
  },
  'geotab/log-record': (body: unknown): Read => {
    const page = parseGeotabRows(logRecordSchema, geotabRows(body), 'geotab:GetFeed:LogRecord');
    return { records: page.data.flatMap((r) => logRecordObservations(r, ALL_METRICS, FETCHED)), skipped: page.skipped };
  },
  /** FaultData without Diagnostic/FailureMode lookups: the diagnostic id stands in for the code. */
  'geotab/fault-data': (body: unknown): Read => {
    const page = parseGeotabRows(faultDataSchema, geotabRows(body), 'geotab:GetFeed:FaultData');
    return { records: page.data.flatMap((f) => mapFault(f, { diagnostics: new Map(), failureModes: new Map() }, geotabCtx) ?? []), skipped: page.skipped };
  },
  'motive/driving-periods': (body: unknown): Read => {
    const page = motive.parseMotiveList(motive.drivingPeriodsEnvelope, body, '/v1/driving_periods');
    return { records: page.items.map((dp) => mapDrivingPeriod(dp, { fetchedAt: FETCHED })), skipped: page.skipped };
  },
  'motive/vehicles': (body: unknown): Read => {
    const page = motive.parseMotiveList(motive.vehiclesEnvelope, body, '/v1/vehicles');
    return { records: page.items.map((v) => mapMotiveVehicle(v, FETCHED)), skipped: page.skipped };
  },
  /** Current locations, read as the adapter asks for them (`X-Metric-Units: true`: km and km/h). */
  'motive/vehicle-locations': (body: unknown): Read => {
    const page = motive.parseMotiveList(motive.vehicleLocationsEnvelope, body, '/v1/vehicle_locations');
    const point = (v: (typeof page.items)[number]) => (v.current_location ? mapLocationPoint(v.current_location, { vehicleSourceId: String(v.id), mode: 'metric', metrics: ALL_METRICS, fetchedAt: FETCHED }) : []);
    return { records: page.items.flatMap(point), skipped: page.skipped };
  },
  'motive/vehicle-locations-v3': (body: unknown): Read => {
    const page = motive.parseMotiveList(motive.historyEnvelope, body, '/v3/vehicle_locations/53');
    return { records: page.items.flatMap((p) => mapLocationPoint(p, { vehicleSourceId: '53', mode: 'metric', metrics: ALL_METRICS, fetchedAt: FETCHED })), skipped: page.skipped };
  },
  'motive/users': (body: unknown): Read => {
    const page = motive.parseMotiveList(motive.usersEnvelope, body, '/v1/users');
    return { records: page.items.map((u) => mapMotiveDriver(u, { kind: 'index', byUser: new Map() }, FETCHED)), skipped: page.skipped };
  },
  'motive/groups': (body: unknown): Read => {
    const page = motive.parseMotiveList(motive.groupsEnvelope, body, '/v1/groups');
    return { records: page.items.map((g) => mapMotiveGroup(g, FETCHED)), skipped: page.skipped };
  },
  'motive/fault-codes': (body: unknown): Read => {
    const page = motive.parseMotiveList(motive.faultCodesEnvelope, body, '/v1/fault_codes');
    const skipped: SkippedRecord[] = [];
    return { records: buildFaultSnapshots(page.items, { observedAt: FETCHED, fetchedAt: FETCHED, unreadable: page.skipped }, (r) => skipped.push(r)), skipped };
  },
} as const satisfies Record<string, (...bodies: unknown[]) => Read>;

const ok = (status = 'available') => expect.objectContaining({ status });
const cell = (value: unknown, source?: string) => ({ status: 'available', value, ...(source ? { source } : {}) });
const gone = (status: 'missing' | 'invalid' | 'unsupported', reason?: string | RegExp) => ({
  status,
  value: null,
  ...(reason === undefined ? {} : { reason: typeof reason === 'string' ? reason : expect.stringMatching(reason) }),
});

interface Row {
  /** The corpus files read together (the first is the one provenance.json names; a second is joined to it). */
  readonly files: readonly string[];
  readonly read: keyof typeof READ;
  /** toMatchObject on the whole normalized list: same length, each record at least these fields. */
  readonly records: readonly unknown[];
  readonly skipped?: readonly unknown[];
}

const ROWS: readonly Row[] = [
  // ---- Samsara ---------------------------------------------------------------------------------
  {
    files: ['samsara/vehicles/ok/sdk-list-example.json'],
    read: 'samsara/vehicles',
    records: [
      {
        sourceId: '494123',
        name: cell('Fleet Truck #1', 'samsara:vehicles'),
        vin: cell('1GBJ6P1B2HV112765'),
        metadata: {
          make: cell('Ford'),
          model: cell('F150'),
          year: cell(2008),
          licensePlate: cell('6SAM123'),
          serialNumber: cell('GFRV-43N-VGX'),
          groups: cell([{ id: '3914', name: 'East Coast' }]),
          createdAt: cell('1985-01-04T16:06:40.000Z'),
          updatedAt: cell('1996-05-08T14:10:51.000Z'),
          status: gone('unsupported'),
        },
      },
    ],
  },
  {
    // Sparse live records (id, name and times only) stay vehicles with every absent cell missing.
    files: ['samsara/vehicles/ok/live-capture-page.json'],
    read: 'samsara/vehicles',
    records: [
      { sourceId: '212000000000001', name: cell('GSYN-DEF-001'), vin: gone('missing'), metadata: { make: gone('missing'), year: gone('missing'), groups: gone('missing'), createdAt: cell('2019-04-25T22:37:29.000Z') } },
      { sourceId: '212000000000002' },
      { sourceId: '212000000000003' },
      { sourceId: '278000000000001', vin: cell('4SYNTHV1N00000014'), metadata: { make: cell('FORD'), model: cell('F-550'), year: cell(2013), serialNumber: cell('GSYN-AAA-001'), groups: cell([{ id: '3000001', name: 'Unit Group - 01' }]) } },
      { sourceId: '281000000000001', metadata: { make: cell('KENWORTH') } },
      { sourceId: expect.any(String) },
    ],
  },
  {
    // Samsara's own example phone is a national number: ambiguous without the account's country.
    files: ['samsara/drivers/ok/sdk-list-example.json'],
    read: 'samsara/drivers',
    records: [
      {
        sourceId: '123',
        status: cell('active'),
        fields: {
          displayName: cell('Susan Jones'),
          firstName: gone('unsupported'),
          email: cell('susan.jones@example.com'),
          phone: gone('invalid', PHONE_REASONS.national),
          username: cell('SusanJones'),
          licenseNumber: cell('E1234567'),
          licenseState: cell('CA'),
          createdAt: cell('2019-05-18T20:27:35.000Z'),
          updatedAt: cell('2019-06-13T19:08:25.000Z'),
        },
        groupIds: cell(['3914']),
      },
    ],
  },
  {
    files: ['samsara/drivers/ok/live-capture-page.json'],
    read: 'samsara/drivers',
    records: [
      {
        sourceId: '7100001',
        status: cell('active'),
        fields: { displayName: cell('Driver Example001'), licenseState: cell('TX'), phone: gone('invalid', PHONE_REASONS.notE164), createdAt: cell('2021-06-14T18:22:05.114Z'), updatedAt: cell('2026-04-30T16:41:12.907Z') },
        groupIds: cell(['3000001']),
      },
      { sourceId: '7100002', status: cell('active'), fields: { displayName: cell('Driver Example002') } },
    ],
  },
  {
    files: ['samsara/tags/ok/sdk-list-example.json'],
    read: 'samsara/tags',
    records: [{ sourceId: '342417', name: cell('California'), description: gone('unsupported'), parentSourceId: '4815' }],
  },
  {
    // Odometer history in metres as sent; the millisecond times are kept.
    files: ['samsara/stats-history/ok/census-odometer-page.json'],
    read: 'samsara/stats-history',
    records: [
      { vehicleSourceId: '281474980000021', metric: 'odometer', value: { meters: 152000345 }, observedAt: '2026-01-01T12:00:07.400Z', source: 'samsara:obdOdometerMeters' },
      { vehicleSourceId: '281474980000021', metric: 'odometer', value: { meters: 152018892 }, observedAt: '2026-01-01T12:20:09.150Z' },
      { vehicleSourceId: '281474980000021', metric: 'odometer', value: { meters: 152047204 }, observedAt: '2026-01-01T12:59:41.600Z' },
      { vehicleSourceId: '281474980000022', metric: 'odometer', value: { meters: 3552000 }, observedAt: '2026-01-01T12:15:30.800Z' },
    ],
  },
  {
    // GPS history: mph → m/s with its conversion; heading in degrees.
    files: ['samsara/stats-history/ok/census-gps-page.json'],
    read: 'samsara/stats-history',
    records: expect.arrayContaining([
      { provider: 'samsara', vehicleSourceId: '281474980000011', metric: 'location', value: { latitude: 33.1001, longitude: -96.1001 }, observedAt: '2026-01-01T12:00:05.100Z', source: expect.any(String), fetchedAt: FETCHED },
      expect.objectContaining({ vehicleSourceId: '281474980000011', metric: 'speed', value: { value: expect.closeTo(26.107, 3) }, source: 'samsara:gps.speedMilesPerHour' }), // 58.4 mph
      expect.objectContaining({ vehicleSourceId: '281474980000011', metric: 'heading', value: { value: 270 } }),
      expect.objectContaining({ vehicleSourceId: '281474980000012', metric: 'speed', value: { value: expect.closeTo(18.642, 3) } }),
    ]) as unknown as readonly unknown[],
  },
  {
    // Samsara's own example values: mph → m/s, mV → V, OBD odometer and engine seconds preferred;
    // its example latitude 122.142 is out of range, so no location is emitted (never clamped).
    files: ['samsara/stats-snapshot/ok/api-definition-example.json'],
    read: 'samsara/stats-snapshot (latest)',
    records: [
      { vehicleSourceId: '112', metric: 'speed', value: { value: expect.closeTo(21.592, 3) }, observedAt: '2020-01-27T07:06:25.000Z', source: 'samsara:gps.speedMilesPerHour' }, // 48.3 mph
      { metric: 'heading', value: { value: 120 } },
      { metric: 'odometer', value: { meters: 14_010_293 }, source: 'samsara:obdOdometerMeters' },
      { metric: 'engineHours', value: { seconds: 9_723_103 }, source: 'samsara:obdEngineSeconds' },
      { metric: 'fuelPercent', value: { value: 54 } },
      { metric: 'batteryVoltage', value: { value: 7.991 }, source: 'samsara:batteryMilliVolts' },
      { metric: 'engineState', value: { state: 'on' } },
    ],
  },
  {
    // The same example's faultCodes: J1939 SPN/FMI and each OBD-II list (confirmed, pending, permanent) keyed apart.
    files: ['samsara/stats-snapshot/ok/api-definition-example.json'],
    read: 'samsara/stats-snapshot (faults)',
    records: [
      {
        model: 'complete_snapshot',
        vehicleSourceId: '112',
        observedAt: '2020-01-27T07:06:25.000Z',
        active: [
          { code: 'SPN 3031 FMI 9', faultKey: 'j1939:0:spn3031:fmi9', description: 'System Diagnostic Code #1: Voltage Below Normal' },
          { code: 'P0087', faultKey: 'obdii:0:P0087:confirmed' },
          { code: 'P0087', faultKey: 'obdii:0:P0087:pending' },
          { code: 'P0087', faultKey: 'obdii:0:P0087:permanent' },
        ],
      },
    ],
  },
  {
    // One OEM code without codeIdentifier: that vehicle's snapshot is skipped, the page is used.
    files: ['samsara/stats-snapshot/ok/oem-code-without-identifier.json'],
    read: 'samsara/stats-snapshot (faults)',
    records: [{ vehicleSourceId: '281474976710658', model: 'complete_snapshot', active: [expect.objectContaining({ code: 'CA2387' })] }],
    skipped: [
      { sourceId: '281474976710660', reason: expect.stringMatching(/faultCodes/) },
      { sourceId: '281474976710659', reason: expect.stringMatching(/codeIdentifier/) },
    ],
  },
  {
    // Samsara's published legacy example keeps milliseconds (startMs …398034); the stream side starts on the whole second.
    files: ['samsara/legacy-trips/ok/sdk-v1-trips-example.json', 'samsara/trips-stream/ok/sdk-v1-trips-stream-side.json'],
    read: 'samsara/trips (stream + legacy)',
    records: [
      {
        vehicleSourceId: '122',
        startedAt: '2016-05-10T11:06:38.000Z',
        driverSourceId: '719',
        distanceKm: cell(0.05, 'samsara:v1/fleet/trips.endOdometer-startOdometer'),
        distanceBasis: 'odometer',
        startLocation: cell({ latitude: 29.443702345, longitude: -98.502888123 }),
        endLocation: cell({ latitude: 23.413702345, longitude: -91.502888123 }),
      },
    ],
  },
  {
    files: ['samsara/legacy-trips/ok/millisecond-start.json', 'samsara/trips-stream/ok/whole-second-start.json'],
    read: 'samsara/trips (stream + legacy)',
    records: [{ startedAt: '2026-01-01T00:00:00.000Z', durationMs: 3_645_000, driverSourceId: '7100001', distanceBasis: 'odometer', distanceKm: cell(52) }],
  },
  // ---- Geotab ----------------------------------------------------------------------------------
  {
    // The SDK README's Device: bare-date activeTo "2050-01-01" is open-ended, so the device is active.
    files: ['geotab/device/ok/sdk-readme-bare-dates.json'],
    read: 'geotab/device',
    records: [{ sourceId: 'b1', metadata: { status: cell('active'), activeTo: gone('missing', 'open-ended (far-future activeTo)') } }],
  },
  {
    files: ['geotab/device/ok/trailer-device-type-none.json'],
    read: 'geotab/device',
    records: [],
    skipped: [{ sourceId: expect.any(String), reason: expect.stringMatching(/trailer/) }],
  },
  {
    // Live Device page: a past activeTo (2021) is inactive; VINs and plates as sent; empty licenseState missing;
    // the archived devices' placeholder serial 000-000-0000 is missing, never a serial number.
    files: ['geotab/device/ok/live-capture-page.json'],
    read: 'geotab/device',
    records: [
      {
        sourceId: 'b8E2',
        vin: cell('4SYNTHV1N00000017', 'geotab:Device.vehicleIdentificationNumber'),
        metadata: {
          status: cell('inactive'),
          activeTo: cell('2021-11-05T13:35:43.215Z'),
          licensePlate: cell('0000001'),
          licensePlateRegion: gone('missing'),
          groups: cell([{ id: 'GroupVehicleId' }, { id: 'b44A1' }]),
          serialNumber: gone('missing', /placeholder serial 000-000-0000/),
        },
      },
      { sourceId: 'b8E7', metadata: { status: cell('inactive'), serialNumber: gone('missing', /placeholder serial/) } },
      { sourceId: 'b8F3', metadata: { status: cell('active'), activeTo: gone('missing', 'open-ended (far-future activeTo)'), licensePlateRegion: cell('IN'), serialNumber: cell('G9SYNTH00001') } },
    ],
  },
  {
    // Live Users: only isDriver records become drivers; the 2050 sentinel is active.
    files: ['geotab/user/ok/live-capture-users.json'],
    read: 'geotab/user',
    records: [
      { status: cell('active') },
      { status: cell('active') },
      { status: cell('active') },
      { status: cell('active') },
    ],
  },
  {
    // Live Trips: distance km as sent, TimeSpan with 7 fraction digits → ms, x is longitude.
    files: ['geotab/trip/ok/live-capture-page.json'],
    read: 'geotab/trip',
    records: [
      {
        sourceId: 'b7F3A8210',
        vehicleSourceId: 'b8D9',
        driverSourceId: null,
        startedAt: '2026-07-06T05:42:43.140Z',
        endedAt: '2026-07-06T05:47:27.000Z',
        durationMs: 283_860,
        distanceKm: cell(0.04897735, 'geotab:Trip.distance'),
        distanceBasis: 'provider_reported',
        endLocation: cell({ latitude: 40.0001, longitude: -100.0001 }),
      },
      { sourceId: expect.any(String), startLocation: cell({ latitude: 40.0001, longitude: -100.0001 }, 'geotab:Trip.stopPoint(previous trip)'), durationMs: 82_000, distanceKm: cell(0.119007945) },
      { sourceId: expect.any(String) },
    ],
  },
  {
    // A demo-database Trip whose distance (113,276.75 for 01:27:41) is metres: 77,500 km/h read as km is
    // not a distance — invalid with the reason, reported as skipped; the trip itself is kept.
    files: ['geotab/trip/ok/demo-database-metres-distance.json'],
    read: 'geotab/trip',
    records: [{ sourceId: 'b3440B9', durationMs: 5_261_000, distanceKm: gone('invalid', /more than 300 km\/h/), distanceBasis: null, endLocation: cell({ latitude: 38.9977875, longitude: -0.5577985 }) }],
    skipped: [{ sourceId: 'b3440B9', reason: expect.stringMatching(/113276\.75 km .*served without a distance/) }],
  },
  {
    // A day-prefixed stop duration and a zero-distance trip: a zero distance is a real 0 km.
    files: ['geotab/trip/ok/live-capture-odd-records.json'],
    read: 'geotab/trip',
    records: [
      { sourceId: 'b7F3A8C44', durationMs: 235_000, distanceKm: cell(0.17272343) },
      { distanceKm: cell(0), distanceBasis: 'provider_reported' },
    ],
  },
  {
    // GPS speed is km/h (63 → 17.5 m/s); a speed of 0 is a real reading, emitted.
    files: ['geotab/log-record/ok/census-feed-page.json'],
    read: 'geotab/log-record',
    records: [
      { vehicleSourceId: 'b8E2', metric: 'location', value: { latitude: 40.1000001, longitude: -100.1000001 }, observedAt: '2026-07-14T08:00:01.000Z', source: 'geotab:LogRecord' },
      { vehicleSourceId: 'b8E2', metric: 'speed', value: { value: 17.5 }, source: 'geotab:LogRecord.speed' },
      { vehicleSourceId: 'b8E7', metric: 'location' },
      { vehicleSourceId: 'b8E7', metric: 'speed', value: { value: 0 } },
    ],
  },
  {
    // Both failureMode forms ({id} and the bare "NoFailureModeId"); faultState read as the provider's state.
    files: ['geotab/fault-data/ok/census-feed-page.json'],
    read: 'geotab/fault-data',
    records: [
      { model: 'explicit_records', sourceId: 'b21f201', vehicleSourceId: 'b8A1', faultKey: 'b8A1|DiagnosticEngineOilPressureId|bFA31|ControllerObdPowertrainId', code: 'DiagnosticEngineOilPressureId', providerState: 'Active', dismissedAt: null },
      { sourceId: 'b21f202', vehicleSourceId: 'b8A3', faultKey: 'b8A3|DiagnosticCheckEngineLightId|NoFailureModeId|ControllerObdBodyId', providerState: 'Pending' },
    ],
  },
  {
    // The state's entity id (faultStates.effectiveStatus FaultStatusActiveId, issue 23) is the state Active, as other records say it.
    // mutation: providerState taken verbatim (geotab.faults.ts faultStateOf removed) → 'FaultStatusActiveId' and this row fails.
    files: ['geotab/fault-data/ok/effective-status-id.json'],
    read: 'geotab/fault-data',
    records: [
      { model: 'explicit_records', sourceId: 'b21f301', vehicleSourceId: 'b8B1', providerState: 'Active' },
      { sourceId: 'b21f302', providerState: 'Pending' },
    ],
  },
  // ---- Motive ----------------------------------------------------------------------------------
  {
    // metric_units false on every vehicle, *_kilometers still km: 67.885 km beside "distance": "42.2 mi".
    files: ['motive/driving-periods/ok/live-capture-metric-units-false.json'],
    read: 'motive/driving-periods',
    records: [
      { kind: 'trip', trip: { sourceId: '4000000009', distanceKm: { status: 'available', value: expect.closeTo(67.885, 3) }, distanceBasis: 'odometer', startLocation: ok(), endLocation: ok() } },
      { kind: 'trip', trip: { distanceKm: { status: 'available', value: expect.closeTo(4.624, 3) } } },
      { kind: 'skipped', reason: 'ongoing' },
    ],
  },
  {
    files: ['motive/users/ok/phone-country-code-apart.json'],
    read: 'motive/users',
    // "555-0100" + "+1" is completed to "+15550100", still too short for E.164 (the project's invented numbers): invalid, naming the code.
    records: [
      { sourceId: '800001', fields: { phone: gone('invalid', 'phone: not an E.164 phone number (phone_country_code included)'), licenseState: cell('TX') }, status: cell('active') },
      { sourceId: '800004', fields: { phone: gone('missing', 'phone: not reported') }, status: cell('inactive') },
    ],
  },
  {
    files: ['motive/groups/ok/census-page.json'],
    read: 'motive/groups',
    records: [
      { sourceId: '90001', name: cell('Synthetic Fleet'), parentSourceId: null, description: gone('unsupported') },
      { sourceId: '90002', parentSourceId: '90001' },
      { sourceId: '90003', parentSourceId: '90001' },
    ],
  },
  {
    // KeepTruckin's (Motive's former name) published docs: metric_units false, fuel type and plate as sent.
    files: ['motive/vehicles/ok/legacy-docs-example.json'],
    read: 'motive/vehicles',
    records: [
      {
        sourceId: '4',
        name: cell('Demo Vehicle'),
        vin: cell('WP0AB2966NS458669'),
        metadata: {
          year: cell(2016),
          make: cell('Demo'),
          status: cell('active'),
          fuelType: cell('diesel'),
          sourceFuelType: cell('diesel'),
          licensePlate: cell('5M37250'),
          licensePlateRegion: cell('CA'),
          serialNumber: cell('000074802542164638439715893965'),
          createdAt: gone('missing', 'created_at: not reported'),
        },
      },
    ],
  },
  {
    // The example the issue names: odometer 456.22 and speed 65.1 are km and km/h as the adapter asks
    // for them (X-Metric-Units: true), never switched to miles by a vehicle's metric_units.
    files: ['motive/vehicle-locations/ok/legacy-docs-example.json'],
    read: 'motive/vehicle-locations',
    records: [
      { vehicleSourceId: '23', metric: 'location', value: { latitude: 47.565647, longitude: -122.276261 }, observedAt: '2016-03-17T12:12:07.000Z' },
      { metric: 'odometer', value: { meters: 456_220 }, source: 'motive:odometer', units: { source: 'kilometers', normalized: 'meters', factor: 1000 } },
      { metric: 'engineHours', value: { seconds: 444_816 }, units: { source: 'hours', normalized: 'seconds', factor: 3600 } },
      { metric: 'speed', value: { value: expect.closeTo(18.083, 3) } },
      { metric: 'heading', value: { value: 90 } },
      { metric: 'engineState', value: { state: 'on' }, source: 'motive:type' },
    ],
  },
  {
    // Location history (the same {vehicle_locations: [{vehicle_location}]} envelope v3 answers): engine_start at 0 km/h is idle.
    files: ['motive/vehicle-locations-v3/ok/legacy-docs-history-example.json'],
    read: 'motive/vehicle-locations-v3',
    records: [
      { metric: 'location', observedAt: '2017-02-14T15:21:45.000Z' },
      { metric: 'odometer', value: { meters: expect.closeTo(904_357.366, 2) } },
      { metric: 'engineHours', value: { seconds: expect.closeTo(1_305_350.2, 1) } },
      { metric: 'speed', value: { value: 0 } },
      { metric: 'heading', value: { value: 98.88 } },
      { metric: 'engineState', value: { state: 'idle' } },
      { metric: 'location', observedAt: '2017-02-14T15:21:46.000Z' },
      { metric: 'odometer', value: { meters: expect.closeTo(904_358.488, 2) } },
      { metric: 'engineHours' },
      { metric: 'speed', value: { value: expect.closeTo(1.389, 3) } },
      { metric: 'heading', value: { value: 148.85 } },
      { metric: 'engineState', value: { state: 'on' } },
    ],
  },
  {
    // A 2016 user: phone and license null → missing; created_at without and updated_at with microseconds, both normalized.
    files: ['motive/users/ok/legacy-docs-example.json'],
    read: 'motive/users',
    records: [
      {
        sourceId: '1',
        status: cell('active'),
        fields: {
          firstName: cell('2'),
          lastName: cell('Fo2'),
          email: cell('2c3e42cdaf57@keeptruckin.com'),
          phone: gone('missing', 'phone: not reported'),
          licenseState: gone('missing'),
          createdAt: cell('2016-02-24T06:26:00.000Z'),
          updatedAt: cell('2016-02-24T06:26:00.000Z'),
        },
      },
    ],
  },
  {
    // 2016 groups had no parent_id: each is a root.
    files: ['motive/groups/ok/legacy-docs-example.json'],
    read: 'motive/groups',
    records: [
      { sourceId: '6', name: cell('Garden, Electronics & Baby'), parentSourceId: null },
      { sourceId: '5', name: cell('music'), parentSourceId: null },
    ],
  },
  {
    // Motive's own guide example: a closed code leaves its vehicle an empty (complete) snapshot.
    files: ['motive/fault-codes/ok/guide-example.json'],
    read: 'motive/fault-codes',
    records: [{ model: 'complete_snapshot', vehicleSourceId: '126207', active: [] }],
  },
];

describe('real-payload corpus → adapter schema and mapper', () => {
  it.each(ROWS.map((row) => [row.files.join(' + '), row] as const))('%s', (_name, row) => {
    const read = READ[row.read] as (...bodies: unknown[]) => Read;
    const result = read(...row.files.map(json));
    expect(result.records).toMatchObject(row.records as unknown[]);
    expect(result.skipped).toEqual(row.skipped ?? []);
  });

  it('every file in provenance.json has a row, and every file a row reads is in provenance.json', () => {
    const listed = Object.keys(manifest).filter((file) => file !== '$comment');
    const covered = new Set(ROWS.flatMap((r) => r.files));
    expect(listed.filter((file) => !covered.has(file))).toEqual([]);
    expect([...covered].filter((file) => !listed.includes(file))).toEqual([]);
  });
});

