/**
 * Geotab contract suite, part 2: every scenario control against the adapter over real HTTP, with
 * the outcome each one must have (the "documented outcome" is the test name). Each scenario runs on
 * its own database, so scenarios and rate-limit buckets never leak between tests.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { FaultRecord, Observation, TripRecord, VehicleRecord } from '@switchyard/domain';
import { createGeotabAdapter, logRecordSchema, ProviderError } from '@switchyard/providers';
import { createAccountFleet, swappedSerial } from '../src/common/account-fleet.js';
import type { Scenario } from '../src/common/scenario.types.js';
import { CATALOG_FAULTS, CATALOG_FAULT_KEYS } from '../src/fleet/catalog.js';
import { faultDiagnosticId, geotabDeviceId, LOG_STEP_MS, SESSION_TTL_MS } from '../src/geotab/index.js';
import { allPages, DAY, HOUR, iso, NOW, rpc, startGeotabHarness, type GeotabHarness } from './geotab-contract.support.js';

const DATABASES = ['storm', 'errors', 'slow', 'trunc', 'revoke', 'perm', 'field', 'dup', 'late', 'odo', 'swap', 'standing', 'auth'] as const;
let h: GeotabHarness;
beforeAll(async () => {
  h = await startGeotabHarness(DATABASES);
});
afterAll(() => h.close());

const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as ProviderError);
const set = (db: string, scenarios: Scenario[]) => h.sim.setScenarios(db, scenarios);
const readAll = <T>(read: (c: string | null) => Promise<{ items: readonly T[]; next: string | null }>) => allPages<T>(read);

describe('transport faults', () => {
  it('429 storm: Retry-After is honoured and the read succeeds; a storm longer than the retry budget is provider_throttled', async () => {
    const sleeps: number[] = [];
    const adapter = h.adapter('storm', { sleeps });
    set('storm', [{ kind: 'rate_limit_storm', requests: 2, retryAfterSeconds: 3 }]);
    expect((await adapter.vehicles()).items).toHaveLength(25);
    expect(sleeps).toEqual([3000, 3000]);
    set('storm', [{ kind: 'rate_limit_storm', requests: 5, retryAfterSeconds: 2 }]);
    expect(await failure(adapter.groups())).toMatchObject({ code: 'provider_throttled', detail: { status: 429, retryAfterMs: 2000 } });
    h.sim.clearScenarios('storm');
  });

  it('5xx burst: retried with backoff and succeeds; a longer burst is provider_unavailable', async () => {
    const adapter = h.adapter('errors');
    set('errors', [{ kind: 'server_errors', requests: 2, status: 503 }]);
    expect((await adapter.vehicles()).items).toHaveLength(25);
    set('errors', [{ kind: 'server_errors', requests: 5, status: 500 }]);
    expect(await failure(adapter.groups())).toMatchObject({ code: 'provider_unavailable', detail: { status: 500 } });
    h.sim.clearScenarios('errors');
  });

  it('slow responses complete; a hanging response times out and the retry succeeds', async () => {
    const adapter = h.adapter('slow', { timeoutMs: 400 });
    await adapter.groups();
    set('slow', [{ kind: 'slow', requests: 1, delayMs: 150 }]);
    const started = Date.now();
    expect((await adapter.vehicles()).items).toHaveLength(25);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    set('slow', [{ kind: 'slow', requests: 1, delayMs: 0, hang: true }]);
    expect((await adapter.groups()).items.length).toBeGreaterThan(1);
    h.sim.clearScenarios('slow');
  });

  it('truncated JSON is provider_response_changed (not retried); the next read is unaffected', async () => {
    const adapter = h.adapter('trunc');
    await adapter.groups();
    set('trunc', [{ kind: 'truncated_json', requests: 1 }]);
    expect(await failure(adapter.vehicles())).toMatchObject({ code: 'provider_response_changed', detail: { message: 'body is not JSON' } });
    expect((await adapter.vehicles()).items).toHaveLength(25);
  });
});

describe('credentials and permissions', () => {
  it('credential revoked mid-sync: page 2 fails with provider_auth_required after exactly one re-authentication', async () => {
    const adapter = h.adapter('revoke', { pageSizes: { entityFeed: 10 } });
    set('revoke', [{ kind: 'revoke_credential', afterRequests: 2 }]);
    const first = await adapter.vehicles();
    expect(first.items).toHaveLength(10);
    expect(await failure(adapter.vehicles(first.next))).toMatchObject({ code: 'provider_auth_required', detail: { path: 'geotab:Authenticate' } });
    // Authenticate, page 1, page 2 (InvalidUserException), one Authenticate retry — no loop.
    expect(h.sim.requestCount('revoke')).toBe(4);
    h.sim.clearScenarios('revoke');
  });

  it('missing permission on Trip / StatusData is provider_scope_mismatch; other reads still work', async () => {
    const adapter = h.adapter('perm');
    set('perm', [{ kind: 'missing_permission', typeName: 'Trip' }, { kind: 'missing_permission', typeName: 'StatusData' }]);
    expect(await failure(adapter.trips({ from: iso(NOW - DAY), to: iso(NOW) }))).toMatchObject({ code: 'provider_scope_mismatch', detail: { message: 'InvalidPermissionsException' } });
    expect(await failure(adapter.latestTelemetry({ metrics: ['odometer'] }))).toMatchObject({ code: 'provider_scope_mismatch' });
    expect((await adapter.vehicles()).items).toHaveLength(25);
    h.sim.clearScenarios('perm');
  });

  it('wrong password is provider_auth_required; an unknown database is provider_config_invalid', async () => {
    const sim = h.sim.url;
    const base = { provider: 'geotab' as const, baseUrl: sim, retry: { maxAttempts: 1 } };
    const account = h.account('auth');
    expect(await failure(createGeotabAdapter({ ...base, credentials: { database: 'auth', userName: account.userName as string, password: 'wrong' } }).groups())).toMatchObject({ code: 'provider_auth_required' });
    expect(await failure(createGeotabAdapter({ ...base, credentials: { database: 'nope', userName: account.userName as string, password: account.password as string } }).groups())).toMatchObject({ code: 'provider_config_invalid' });
  });

  it('an expired session is renewed once and the read continues', async () => {
    const own = await startGeotabHarness(['exp']);
    try {
      const adapter = own.adapter('exp');
      await adapter.groups();
      own.clock.advance(SESSION_TTL_MS + HOUR);
      expect((await adapter.groups()).items.length).toBeGreaterThan(1);
      // Authenticate, Get, Get (InvalidUserException: expired), Authenticate, Get.
      expect(own.sim.requestCount('exp')).toBe(5);
    } finally {
      await own.close();
    }
  });

  it('MyGeotab rate limits: the 11th Authenticate in a minute and the 61st GetFeed of a type are OverLimitException with Retry-After', async () => {
    // The buckets refill on wall time (one GetFeed token a second): with the clock running, a loaded
    // machine taking over a second for the 61 calls refilled one and the 61st passed. Frozen here, so
    // the count is the limit's alone; the adapter's back-off below then meets the same refusal.
    const own = await startGeotabHarness(['limits'], 'geotab-contract', () => 0);
    try {
      const { id, userName, password } = own.account('limits');
      const auths = [];
      for (let i = 0; i < 11; i++) auths.push(await rpc(own.sim.url, 'Authenticate', { database: id, userName, password }));
      expect(auths.slice(0, 10).every((r) => r.status === 200 && r.body.result)).toBe(true);
      expect(auths[10]).toMatchObject({ status: 429, body: { error: { data: { type: 'OverLimitException' } } } });
      expect(Number(auths[10]?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const credentials = (auths[0]?.body.result as { credentials: Record<string, string> }).credentials;
      const feeds = [];
      for (let i = 0; i < 61; i++) feeds.push((await rpc(own.sim.url, 'GetFeed', { typeName: 'Device', resultsLimit: 1, credentials })).status);
      expect(feeds.filter((s) => s === 200)).toHaveLength(60);
      expect(feeds[60]).toBe(429);
      // The adapter, on the same user, backs off and gives up as provider_throttled.
      expect(await failure(own.adapter('limits').groups())).toMatchObject({ code: 'provider_throttled' });
    } finally {
      await own.close();
    }
  });
});

describe('shape changes', () => {
  it('renamed VIN field: falls back to engineVehicleIdentificationNumber; retyped plate / renamed Trip.start: provider_response_changed', async () => {
    const adapter = h.adapter('field');
    set('field', [{ kind: 'field_change', typeName: 'Device', field: 'vehicleIdentificationNumber', renameTo: 'vin' }]);
    const vehicles = (await adapter.vehicles()).items;
    for (const r of vehicles) {
      const v = h.fleet.vehicle(Number.parseInt(r.sourceId.slice(1), 16) - 1);
      expect(r.vin).toMatchObject(v.vin ? { status: 'available', value: v.vin, source: 'geotab:Device.engineVehicleIdentificationNumber' } : { status: 'missing' });
    }
    set('field', [{ kind: 'field_change', typeName: 'Device', field: 'licensePlate', retypeTo: 'number' }]);
    expect(await failure(adapter.vehicles())).toMatchObject({ code: 'provider_response_changed', detail: { path: 'geotab:GetFeed:Device' } });
    set('field', [{ kind: 'field_change', typeName: 'Trip', field: 'start', renameTo: 'startTime' }]);
    expect(await failure(adapter.trips({ from: iso(NOW - DAY), to: iso(NOW) }))).toMatchObject({ code: 'provider_response_changed', detail: { path: 'geotab:Get:Trip', message: '0.start: Invalid input: expected string, received undefined' } });
    h.sim.clearScenarios('field');
  });

  it('bare-date activeTo ("2050-01-01", as some servers send): open-ended and active, not invalid', async () => {
    const adapter = h.adapter('field');
    set('field', [{ kind: 'field_change', typeName: 'Device', field: 'activeTo', setTo: '2050-01-01' }]);
    const vehicles = (await adapter.vehicles()).items;
    expect(vehicles.length).toBeGreaterThan(0);
    for (const r of vehicles) {
      expect(r.metadata.activeTo).toMatchObject({ status: 'missing', reason: 'open-ended (far-future activeTo)' });
      expect(r.metadata.status).toMatchObject({ status: 'available', value: 'active' });
    }
    h.sim.clearScenarios('field');
  });

  it('Trip.distance retyped to null: distance from the trip-end odometer difference (basis odometer) or missing; StatusData.data null: no engine readings', async () => {
    const adapter = h.adapter('field');
    set('field', [{ kind: 'field_change', typeName: 'Trip', field: 'distance', retypeTo: 'null' }, { kind: 'field_change', typeName: 'StatusData', field: 'data', retypeTo: 'null' }]);
    const trips = (await adapter.trips({ from: iso(NOW - DAY), to: iso(NOW) })).items;
    const truth = new Map(h.fleet.vehicles().flatMap((v) => h.fleet.tripsBetween(v.index, NOW - DAY, NOW, NOW)).map((t) => [`${geotabDeviceId(t.vehicleIndex)}@${iso(t.startMs)}`, t]));
    expect(trips.length).toBe(truth.size);
    for (const t of trips) {
      if (t.distanceKm.status === 'available') {
        expect(t.distanceBasis).toBe('odometer');
        expect(t.distanceKm.value).toBeCloseTo((truth.get(`${t.vehicleSourceId}@${t.startedAt}`)?.distanceM ?? NaN) / 1000, 9);
      } else expect(t).toMatchObject({ distanceKm: { status: 'missing' }, distanceBasis: null });
    }
    expect(trips.some((t) => t.distanceBasis === 'odometer')).toBe(true);
    const latest = (await adapter.latestTelemetry({ metrics: ['location', 'odometer', 'engineHours', 'batteryVoltage'], vehicleSourceIds: [geotabDeviceId(0)] })).items;
    expect(latest.map((o) => o.metric)).toEqual(['location']);
    h.sim.clearScenarios('field');
  });
});

describe('data scenarios', () => {
  it('duplicated and reordered feed pages: every record arrives, duplicates carry the same id (upsert absorbs them)', async () => {
    const adapter = h.adapter('dup', { pageSizes: { entityFeed: 10 } });
    set('dup', [{ kind: 'duplicate_and_reorder', overlap: 3 }]);
    const { items, pages } = await readAll<VehicleRecord>((c) => adapter.vehicles(c));
    expect(pages).toBe(3);
    expect(items).toHaveLength(25 + 3 + 3);
    expect(new Set(items.map((v) => v.sourceId)).size).toBe(25);
    const faultAdapter = h.adapter('dup', { pageSizes: { faultFeed: 50 } });
    const faults = await readAll<FaultRecord>((c) => faultAdapter.faults({ cursor: c }) as Promise<{ items: FaultRecord[]; next: string | null }>);
    h.sim.clearScenarios('dup');
    const clean = await readAll<FaultRecord>((c) => faultAdapter.faults({ cursor: c }) as Promise<{ items: FaultRecord[]; next: string | null }>);
    expect(new Set(faults.items.map((f) => f.sourceId))).toEqual(new Set(clean.items.map((f) => f.sourceId)));
    expect(faults.items.length).toBeGreaterThan(clean.items.length);
  });

  it('late history: hidden until available, then delivered by the feed after newer records', async () => {
    const adapter = h.adapter('late');
    const [from, to] = [NOW - 5 * HOUR, NOW - 4 * HOUR];
    const window = { from: iso(NOW - 6 * HOUR), to: iso(NOW - 3 * HOUR), metrics: ['location'] as const, vehicleSourceIds: [geotabDeviceId(0), geotabDeviceId(1)] };
    const history = async () => (await readAll<Observation>((cursor) => adapter.telemetryHistory({ ...window, metrics: [...window.metrics], cursor }))).items;
    const all = [0, 1].flatMap((v) => h.fleet.sampleTimes(v, NOW - 6 * HOUR, NOW - 3 * HOUR, LOG_STEP_MS));
    const late = all.filter((t) => t >= from && t < to);
    expect(late.length).toBeGreaterThan(0);
    set('late', [{ kind: 'late_history', fromMs: from, toMs: to, availableAtMs: NOW + HOUR }]);
    expect((await history()).length).toBe(all.length - late.length);
    set('late', [{ kind: 'late_history', fromMs: from, toMs: to, availableAtMs: NOW - 2 * 60_000 }]);
    expect((await history()).length).toBe(all.length);
    // The feed delivers the late hour after records of later hours: ordered by arrival, not dateTime.
    const page = await h.client('late').getFeed('LogRecord', logRecordSchema, { search: { fromDate: iso(NOW - 6 * HOUR), deviceSearch: { id: geotabDeviceId(0) } } });
    const times = page.data.map((r) => Date.parse(r.dateTime));
    const firstLate = times.findIndex((t) => t >= from && t < to);
    expect(times.slice(0, firstLate).some((t) => t >= to)).toBe(true);
    h.sim.clearScenarios('late');
  });

  it('odometer reset: the adapter reports the drop as the provider does (no smoothing; resets are detected downstream)', async () => {
    const v = h.fleet.vehicles().find((x) => x.hasOdometer && x.active && h.fleet.tripsBetween(x.index, NOW - 8 * HOUR, NOW, NOW).length > 0) as { index: number };
    const reset: Scenario = { kind: 'odometer_reset', vehicleIndex: v.index, atMs: NOW - 6 * HOUR, toMeters: 1000 };
    set('odo', [reset]);
    const truth = createAccountFleet(h.fleet, h.clock, () => [reset]);
    const adapter = h.adapter('odo');
    const latest = (await adapter.latestTelemetry({ metrics: ['odometer'], vehicleSourceIds: [geotabDeviceId(v.index)] })).items[0] as Extract<Observation, { metric: 'odometer' }>;
    expect(latest.value.meters).toBe(truth.stateAt(v.index, Date.parse(latest.observedAt)).odometerM);
    expect(latest.value.meters).toBeLessThan(h.fleet.stateAt(v.index, NOW).odometerM as number);
    const history = (await readAll<Observation>((cursor) => adapter.telemetryHistory({ from: iso(NOW - 8 * HOUR), to: iso(NOW), metrics: ['odometer'], vehicleSourceIds: [geotabDeviceId(v.index)], cursor }))).items as Extract<Observation, { metric: 'odometer' }>[];
    expect(history.some((o, n) => n > 0 && o.value.meters < (history[n - 1] as typeof o).value.meters)).toBe(true);
    for (const o of history) expect(o.value.meters).toBe(truth.stateAt(v.index, Date.parse(o.observedAt)).odometerM);
    h.sim.clearScenarios('odo');
  });

  it('device swap: same Device id, new GO serial; the vehicle keeps its trips and telemetry', async () => {
    const adapter = h.adapter('swap');
    const before = (await adapter.vehicles()).items.find((r) => r.sourceId === geotabDeviceId(4)) as VehicleRecord;
    set('swap', [{ kind: 'device_swap', vehicleIndex: 4, atMs: NOW - HOUR }]);
    const after = (await adapter.vehicles()).items.find((r) => r.sourceId === geotabDeviceId(4)) as VehicleRecord;
    expect(before.metadata.serialNumber.value).toBe(h.fleet.vehicle(4).serialNumber);
    expect(after.metadata.serialNumber.value).toBe(swappedSerial(h.fleet.vehicle(4).serialNumber, 1));
    expect(after.vin).toEqual(before.vin);
    const trips = (await adapter.trips({ from: iso(NOW - 2 * DAY), to: iso(NOW), vehicleSourceIds: [geotabDeviceId(4)] })).items as TripRecord[];
    expect(trips.length).toBe(h.fleet.tripsBetween(4, NOW - 2 * DAY, NOW, NOW).length);
    h.sim.clearScenarios('swap');
  });

  // Issue 23's shape: a fault already active when a connection starts watching. The simulator's
  // own schedule has such faults by chance; this scenario makes one certain.
  it('standing fault: FaultData at its opening and at each ignition after, none in a window without one; gone after its clear', async () => {
    const v = 4;
    const openedAtMs = NOW - 2 * DAY - 7 * 60_000;
    const clearedAtMs = NOW - 2 * HOUR;
    const raised = new Set([...h.fleet.faultEventsBetween(v, NOW - 10 * DAY, NOW)].map((e) => e.fault.key));
    const fault = CATALOG_FAULT_KEYS.find((k) => !raised.has(k) && !h.fleet.stateAt(v, NOW - 10 * DAY).activeFaults.some((f) => f.key === k))!;
    const diagnostic = faultDiagnosticId(CATALOG_FAULTS.get(fault)!);
    set('standing', [{ kind: 'standing_fault', vehicleIndex: v, fault, openedAtMs, clearedAtMs }]);
    const adapter = h.adapter('standing');
    const records = async (fromMs: number, toMs: number) =>
      (await readAll<FaultRecord>((cursor) => adapter.faults({ from: iso(fromMs), to: iso(toMs), vehicleSourceIds: [geotabDeviceId(v)], cursor }) as Promise<{ items: FaultRecord[]; next: string | null }>)).items
        .filter((r) => r.faultKey.split('|')[1] === diagnostic)
        .map((r) => Date.parse(r.observedAt))
        .sort((a, b) => a - b);
    const ignitions = h.fleet.tripsBetween(v, openedAtMs, clearedAtMs, NOW).map((t) => t.startMs).filter((t) => t > openedAtMs && t < clearedAtMs);
    expect(ignitions.length).toBeGreaterThan(0);
    expect(await records(NOW - 7 * DAY, NOW)).toEqual([openedAtMs, ...ignitions]);
    // A five-minute window just after the opening, before any ignition: nothing, although the fault is active.
    expect(ignitions[0]! - openedAtMs).toBeGreaterThan(10 * 60_000);
    expect(await records(openedAtMs + 60_000, openedAtMs + 6 * 60_000)).toEqual([]);
    h.sim.clearScenarios('standing');
    expect(await records(NOW - 7 * DAY, NOW)).toEqual([]);
  });
});
