// Every scenario control of the simulator kit against the Motive adapter over real HTTP, one API key
// per scenario. Each test name states the outcome the adapter guarantees (and that this test proves).
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { swappedSerial } from '../src/common/account-fleet.js';
import type { Scenario } from '../src/common/scenario.types.js';
import { DAY_MS, drain, iso, key, MAX_PER_PAGE, NOW, startMotiveHarness, vehicleId, vehicleIndexOf, type MotiveHarness } from './motive-harness.js';

let h: MotiveHarness;
beforeAll(async () => {
  h = await startMotiveHarness();
});
afterAll(() => h.close());
afterEach(() => {
  h.sim.clearScenarios();
  h.clock.set({ nowMs: NOW });
});

const scenario = (name: string, ...scenarios: Scenario[]) => h.sim.setScenarios(key(name), scenarios);
const allVehicleIds = () => h.fleet.vehicles().map((v) => vehicleId(v.index));

describe('Motive scenarios: transport faults', () => {
  it('429 storm: retried after exactly Retry-After each time, then the page arrives', async () => {
    scenario('storm', { kind: 'rate_limit_storm', requests: 2, retryAfterSeconds: 3 });
    const before = h.sleeps.length;
    const page = await h.adapter(key('storm')).vehicles(null);
    expect(page.items).toHaveLength(MAX_PER_PAGE);
    expect(h.sleeps.slice(before)).toEqual([3000, 3000]);
  });

  it('429 storm longer than the retry budget: provider_throttled with the Retry-After it saw', async () => {
    scenario('storm-long', { kind: 'rate_limit_storm', requests: 50, retryAfterSeconds: 2 });
    await expect(h.adapter(key('storm-long')).vehicles(null)).rejects.toMatchObject({ code: 'provider_throttled', detail: { status: 429, retryAfterMs: 2000 } });
  });

  it('5xx burst: retried with backoff, then the page arrives', async () => {
    scenario('burst', { kind: 'server_errors', requests: 2, status: 503 });
    const page = await h.adapter(key('burst')).groups(null);
    expect(page.items.length).toBeGreaterThan(0);
    expect(h.sim.requestCount(key('burst'))).toBe(3);
  });

  it('5xx beyond the retry budget: provider_unavailable', async () => {
    scenario('burst-long', { kind: 'server_errors', requests: 50, status: 500 });
    await expect(h.adapter(key('burst-long')).groups(null)).rejects.toMatchObject({ code: 'provider_unavailable', detail: { status: 500 } });
  });

  it('slow response inside the timeout: waited for, no retry', async () => {
    scenario('slow', { kind: 'slow', requests: 1, delayMs: 300 });
    const started = Date.now();
    await expect(h.adapter(key('slow')).groups(null)).resolves.toMatchObject({ next: null });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(h.sim.requestCount(key('slow'))).toBe(1);
  });

  it('hanging response: timed out and retried; hanging every time ends as provider_unavailable (timeout)', async () => {
    scenario('hang', { kind: 'slow', requests: 1, delayMs: 0, hang: true });
    await expect(h.adapter(key('hang'), { timeoutMs: 250 }).groups(null)).resolves.toMatchObject({ next: null });
    scenario('hang', { kind: 'slow', requests: 5, delayMs: 0, hang: true });
    await expect(h.adapter(key('hang'), { timeoutMs: 150, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 } }).groups(null)).rejects.toMatchObject({
      code: 'provider_unavailable',
      detail: { message: 'timeout' },
    });
  });

  it('truncated JSON: provider_response_changed, not retried; the next call succeeds', async () => {
    scenario('truncated', { kind: 'truncated_json', requests: 1 });
    await expect(h.adapter(key('truncated')).vehicles(null)).rejects.toMatchObject({ code: 'provider_response_changed' });
    expect(h.sim.requestCount(key('truncated'))).toBe(1);
    await expect(h.adapter(key('truncated')).vehicles(null)).resolves.toMatchObject({ items: expect.any(Array) });
  });
});

describe('Motive scenarios: credentials and permissions', () => {
  it('key revoked mid-sync: provider_auth_required on the next page; the cursor resumes once access is back', async () => {
    scenario('revoked', { kind: 'revoke_credential', afterRequests: 1 });
    const a = h.adapter(key('revoked'));
    const first = await a.vehicles(null);
    expect(first.next).not.toBeNull();
    const error = await a.vehicles(first.next).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'provider_auth_required', detail: { status: 401 } });
    h.sim.clearScenarios(key('revoked'));
    const second = await a.vehicles(first.next);
    expect(second.items.map((v) => v.sourceId)).toEqual(allVehicleIds().slice(MAX_PER_PAGE, 2 * MAX_PER_PAGE));
  });

  it('missing permission on fault codes: provider_scope_mismatch there, other resources unaffected', async () => {
    scenario('forbidden-faults', { kind: 'missing_permission', pathPrefix: '/v1/fault_codes' });
    const a = h.adapter(key('forbidden-faults'));
    await expect(a.faults({})).rejects.toMatchObject({ code: 'provider_scope_mismatch', detail: { status: 403 } });
    await expect(a.vehicles(null)).resolves.toMatchObject({ items: expect.any(Array) });
  });

  it('missing permission on groups: groups fail with provider_scope_mismatch, drivers still sync with groupIds missing (not empty)', async () => {
    scenario('forbidden-groups', { kind: 'missing_permission', pathPrefix: '/v1/groups' });
    const a = h.adapter(key('forbidden-groups'));
    await expect(a.groups(null)).rejects.toMatchObject({ code: 'provider_scope_mismatch' });
    const { items } = await drain((c) => a.drivers(c));
    expect(items).toHaveLength(h.fleet.drivers().length);
    for (const d of items) expect(d.groupIds).toMatchObject({ status: 'missing', value: null, reason: 'provider_scope_mismatch' });
  });
});

describe('Motive scenarios: response changes', () => {
  it('renamed value field (vehicle.vin): vin missing on every vehicle, every other field intact', async () => {
    scenario('rename', { kind: 'field_change', pathPrefix: '/v1/vehicles', field: 'vehicle.vin', renameTo: 'vehicle_identification_number' });
    const { items } = await drain((c) => h.adapter(key('rename')).vehicles(c));
    expect(items).toHaveLength(h.fleet.vehicles().length);
    for (const v of items) {
      expect(v.vin).toMatchObject({ status: 'missing', value: null });
      expect(v.name.value).toBe(h.fleet.vehicle(vehicleIndexOf(v.sourceId)).name);
    }
  });

  it('retyped value fields (year → number, end_kilometers → string): those fields invalid, never coerced or zero', async () => {
    scenario(
      'retype',
      { kind: 'field_change', pathPrefix: '/v1/vehicles', field: 'vehicle.year', retypeTo: 'number' },
      { kind: 'field_change', pathPrefix: '/v1/driving_periods', field: 'driving_period.end_kilometers', retypeTo: 'string' },
    );
    const a = h.adapter(key('retype'));
    const { items } = await drain((c) => a.vehicles(c));
    for (const v of items) expect(v.metadata.year).toMatchObject({ status: 'invalid', value: null, reason: 'year: retyped (got number)' });
    const trips = await drain((cursor) => a.trips({ from: iso(NOW - DAY_MS), to: iso(NOW), cursor }));
    const withOdometer = trips.items.filter((t) => h.fleet.vehicle(vehicleIndexOf(t.vehicleSourceId)).hasOdometer);
    expect(withOdometer.length).toBeGreaterThan(0);
    for (const t of withOdometer) expect(t).toMatchObject({ distanceKm: { status: 'invalid', value: null }, distanceBasis: null });
  });

  it('retyped structural field (vehicle.id → string): provider_response_changed naming the path', async () => {
    scenario('retype-id', { kind: 'field_change', pathPrefix: '/v1/vehicles', field: 'vehicle.id', retypeTo: 'string' });
    await expect(h.adapter(key('retype-id')).vehicles(null)).rejects.toMatchObject({ code: 'provider_response_changed', detail: { path: '/v1/vehicles', message: expect.stringContaining('vehicles.0.vehicle.id') } });
  });

  it('duplicated and out-of-order pages: every record exactly once (previous-page overlap dropped)', async () => {
    scenario('reorder', { kind: 'duplicate_and_reorder', overlap: 3 });
    const raw = await fetch(`${h.sim.url}/v1/vehicles?per_page=${MAX_PER_PAGE}&page_no=2`, { headers: { 'x-api-key': key('reorder') } });
    expect(((await raw.json()) as { vehicles: unknown[] }).vehicles).toHaveLength(MAX_PER_PAGE + 3); // the simulator really repeats
    const a = h.adapter(key('reorder'));
    const { items } = await drain((c) => a.vehicles(c));
    expect(items.map((v) => v.sourceId)).toHaveLength(allVehicleIds().length);
    expect(items.map((v) => v.sourceId).sort()).toEqual(allVehicleIds().sort());
    const trips = await drain((cursor) => a.trips({ from: iso(NOW - DAY_MS), to: iso(NOW), cursor }));
    const truth = h.fleet.vehicles().flatMap((v) => h.fleet.tripsBetween(v.index, NOW - DAY_MS, NOW, NOW));
    expect(new Set(trips.items.map((t) => t.sourceId)).size).toBe(trips.items.length);
    expect(trips.items).toHaveLength(truth.length);
  });
});

describe('Motive scenarios: data faults', () => {
  it('late history: hidden points and trips are absent, then appear on a re-read once the clock passes', async () => {
    const hidden = { fromMs: NOW - 3 * 3_600_000, toMs: NOW - 3_600_000 };
    scenario('late', { kind: 'late_history', ...hidden, availableAtMs: NOW + 30 * 60_000 });
    const a = h.adapter(key('late'));
    const window = { from: iso(NOW - 6 * 3_600_000), to: iso(NOW), metrics: ['location' as const], vehicleSourceIds: [vehicleId(0), vehicleId(1)] };
    const inHidden = (t: string) => Date.parse(t) >= hidden.fromMs && Date.parse(t) < hidden.toMs;
    const early = await drain((cursor) => a.telemetryHistory({ ...window, cursor }));
    expect(early.items.filter((o) => inHidden(o.observedAt))).toHaveLength(0);
    const tripsEarly = await drain((cursor) => a.trips({ from: window.from, to: window.to, cursor }));
    expect(tripsEarly.items.filter((t) => inHidden(t.startedAt))).toHaveLength(0);
    h.clock.advance(31 * 60_000);
    const late = await drain((cursor) => a.telemetryHistory({ ...window, cursor }));
    expect(late.items.filter((o) => inHidden(o.observedAt)).length).toBeGreaterThan(0);
    expect(late.items.filter((o) => Date.parse(o.observedAt) < Date.parse(window.to))).toHaveLength(early.items.length + late.items.filter((o) => inHidden(o.observedAt)).length);
    const tripsLate = await drain((cursor) => a.trips({ from: window.from, to: window.to, cursor }));
    // Trips that started in the window and completed by the (advanced) clock.
    expect(tripsLate.items.length).toBe(h.fleet.vehicles().flatMap((v) => h.fleet.tripsBetween(v.index, NOW - 6 * 3_600_000, NOW, h.clock.now())).length);
    expect(tripsLate.items.filter((t) => inHidden(t.startedAt)).length).toBeGreaterThan(0);
  });

  it('odometer reset: readings pass through as reported (they drop), the trip spanning the reset has an invalid distance, later trips are right', async () => {
    const trips = h.fleet.vehicles().flatMap((v) => (v.hasOdometer ? h.fleet.tripsBetween(v.index, NOW - DAY_MS, NOW - 3_600_000, NOW) : []));
    const spanning = trips[0]!;
    const atMs = Math.floor((spanning.startMs + spanning.endMs) / 2000) * 1000;
    scenario('reset', { kind: 'odometer_reset', vehicleIndex: spanning.vehicleIndex, atMs, toMeters: 1_000 });
    const a = h.adapter(key('reset'));
    const id = vehicleId(spanning.vehicleIndex);
    const { items } = await drain((cursor) => a.trips({ from: iso(NOW - DAY_MS), to: iso(NOW), vehicleSourceIds: [id], cursor }));
    const across = items.find((t) => t.startedAt === iso(spanning.startMs))!;
    expect(across).toMatchObject({ distanceKm: { status: 'invalid', value: null }, distanceBasis: null });
    for (const t of items.filter((x) => Date.parse(x.startedAt) > atMs)) {
      const truth = h.fleet.tripsBetween(spanning.vehicleIndex, Date.parse(t.startedAt), Date.parse(t.startedAt) + 1, NOW)[0]!;
      expect(t.distanceKm.value).toBeCloseTo(truth.distanceM / 1000, 6);
    }
    const latest = await a.latestTelemetry({ metrics: ['odometer'], vehicleSourceIds: [id] });
    const since = (h.fleet.stateAt(spanning.vehicleIndex, Math.floor(NOW / 1000) * 1000).odometerM as number) - (h.fleet.stateAt(spanning.vehicleIndex, atMs).odometerM as number);
    expect((latest.items[0]?.value as { meters: number }).meters).toBeCloseTo(1_000 + since, 3);
  });

  it('device swap: same vehicle id, the new device serial from the swap on; other vehicles untouched', async () => {
    scenario('swap', { kind: 'device_swap', vehicleIndex: 4, atMs: NOW - 3_600_000 });
    const { items } = await drain((c) => h.adapter(key('swap')).vehicles(c));
    expect(items.map((v) => v.sourceId)).toEqual(allVehicleIds());
    const swapped = items[4]!;
    const original = h.fleet.vehicle(4).serialNumber;
    expect(swapped.metadata.serialNumber.value).toBe(swappedSerial(original, 1));
    expect(swapped.metadata.serialNumber.value).not.toBe(original);
    expect(items[5]!.metadata.serialNumber.value).toBe(h.fleet.vehicle(5).serialNumber);
  });
});

describe('Motive simulator dialect', () => {
  it('rate limit (50/s, burst 100 per key): 429 with Retry-After and {error_message}; unknown key 401', async () => {
    const responses = await Promise.all(Array.from({ length: 130 }, () => fetch(`${h.sim.url}/v1/groups`, { headers: { 'x-api-key': key('limit') } })));
    const limited = responses.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await limited[0]!.json()).toEqual({ error_message: expect.any(String) });
    const unknown = await fetch(`${h.sim.url}/v1/vehicles`, { headers: { 'x-api-key': 'nope' } });
    expect([unknown.status, await unknown.json()]).toEqual([401, { error_message: 'Invalid or expired API key' }]);
    const bad = await fetch(`${h.sim.url}/v3/vehicle_locations/${vehicleId(0)}?start_date=2025-01-01&end_date=2025-06-01`, { headers: { 'x-api-key': key('telemetry') } });
    expect(bad.status).toBe(400);
  });
});
