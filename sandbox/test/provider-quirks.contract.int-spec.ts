// The `provider_quirk` scenario: each simulator serves the awkward shapes real payloads take
// (docs/providers.md "Provider fidelity") only when the account's scenario switches them on, and
// the adapter reads them over real HTTP — one odd record never costs the others on its page.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { VehicleRecord } from '@switchyard/domain';
import type { Page, SkippedRecord } from '@switchyard/providers';
import type { Scenario } from '../src/common/scenario.types.js';
import { GEOTAB_ARCHIVED_COUNT, GEOTAB_PLACEHOLDER_SERIAL, GEOTAB_TRAILER_COUNT, geotabArchivedId, geotabDeviceId, geotabTrailerId } from '../src/geotab/index.js';
import { samsaraVehicleId } from '../src/samsara/index.js';
import { DAY, iso, rpc, startGeotabHarness, type GeotabHarness } from './geotab-contract.support.js';
import { drain as drainMotive, key, startMotiveHarness, vehicleId as motiveVehicleId, type MotiveHarness } from './motive-harness.js';
import { drain, startSamsaraHarness, TOKEN, type SamsaraHarness } from './samsara-harness.js';

/** Every page of a listing: its items and its skipped records (bounded, so a cursor bug fails instead of looping). */
async function everyPage<T>(read: (cursor: string | null) => Promise<Page<T>>): Promise<{ items: T[]; skipped: SkippedRecord[] }> {
  const items: T[] = [];
  const skipped: SkippedRecord[] = [];
  let cursor: string | null = null;
  for (let n = 0; n < 100; n++) {
    const page: Page<T> = await read(cursor);
    items.push(...page.items);
    skipped.push(...(page.skipped ?? []));
    cursor = page.next;
    if (cursor === null) return { items, skipped };
  }
  throw new Error('listing did not end');
}

const byId = (records: readonly VehicleRecord[], id: string): VehicleRecord => {
  const found = records.find((r) => r.sourceId === id);
  if (!found) throw new Error(`no vehicle ${id}`);
  return found;
};

describe('Samsara quirks', () => {
  let h: SamsaraHarness;
  beforeAll(async () => {
    h = await startSamsaraHarness(8);
  });
  afterAll(() => h.close());
  afterEach(() => h.sim.clearScenarios(TOKEN));
  const given = (...scenarios: Scenario[]) => h.sim.setScenarios(TOKEN, scenarios);
  const get = async (path: string) => {
    const res = await fetch(`${h.sim.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    return { status: res.status, body: (await res.json()) as { data?: Record<string, unknown>[]; message?: string } };
  };
  const active = () => h.fleet.vehicles().filter((v) => v.active);

  it('sparse vehicles: only the chosen vehicles lose everything but id and times; the adapter lists them with missing cells', async () => {
    const [first, second] = active();
    given({ kind: 'provider_quirk', quirk: 'samsara_sparse_vehicles', vehicleIndexes: [first!.index] });
    const raw = (await get('/fleet/vehicles?limit=512')).body.data!;
    expect(Object.keys(raw.find((v) => v['id'] === samsaraVehicleId(first!.index))!).sort()).toEqual(['createdAtTime', 'id', 'updatedAtTime']);
    expect(raw.find((v) => v['id'] === samsaraVehicleId(second!.index))).toHaveProperty('name', second!.name);

    const { items } = await drain((c) => h.adapter().vehicles(c));
    expect(items.map((v) => v.sourceId).sort()).toEqual(active().map((v) => samsaraVehicleId(v.index)).sort());
    const sparse = byId(items, samsaraVehicleId(first!.index));
    expect(sparse.name.status).toBe('missing');
    expect(sparse.vin.status).toBe('missing');
    expect(sparse.metadata.year.status).toBe('missing');
    expect(byId(items, samsaraVehicleId(second!.index)).name).toMatchObject({ status: 'available', value: second!.name });
  });

  it('OEM code without codeIdentifier: that vehicle\'s snapshot is skipped with a reason, every other vehicle\'s snapshot is returned', async () => {
    const odd = active()[1]!;
    given({ kind: 'provider_quirk', quirk: 'samsara_oem_code_without_identifier', vehicleIndexes: [odd.index] });
    const raw = (await get(`/fleet/vehicles/stats?types=faultCodes&vehicleIds=${samsaraVehicleId(odd.index)}`)).body.data!;
    const codes = (raw[0]!['faultCodes'] as { oem: { diagnosticTroubleCodes: Record<string, unknown>[] } }).oem.diagnosticTroubleCodes;
    expect(codes[0]).not.toHaveProperty('codeIdentifier');

    const ids = active().map((v) => samsaraVehicleId(v.index));
    const { items, skipped } = await everyPage((cursor) => h.adapter().faults({ vehicleSourceIds: ids, cursor }));
    expect(skipped.map((s) => s.sourceId)).toEqual([samsaraVehicleId(odd.index)]);
    expect(skipped[0]!.reason.length).toBeGreaterThan(0);
    const snapshots = items.map((s) => s.vehicleSourceId).sort();
    expect(snapshots).toEqual(ids.filter((id) => id !== samsaraVehicleId(odd.index)).sort());
  });

  it('national phones: drivers\' phones come without the country code', async () => {
    const plain = (await get('/fleet/drivers?limit=512')).body.data!.flatMap((d) => (typeof d['phone'] === 'string' ? [d['phone']] : []));
    expect(plain.length).toBeGreaterThan(0);
    for (const phone of plain) expect(phone).toMatch(/^\+1\d{10}$/);
    given({ kind: 'provider_quirk', quirk: 'samsara_national_phones' });
    const national = (await get('/fleet/drivers?limit=512')).body.data!.flatMap((d) => (typeof d['phone'] === 'string' ? [d['phone']] : []));
    expect(national).toEqual(plain.map((p) => p.slice(2)));
  });

  it('trips stream without ids: 404 under the quirk, served with ids; the adapter asks with ids', async () => {
    const from = new Date(h.clock.now() - 86_400_000).toISOString();
    const path = `/trips/stream?startTime=${from}&queryBy=tripStartTime&completionStatus=completed`;
    expect((await get(path)).status).toBe(200);
    given({ kind: 'provider_quirk', quirk: 'samsara_trip_stream_ids_required' });
    expect(await get(path)).toMatchObject({ status: 404, body: { message: 'ids is required' } });
    const id = samsaraVehicleId(active()[0]!.index);
    expect((await get(`${path}&ids=${id}`)).status).toBe(200);
    const trips = await drain((cursor) => h.adapter().trips({ from, to: new Date(h.clock.now()).toISOString(), vehicleSourceIds: [id], cursor }));
    for (const t of trips.items) expect(t.vehicleSourceId).toBe(id);
  });

  it('the control API refuses an unknown quirk (400), so a typo never silently turns a quirk off', async () => {
    const res = await fetch(`${h.sim.url}/_sim/accounts/${TOKEN}/scenarios`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify([{ kind: 'provider_quirk', quirk: 'samsara_sparse_vehicle' }]) });
    expect(res.status).toBe(400);
  });
});

describe('Geotab quirks', () => {
  const DB = 'quirks';
  let h: GeotabHarness;
  beforeAll(async () => {
    h = await startGeotabHarness([DB], 'geotab-quirks');
  });
  afterAll(() => h.close());
  afterEach(() => h.sim.clearScenarios(DB));
  const given = (...scenarios: Scenario[]) => h.sim.setScenarios(DB, scenarios);
  const roster = () => everyPage((cursor) => h.adapter(DB).vehicles(cursor));

  it('trailers: Devices with deviceType "None" in GroupTrailerId appear in the feed; the adapter skips them with a reason and lists every vehicle', async () => {
    const fleetIds = h.fleet.vehicles().map((v) => geotabDeviceId(v.index)).sort();
    expect((await roster()).skipped).toEqual([]);
    given({ kind: 'provider_quirk', quirk: 'geotab_trailers' });
    const auth = await rpc(h.sim.url, 'Authenticate', { database: DB, userName: h.account(DB).userName, password: h.account(DB).password });
    const credentials = (auth.body.result as { credentials: unknown }).credentials;
    const devices = (await rpc(h.sim.url, 'Get', { typeName: 'Device', credentials })).body.result as Record<string, unknown>[];
    const trailers = devices.filter((d) => d['deviceType'] === 'None');
    expect(trailers).toHaveLength(GEOTAB_TRAILER_COUNT);
    for (const t of trailers) expect(t).toMatchObject({ productId: -1, engineVehicleIdentificationNumber: '?', groups: [{ id: 'GroupTrailerId' }] });

    const { items, skipped } = await roster();
    expect(items.map((v) => v.sourceId).sort()).toEqual(fleetIds);
    expect(skipped.map((s) => s.sourceId).sort()).toEqual(Array.from({ length: GEOTAB_TRAILER_COUNT }, (_, n) => geotabTrailerId(n)).sort());
  });

  it('bare dates: activeTo "2050-01-01" is open-ended (active), a past bare date still ends the device', async () => {
    given({ kind: 'provider_quirk', quirk: 'geotab_bare_dates' });
    const { items } = await roster();
    expect(items.map((v) => v.sourceId).sort()).toEqual(h.fleet.vehicles().map((v) => geotabDeviceId(v.index)).sort());
    for (const v of h.fleet.vehicles()) {
      const record = byId(items, geotabDeviceId(v.index));
      expect(record.metadata.status).toMatchObject({ status: 'available', value: v.active ? 'active' : 'inactive' });
      if (v.active) expect(record.metadata.activeTo.status).toBe('missing');
      expect(record.metadata.activeFrom).toMatchObject({ status: 'available', value: `${new Date(v.createdAtMs).toISOString().slice(0, 10)}T00:00:00.000Z` });
    }
    expect(h.fleet.vehicles().some((v) => !v.active)).toBe(true);
  });

  it('archived devices: the placeholder serial 000-000-0000 on an inactive device is a missing serial; fleet serials are kept', async () => {
    given({ kind: 'provider_quirk', quirk: 'geotab_archived_devices' });
    const { items } = await roster();
    const archivedIds = Array.from({ length: GEOTAB_ARCHIVED_COUNT }, (_, n) => geotabArchivedId(n));
    expect(items.map((v) => v.sourceId).sort()).toEqual([...h.fleet.vehicles().map((v) => geotabDeviceId(v.index)), ...archivedIds].sort());
    for (const id of archivedIds) {
      const archived = byId(items, id);
      expect(archived.metadata.status).toMatchObject({ status: 'available', value: 'inactive' });
      expect(archived.metadata.serialNumber).toMatchObject({ status: 'missing', value: null, reason: expect.stringContaining(GEOTAB_PLACEHOLDER_SERIAL) });
    }
    const v = h.fleet.vehicles()[0]!;
    expect(byId(items, geotabDeviceId(v.index)).metadata.serialNumber).toMatchObject({ status: 'available', value: h.fleet.vehicle(v.index).serialNumber });
  });

  it('trip distance in metres: the chosen vehicle\'s implausible distances are served invalid and reported skipped; other vehicles keep theirs', async () => {
    const [odd, other] = h.fleet.vehicles().filter((v) => v.active);
    given({ kind: 'provider_quirk', quirk: 'geotab_trip_distance_in_metres', vehicleIndexes: [odd!.index] });
    const now = h.clock.now();
    const trips = (index: number) => everyPage((cursor) => h.adapter(DB).trips({ from: iso(now - 2 * DAY), to: iso(now), vehicleSourceIds: [geotabDeviceId(index)], cursor }));
    const simTrip = (index: number, startedAt: string) => h.fleet.tripsBetween(index, now - 3 * DAY, now, now).find((t) => t.startMs === Date.parse(startedAt))!;
    const read = await trips(odd!.index);
    // The fleet's metres read as km: flagged exactly when they imply more than 300 km/h over the driving time.
    const flagged = read.items.filter((t) => simTrip(odd!.index, t.startedAt).distanceM * 3_600_000 > 300 * t.durationMs);
    expect(flagged.length).toBeGreaterThan(0);
    for (const t of flagged) expect(t.distanceKm).toMatchObject({ status: 'invalid', value: null });
    expect(read.skipped.map((r) => r.sourceId).sort()).toEqual(flagged.map((t) => t.sourceId).sort());
    const plain = await trips(other!.index);
    expect(plain.skipped).toEqual([]);
    expect(plain.items.length).toBeGreaterThan(0);
    for (const t of plain.items) expect(t.distanceKm.value).toBeCloseTo(simTrip(other!.index, t.startedAt).distanceM / 1000, 6);
  });

  it('unreadable engine VIN: "?" without a typed-in VIN is a missing VIN, not an invalid one', async () => {
    const v = h.fleet.vehicles().find((x) => x.vin !== null)!;
    given({ kind: 'provider_quirk', quirk: 'geotab_unreadable_engine_vin', vehicleIndexes: [v.index] });
    const { items } = await roster();
    expect(byId(items, geotabDeviceId(v.index)).vin.status).toBe('missing');
    const other = h.fleet.vehicles().find((x) => x.vin !== null && x.index !== v.index)!;
    expect(byId(items, geotabDeviceId(other.index)).vin).toMatchObject({ status: 'available', value: other.vin });
  });
});

describe('Motive quirks', () => {
  const KEY = key('directory');
  let h: MotiveHarness;
  beforeAll(async () => {
    h = await startMotiveHarness(6);
  });
  afterAll(() => h.close());
  afterEach(() => h.sim.clearScenarios(KEY));

  it('unfilled vehicles: year "0" and empty make/model are missing, the other vehicles keep theirs', async () => {
    h.sim.setScenarios(KEY, [{ kind: 'provider_quirk', quirk: 'motive_unfilled_vehicles', vehicleIndexes: [0] }]);
    const raw = (await (await fetch(`${h.sim.url}/v1/vehicles?per_page=25`, { headers: { 'x-api-key': KEY } })).json()) as { vehicles: { vehicle: Record<string, unknown> }[] };
    expect(raw.vehicles.find((w) => String(w.vehicle['id']) === motiveVehicleId(0))!.vehicle).toMatchObject({ year: '0', make: '', model: '' });
    const { items } = await drainMotive((c) => h.adapter(KEY).vehicles(c));
    const unfilled = byId(items, motiveVehicleId(0));
    expect(unfilled.metadata.year.status).toBe('missing');
    expect(unfilled.metadata.make.status).toBe('missing');
    expect(byId(items, motiveVehicleId(1)).metadata.year).toMatchObject({ status: 'available', value: h.fleet.vehicle(1).year });
  });
});
