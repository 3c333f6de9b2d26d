/**
 * Provider fidelity end to end (issue 17): each provider's simulator (own process, fixed clock)
 * serves the awkward shapes real payloads take — switched on through its scenario controls
 * (`provider_quirk`, docs/providers.md) — and the whole pipeline (public sync and an internal run →
 * collectors → JetStream → directory / fault-feed → receipts) collects them; the results are read
 * back through `/v1` with every response validated against the OpenAPI document, and compared with
 * the simulators' fleet model (the same seed, built here), never with hard-coded values.
 *
 * - Samsara: a sparse vehicle (id and times only) is listed with its id as name and no VIN; a
 *   vehicle whose faultCodes carry an OEM code without `codeIdentifier` is skipped (logged with
 *   the run's correlation id) while every other vehicle's snapshot is stored; every completed trip
 *   has its distance and, where the fleet had one, its driver (stream whole seconds joined to
 *   legacy milliseconds); `/trips/stream` answers 404 without `ids`, and trips still arrive; a
 *   national phone is reported invalid, never given a guessed country code.
 * - Motive: trip distance is the kilometre odometer difference although every vehicle's
 *   `metric_units` is a display preference (not × 1.609); `year: "0"` is a missing year; the
 *   split phone (`555-…` + `phone_country_code: "+1"`) reads as E.164.
 * - Geotab: bare-date `activeTo` is open-ended (status active, activeTo missing), not invalid;
 *   trailers (`deviceType: "None"`) are not vehicles even when their ids are approved (logged as
 *   skipped); an engine VIN of `"?"` is a missing VIN; an archived device's placeholder serial
 *   `000-000-0000` is a missing serial; a vehicle's trips whose `distance` is metres (77,500 km/h read
 *   as km) are served without a distance and logged as skipped, every other trip keeps its distance.
 * Every sync and run completes: no page fails because one record is odd.
 *
 * Mutations tried (each fails this suite): the Samsara join on exact milliseconds (findLegacy with
 * `l.startMs === streamStartMs`) → trips lose distance and driver; Motive `*_kilometers` delta
 * × 1.609344 → distances off; Geotab `isTrailerDevice` never true → trailers listed (and the
 * roster no longer matches); Geotab bare dates not accepted (BARE_DATE never matching) → activeTo
 * and status not as expected; collectors not handing `Page.skipped` on → the skip-log assertions fail;
 * Geotab serialField → textField → the archived serial is served as 000-000-0000; mapTrips without the
 * checkTripDistance test → the metres trips are served with 1000× their distance.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { vehicleId, type Provider } from '@switchyard/domain';
import { createFleet, GEOTAB_ARCHIVED_COUNT, GEOTAB_TRAILER_COUNT, geotabArchivedId, geotabDeviceId, geotabTrailerId, MOTIVE_IDS, samsaraDriverId, samsaraVehicleId, type Fleet, type Scenario, type SimTrip } from '@switchyard/sandbox';
import { pollUntil, spawnSimulator, type NodeProcess } from '@switchyard/testing';
import { SCHEDULED_ORIGIN, SyncLifecycleService, type InternalRun, type SyncPurpose } from '@switchyard/sync-orchestrator';
import { PipelineStack, type PipelineConnection, type PublicSync } from './pipeline-stack.js';

const VEHICLES = 5;
const SEED = 'provider-fidelity';
/** The simulated clock stands still one day ago (on the hour); collection starts two days before it. */
const SIM_START = Math.floor((Date.now() - 86_400_000) / 3_600_000) * 3_600_000;
const START_FROM = SIM_START - 2 * 86_400_000;

const samsaraToken = `samsara_api_${randomBytes(20).toString('hex')}`;
const motiveKey = `motive_${randomBytes(16).toString('hex')}`;
const geotab = { database: `db_${randomBytes(4).toString('hex')}`, userName: 'fidelity@switchyard.example', password: randomBytes(12).toString('hex') };

/** The fleet every simulator renders (same seed and size as their SIM_ variables). */
const fleet: Fleet = createFleet({ seed: SEED, vehicles: VEHICLES });
const active = fleet.vehicles().filter((v) => v.active);
const withVin = fleet.vehicles().filter((v) => v.vin !== null);

/** Samsara: vehicle A sparse, vehicle B's faultCodes with an OEM code without identifier. */
const SPARSE = active[0]!.index;
const OEM = active[1]!.index;
/** Geotab: a VIN-bearing vehicle whose engine VIN reads "?"; a vehicle whose trip distances are metres. */
const UNREADABLE_VIN = withVin[0]!.index;
const METRES_TRIPS = active[1]!.index;
const ARCHIVED = Array.from({ length: GEOTAB_ARCHIVED_COUNT }, (_, n) => geotabArchivedId(n));
/** Motive: a vehicle nobody filled in (year "0"). */
const UNFILLED = 0;

const QUIRKS: Record<Provider, Scenario[]> = {
  samsara: [
    { kind: 'provider_quirk', quirk: 'samsara_sparse_vehicles', vehicleIndexes: [SPARSE] },
    { kind: 'provider_quirk', quirk: 'samsara_oem_code_without_identifier', vehicleIndexes: [OEM] },
    { kind: 'provider_quirk', quirk: 'samsara_national_phones' },
    { kind: 'provider_quirk', quirk: 'samsara_trip_stream_ids_required' },
  ],
  motive: [{ kind: 'provider_quirk', quirk: 'motive_unfilled_vehicles', vehicleIndexes: [UNFILLED] }],
  geotab: [
    { kind: 'provider_quirk', quirk: 'geotab_bare_dates' },
    { kind: 'provider_quirk', quirk: 'geotab_trailers' },
    { kind: 'provider_quirk', quirk: 'geotab_unreadable_engine_vin', vehicleIndexes: [UNREADABLE_VIN] },
    { kind: 'provider_quirk', quirk: 'geotab_archived_devices' },
    { kind: 'provider_quirk', quirk: 'geotab_trip_distance_in_metres', vehicleIndexes: [METRES_TRIPS] },
  ],
};

const SOURCE_IDS: Record<Provider, (index: number) => string> = {
  samsara: samsaraVehicleId,
  motive: (index) => String(MOTIVE_IDS.vehicle(index)),
  geotab: geotabDeviceId,
};

/** Public purposes each provider supports (Motive reports no vehicle → group memberships). */
const PUBLIC_PURPOSES: Record<Provider, { vehicles: boolean; groupMemberships: boolean; trips: boolean }> = {
  samsara: { vehicles: true, groupMemberships: true, trips: true },
  motive: { vehicles: true, groupMemberships: false, trips: true },
  geotab: { vehicles: true, groupMemberships: true, trips: true },
};

const simulators: NodeProcess[] = [];
const urls = {} as Record<Provider, string>;
const accounts: Record<Provider, string> = { samsara: samsaraToken, motive: motiveKey, geotab: geotab.database };
let stack: PipelineStack;
const runs = {} as Record<Provider, { connection: PipelineConnection; sync: PublicSync; internal: InternalRun }>;

async function setQuirks(provider: Provider): Promise<void> {
  const res = await fetch(`${urls[provider]}/_sim/accounts/${encodeURIComponent(accounts[provider])}/scenarios`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(QUIRKS[provider]),
  });
  expect(res.status).toBe(200);
}

/** An internal run (what scheduled collection creates) of `purposes` over the sync's window, to its end. */
async function internalRun(connectionId: string, purposes: SyncPurpose[]): Promise<InternalRun> {
  const lifecycle = stack.orchestrator.app.get(SyncLifecycleService);
  const result = await lifecycle.createInternal({ connectionId, purposes, startFrom: new Date(START_FROM), intervalEnd: new Date(SIM_START), origin: SCHEDULED_ORIGIN });
  if (!result.created) throw new Error(`internal run not created: ${result.reason} ${result.detail}`);
  return pollUntil(
    async () => {
      const run = await lifecycle.getInternal(result.run.id);
      return run?.status === 'completed' || run?.status === 'failed' ? run : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 250, description: `internal run ${result.run.id} settled` },
  );
}

/** Every page of a `/v1` listing (validated), following `next` (`nextCursor` for vehicle assets). */
async function readAll<T>(connection: PipelineConnection, path: string, key: string): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 50; pages++) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await connection.read(`${path}${cursor ? `${sep}cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
    const body = res.body as Record<string, unknown> & { next?: string | null; nextCursor?: string | null };
    items.push(...(body[key] as T[]));
    const next = body.next ?? body.nextCursor;
    if (!next) return items;
    cursor = next;
  }
  throw new Error(`${path} did not end`);
}

/** The fleet's completed trips of a vehicle that start inside the collected window. */
const fleetTrips = (index: number): readonly SimTrip[] => fleet.tripsBetween(index, START_FROM, SIM_START, SIM_START).filter((t) => t.endMs <= SIM_START);
const second = (iso: string | number): number => Math.floor((typeof iso === 'number' ? iso : Date.parse(iso)) / 1000);

interface TripRead {
  sourceId: string;
  startedAt: string;
  vehicle: string | { id: string; sourceId: string };
  driver?: string | { sourceId: string };
  distance?: number;
}
interface DriverRead {
  sourceId: string;
  phone?: string;
  availability: Record<string, string>;
}
interface CellRead {
  status: string;
  value: unknown;
}

/** The /v1 trips of the connection keyed `vehicleIndex|startSecond`. */
async function tripsByKey(provider: Provider): Promise<Map<string, TripRead>> {
  const { connection } = runs[provider];
  const trips = await readAll<TripRead>(connection, `/v1/connections/${connection.connectionId}/trips?limit=100&expand=vehicle,driver`, 'results');
  const indexOfVcl = new Map<string, number>(fleet.vehicles().map((v) => [vehicleId({ connectionId: connection.connectionId, provider, sourceId: SOURCE_IDS[provider](v.index) }), v.index]));
  const indexOfSource = new Map(fleet.vehicles().map((v) => [SOURCE_IDS[provider](v.index), v.index]));
  const byKey = new Map<string, TripRead>();
  for (const t of trips) {
    const index = typeof t.vehicle === 'string' ? indexOfVcl.get(t.vehicle) : indexOfSource.get(t.vehicle.sourceId);
    expect(index).toBeDefined();
    byKey.set(`${index}|${second(t.startedAt)}`, t);
  }
  return byKey;
}

const skipLogs = (): { sourceId: string | null; reason: string; correlationId?: string; syncId?: string }[] =>
  stack.logLines
    .join('')
    .split('\n')
    .filter((line) => line.includes('"provider record skipped"'))
    .map((line) => JSON.parse(line) as { sourceId: string | null; reason: string; correlationId?: string; syncId?: string });

beforeAll(async () => {
  const common = { SIM_VEHICLES: String(VEHICLES), SIM_SEED: SEED, SIM_CLOCK_FACTOR: '0', SIM_START: new Date(SIM_START).toISOString() };
  const env: Record<Provider, Record<string, string>> = {
    samsara: { SAMSARA_API_TOKENS: samsaraToken },
    motive: { MOTIVE_API_KEYS: motiveKey },
    geotab: { GEOTAB_DATABASE: geotab.database, GEOTAB_USERNAME: geotab.userName, GEOTAB_PASSWORD: geotab.password },
  };
  for (const provider of ['samsara', 'motive', 'geotab'] as const) {
    const sim = await spawnSimulator(provider, { ...common, ...env[provider] });
    simulators.push(sim.process);
    urls[provider] = sim.url;
    await setQuirks(provider);
  }
  stack = await PipelineStack.start({ name: 'fidelity', contexts: ['directory', 'fault-feed'], providerBaseUrls: urls, logLevel: 'info' });
  const credentials: Record<Provider, Record<string, string>> = { samsara: { apiToken: samsaraToken }, motive: { apiKey: motiveKey }, geotab };
  for (const provider of ['samsara', 'motive', 'geotab'] as const) {
    // Every fleet vehicle is approved — and Geotab's trailers too, so a trailer taken for a vehicle would be stored and listed, and its archived device.
    const approved = [...fleet.vehicles().map((v) => SOURCE_IDS[provider](v.index)), ...(provider === 'geotab' ? [...Array.from({ length: GEOTAB_TRAILER_COUNT }, (_, n) => geotabTrailerId(n)), ...ARCHIVED] : [])];
    const connection = await stack.connect({
      provider,
      credentials: credentials[provider],
      config: {
        purposes: PUBLIC_PURPOSES[provider],
        approvedVehicleIds: approved,
        selectedSignals: provider === 'samsara' ? ['faults'] : [],
        optIns: { groupInventory: false, vehicleMetadata: true, extendedTelemetry: false },
      },
    });
    const created = await connection.createSync({ startFrom: new Date(START_FROM).toISOString() });
    const sync = await connection.settled(created.id);
    const internal = await internalRun(connection.connectionId, provider === 'samsara' ? ['drivers', 'faults'] : ['drivers']);
    runs[provider] = { connection, sync, internal };
  }
}, 420_000);

afterAll(async () => {
  await stack?.close();
  for (const p of simulators) await p.kill();
});

describe.each(['samsara', 'motive', 'geotab'] as const)('%s: collected from the awkward shapes', (provider) => {
  it('completes the sync and the internal run: no page failed because one record was odd', async () => {
    const { connection, sync, internal } = runs[provider];
    expect(sync).toMatchObject({ status: 'completed', progress: 100 });
    expect(sync.failureReason).toBeUndefined();
    expect(internal.status).toBe('completed');
    for (const u of [...(await connection.units(sync.id)), ...(await connection.units(internal.id))]) expect(u).toMatchObject({ state: 'receipted', error_attempts: 0, last_error_code: null });
    // The quirks were on the whole time.
    const res = await fetch(`${urls[provider]}/_sim/accounts/${encodeURIComponent(accounts[provider])}/scenarios`);
    expect(((await res.json()) as { scenarios: Scenario[] }).scenarios).toEqual(QUIRKS[provider]);
  });
});

describe('Samsara', () => {
  it('lists the sparse vehicle (its id as name, no VIN) beside the full ones', async () => {
    const { connection } = runs.samsara;
    const vehicles = await readAll<{ provider_id: string; name: string; vin: string | null }>(connection, `/v1/connections/${connection.connectionId}/vehicles?limit=50`, 'vehicles');
    expect(vehicles.map((v) => v.provider_id).sort()).toEqual(active.map((v) => samsaraVehicleId(v.index)).sort());
    expect(vehicles.find((v) => v.provider_id === samsaraVehicleId(SPARSE))).toMatchObject({ provider_id: samsaraVehicleId(SPARSE), name: samsaraVehicleId(SPARSE), vin: null });
    for (const v of active.filter((x) => x.index !== SPARSE)) expect(vehicles.find((r) => r.provider_id === samsaraVehicleId(v.index))).toMatchObject({ provider_id: samsaraVehicleId(v.index), name: v.name, vin: v.vin });
  });

  it('skips only the vehicle with the unidentifiable OEM code: logged with the run\'s correlation id, every other vehicle\'s snapshot stored', async () => {
    const { connection, internal } = runs.samsara;
    const skipped = skipLogs().filter((l) => l.sourceId === samsaraVehicleId(OEM));
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped[0]).toMatchObject({ syncId: internal.id, correlationId: expect.any(String) });
    expect(skipped[0]!.reason.length).toBeGreaterThan(0);
    const outcome = stack.logLines.join('').split('\n').find((line) => line.includes('"skippedRecords"') && line.includes(internal.id));
    expect(outcome).toBeDefined();
    // fault-feed keeps a watch mark per vehicle whose complete snapshot it committed.
    const watched = (await stack.sql<{ scope: string }>('select scope from $faults.fault_watch where connection_id = ?::uuid', [connection.connectionId])).map((w) => w.scope).join(' ');
    for (const v of active.filter((x) => x.index !== OEM)) expect(watched).toContain(samsaraVehicleId(v.index));
    expect(watched).not.toContain(samsaraVehicleId(OEM));
  });

  it('gives every completed trip its distance and its driver (stream seconds joined to legacy milliseconds), although /trips/stream refuses a request without ids', async () => {
    const byKey = await tripsByKey('samsara');
    let checked = 0;
    for (const v of active) {
      for (const t of fleetTrips(v.index)) {
        const read = byKey.get(`${v.index}|${second(t.startMs)}`);
        expect(read).toBeDefined();
        expect(read!.distance).toBeCloseTo(t.distanceM / 1000, 1);
        if (t.driverIndex === null) expect(read!.driver).toBeUndefined();
        else expect(read!.driver).toMatchObject({ sourceId: samsaraDriverId(t.driverIndex) });
        checked++;
      }
    }
    expect(checked).toBe(byKey.size);
    expect(checked).toBeGreaterThan(0);
  });

  it('reports a national phone as invalid (ambiguous), never with a guessed country code, and still lists the driver', async () => {
    const { connection } = runs.samsara;
    const drivers = await readAll<DriverRead>(connection, `/v1/connections/${connection.connectionId}/drivers?limit=100`, 'results');
    const withPhone = fleet.drivers().filter((d) => d.phone !== null);
    expect(withPhone.length).toBeGreaterThan(0);
    for (const d of withPhone) {
      const read = drivers.find((r) => r.sourceId === samsaraDriverId(d.index));
      expect(read).toBeDefined();
      expect(read!.phone).toBeUndefined();
      expect(read!.availability['phone']).toBe('invalid');
    }
  });
});

describe('Motive', () => {
  it('reads trip distance from the kilometre odometers whatever metric_units says (never × 1.609)', async () => {
    const byKey = await tripsByKey('motive');
    let withDistance = 0;
    for (const v of fleet.vehicles()) {
      for (const t of fleetTrips(v.index)) {
        const read = byKey.get(`${v.index}|${second(t.startMs)}`);
        expect(read).toBeDefined();
        if (t.startOdometerM === null || t.endOdometerM === null) {
          expect(read!.distance).toBeUndefined();
          continue;
        }
        expect(read!.distance).toBeCloseTo((t.endOdometerM - t.startOdometerM) / 1000, 3);
        withDistance++;
      }
    }
    expect(withDistance).toBeGreaterThan(0);
  });

  it('reports year "0" as a missing year, the other vehicles keep theirs', async () => {
    const { connection } = runs.motive;
    const profiles = await readAll<{ id: string; sourceId: string; year?: number }>(connection, `/v1/connections/${connection.connectionId}/vehicles?view=profiles&limit=50`, 'results');
    const unfilled = profiles.find((p) => p.sourceId === String(MOTIVE_IDS.vehicle(UNFILLED)));
    expect(unfilled).toBeDefined();
    expect(unfilled!.year).toBeUndefined();
    const metadata = await connection.read(`/v1/connections/${connection.connectionId}/vehicles/${unfilled!.id}/metadata`);
    expect(metadata.status).toBe(200);
    const fields = (metadata.body as { data: { fields: Record<string, CellRead> } }).data.fields;
    expect(fields['year']).toMatchObject({ status: 'missing', value: null });
    const other = fleet.vehicles().find((v) => v.index !== UNFILLED)!;
    expect(profiles.find((p) => p.sourceId === String(MOTIVE_IDS.vehicle(other.index)))!.year).toBe(other.year);
  });

  it('normalizes the split phone (national number + phone_country_code) to E.164', async () => {
    const { connection } = runs.motive;
    const drivers = await readAll<DriverRead>(connection, `/v1/connections/${connection.connectionId}/drivers?limit=100`, 'results');
    const withPhone = fleet.drivers().filter((d) => d.phone !== null);
    expect(withPhone.length).toBeGreaterThan(0);
    for (const d of withPhone) {
      const read = drivers.find((r) => r.sourceId === String(MOTIVE_IDS.user(d.index)));
      expect(read).toMatchObject({ phone: d.phone, availability: { phone: 'available' } });
    }
  });
});

describe('Geotab', () => {
  it('reads bare-date activeTo as open-ended: active vehicles are active with activeTo missing, none invalid', async () => {
    const { connection } = runs.geotab;
    const profiles = await readAll<{ id: string; sourceId: string; status: string; vin?: string }>(connection, `/v1/connections/${connection.connectionId}/vehicles?view=profiles&limit=50`, 'results');
    expect(profiles.map((p) => p.sourceId).sort()).toEqual([...fleet.vehicles().map((v) => geotabDeviceId(v.index)), ...ARCHIVED].sort());
    for (const v of fleet.vehicles()) {
      const profile = profiles.find((p) => p.sourceId === geotabDeviceId(v.index))!;
      expect(profile.status).toBe(v.active ? 'active' : 'inactive');
      const metadata = await connection.read(`/v1/connections/${connection.connectionId}/vehicles/${profile.id}/metadata`);
      expect(metadata.status).toBe(200);
      const fields = (metadata.body as { data: { fields: Record<string, CellRead> } }).data.fields;
      expect(fields['status']).toMatchObject({ status: 'available', value: v.active ? 'active' : 'inactive' });
      if (v.active) expect(fields['activeTo']).toMatchObject({ status: 'missing', value: null });
      expect(fields['activeFrom']!.status).toBe('available');
    }
    expect(active.length).toBeGreaterThan(0);
  });

  it('does not list trailers as vehicles (their ids approved), logs them as skipped; an engine VIN "?" is no VIN', async () => {
    const { connection, sync } = runs.geotab;
    const assets = await readAll<{ provider_id: string; vin: string | null }>(connection, `/v1/connections/${connection.connectionId}/vehicles?limit=50`, 'vehicles');
    const trailers = Array.from({ length: GEOTAB_TRAILER_COUNT }, (_, n) => geotabTrailerId(n));
    expect(assets.map((a) => a.provider_id).sort()).toEqual([...fleet.vehicles().map((v) => geotabDeviceId(v.index)), ...ARCHIVED].sort());
    for (const t of trailers) expect(assets.map((a) => a.provider_id)).not.toContain(t);
    const logged = skipLogs().filter((l) => l.syncId === sync.id);
    for (const t of trailers) expect(logged.map((l) => l.sourceId)).toContain(t);
    expect(assets.find((a) => a.provider_id === geotabDeviceId(UNREADABLE_VIN))!.vin).toBeNull();
    const other = withVin.find((v) => v.index !== UNREADABLE_VIN)!;
    expect(assets.find((a) => a.provider_id === geotabDeviceId(other.index))!.vin).toBe(other.vin);
  });
});

describe('Geotab: placeholders and unit slips are not values', () => {
  it('serves an archived device (inactive) with a missing serial, never 000-000-0000; fleet vehicles keep their serials', async () => {
    const { connection } = runs.geotab;
    const profiles = await readAll<{ id: string; sourceId: string; status: string }>(connection, `/v1/connections/${connection.connectionId}/vehicles?view=profiles&limit=50`, 'results');
    const serialOf = async (sourceId: string): Promise<CellRead> => {
      const profile = profiles.find((p) => p.sourceId === sourceId)!;
      const metadata = await connection.read(`/v1/connections/${connection.connectionId}/vehicles/${profile.id}/metadata`);
      expect(metadata.status).toBe(200);
      return (metadata.body as { data: { fields: Record<string, CellRead> } }).data.fields['serialNumber']!;
    };
    for (const id of ARCHIVED) {
      expect(profiles.find((p) => p.sourceId === id)!.status).toBe('inactive');
      expect(await serialOf(id)).toEqual({ status: 'missing', value: null, source: 'geotab:Device.serialNumber' });
    }
    const v = active[0]!;
    expect(await serialOf(geotabDeviceId(v.index))).toMatchObject({ status: 'available', value: v.serialNumber });
  });

  it('serves the metres trips without a distance (logged as skipped with the run), the other trips with theirs', async () => {
    const { sync } = runs.geotab;
    const byKey = await tripsByKey('geotab');
    const logged = skipLogs().filter((l) => l.syncId === sync.id && /served without a distance/.test(l.reason));
    let withheld = 0;
    for (const v of fleet.vehicles()) {
      for (const t of fleetTrips(v.index)) {
        const read = byKey.get(`${v.index}|${second(t.startMs)}`);
        expect(read).toBeDefined();
        // The fleet's metres read as km imply more than 300 km/h over the trip's driving time (every moving trip does).
        if (v.index === METRES_TRIPS && t.distanceM * 3_600_000 > 300 * (t.endMs - t.startMs)) {
          expect(read!.distance).toBeUndefined();
          expect(logged.map((l) => l.sourceId)).toContain(read!.sourceId);
          withheld++;
        } else {
          expect(read!.distance).toBeCloseTo(t.distanceM / 1000, 6);
        }
      }
    }
    expect(withheld).toBeGreaterThan(0);
    expect(new Set(logged.map((l) => l.sourceId)).size).toBe(withheld);
  });
});

describe('credentials', () => {
  it('logs no provider credential', () => {
    const logs = stack.logLines.join('');
    expect(logs).not.toContain(samsaraToken);
    expect(logs).not.toContain(motiveKey);
    expect(logs).not.toContain(geotab.password);
  });
});
