// The Samsara adapter under every scenario control of the simulator kit, over real HTTP: throttling,
// outages, slow and hanging responses, truncated bodies, revoked and under-scoped tokens, changed
// fields, duplicated pages, late history, odometer resets and device swaps. Each test sets the
// scenarios it needs on the account and clears them afterwards.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { ProviderError } from '@switchyard/providers';
import { swappedSerial } from '../src/common/account-fleet.js';
import type { Scenario } from '../src/common/scenario.types.js';
import { samsaraHasEcu, samsaraVehicleId } from '../src/samsara/index.js';
import { drain, iso, NOW, startSamsaraHarness, TOKEN, type SamsaraHarness } from './samsara-harness.js';

let h: SamsaraHarness;
beforeAll(async () => {
  h = await startSamsaraHarness();
});
afterAll(() => h.close());
afterEach(() => {
  h.sim.clearScenarios(TOKEN);
  h.clock.set({ nowMs: NOW });
});

const given = (...scenarios: Scenario[]) => h.sim.setScenarios(TOKEN, scenarios);
const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as ProviderError);
const requestsDuring = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
  const before = h.sim.requestCount(TOKEN);
  const result = await work();
  return [result, h.sim.requestCount(TOKEN) - before];
};

describe('Samsara scenarios: transport', () => {
  it('429 storm: waits the fractional Retry-After and succeeds; with a small retry budget → provider_throttled', async () => {
    given({ kind: 'rate_limit_storm', requests: 2, retryAfterSeconds: 0.05 });
    const started = Date.now();
    const [page, requests] = await requestsDuring(() => h.adapter().groups());
    expect(page.items.length).toBe(h.fleet.groups().length);
    expect(requests).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    given({ kind: 'rate_limit_storm', requests: 5, retryAfterSeconds: 0.02 });
    expect(await failure(h.adapter({ retry: { maxAttempts: 2, baseDelayMs: 1 } }).groups())).toMatchObject({ code: 'provider_throttled', detail: { status: 429, retryAfterMs: 20 } });
  });

  it('5xx burst: retried with backoff; persistent → provider_unavailable', async () => {
    given({ kind: 'server_errors', requests: 2, status: 503 });
    expect((await h.adapter().groups()).items.length).toBeGreaterThan(0);
    given({ kind: 'server_errors', requests: 10, status: 502 });
    expect(await failure(h.adapter().groups())).toMatchObject({ code: 'provider_unavailable', detail: { status: 502 } });
  });

  it('slow and hanging responses: timeout → retry → ok; persistent → provider_unavailable', async () => {
    given({ kind: 'slow', requests: 1, delayMs: 400 });
    const [slow, slowRequests] = await requestsDuring(() => h.adapter({ timeoutMs: 150 }).groups());
    expect(slow.items.length).toBeGreaterThan(0);
    expect(slowRequests).toBe(2);
    given({ kind: 'slow', requests: 1, delayMs: 0, hang: true });
    expect((await h.adapter({ timeoutMs: 150 }).groups()).items.length).toBeGreaterThan(0);
    given({ kind: 'slow', requests: 10, delayMs: 0, hang: true });
    expect(await failure(h.adapter({ timeoutMs: 100 }).groups())).toMatchObject({ code: 'provider_unavailable', detail: { message: 'timeout' } });
  });

  it('truncated JSON: provider_response_changed, not retried (the page cursor lets the next run resume)', async () => {
    given({ kind: 'truncated_json', requests: 1 });
    const before = h.sim.requestCount(TOKEN);
    expect(await failure(h.adapter().vehicles())).toMatchObject({ code: 'provider_response_changed', detail: { message: 'body is not JSON' } });
    expect(h.sim.requestCount(TOKEN) - before).toBe(1);
    expect((await h.adapter().vehicles()).items.length).toBeGreaterThan(0);
  });
});

describe('Samsara scenarios: credentials', () => {
  it('a token revoked mid-pagination → provider_auth_required on the next page', async () => {
    given({ kind: 'revoke_credential', afterRequests: 1 });
    const first = await h.adapter().vehicles();
    expect(first.next).not.toBeNull();
    expect(await failure(h.adapter().vehicles(first.next))).toMatchObject({ code: 'provider_auth_required', detail: { status: 401 } });
  });

  it('an unknown token → provider_auth_required; a missing permission → provider_scope_mismatch for that endpoint only', async () => {
    expect(await failure(h.adapter({ credentials: { apiToken: 'nope' } }).groups())).toMatchObject({ code: 'provider_auth_required' });
    given({ kind: 'missing_permission', pathPrefix: '/fleet/drivers' });
    expect(await failure(h.adapter().drivers())).toMatchObject({ code: 'provider_scope_mismatch', detail: { status: 403 } });
    expect((await h.adapter().groups()).items.length).toBeGreaterThan(0);
  });

  it('a token whose scopes do not cover a stat type → provider_scope_mismatch for stats requests naming it only', async () => {
    given({ kind: 'missing_permission', pathPrefix: '/fleet/vehicles/stats', typeName: 'fuelPercents' });
    expect(await failure(h.adapter().latestTelemetry({ metrics: ['fuelPercent'] }))).toMatchObject({ code: 'provider_scope_mismatch', detail: { status: 403 } });
    expect(await failure(h.adapter().telemetryHistory({ metrics: ['fuelPercent'], vehicleSourceIds: [samsaraVehicleId(0)], from: iso(NOW - 3600_000), to: iso(NOW) }))).toMatchObject({
      code: 'provider_scope_mismatch',
    });
    const { items } = await drain((c) => h.adapter().latestTelemetry({ metrics: ['location', 'odometer'], cursor: c }));
    expect(items.some((o) => o.metric === 'odometer')).toBe(true);
  });
});

describe('Samsara scenarios: response shape', () => {
  it('a retyped descriptive field is that field invalid; a renamed one is missing; the rest still maps', async () => {
    given({ kind: 'field_change', pathPrefix: '/fleet/vehicles', field: 'year', retypeTo: 'number' }, { kind: 'field_change', pathPrefix: '/fleet/vehicles', field: 'vin', renameTo: 'vehicleVin' });
    const { items } = await h.adapter().vehicles();
    expect(items.every((v) => v.metadata.year.status === 'invalid' && v.vin.status === 'missing')).toBe(true);
    expect(items.every((v) => v.name.status === 'available' && v.metadata.make.status === 'available')).toBe(true);
  });

  it('a retyped id or stat value is provider_response_changed', async () => {
    given({ kind: 'field_change', pathPrefix: '/tags', field: 'id', retypeTo: 'number' });
    expect(await failure(h.adapter().groups())).toMatchObject({ code: 'provider_response_changed', detail: { path: '/tags' } });
    given({ kind: 'field_change', pathPrefix: '/fleet/vehicles/stats', field: 'batteryMilliVolts.value', retypeTo: 'string' });
    expect(await failure(h.adapter().latestTelemetry({ metrics: ['batteryVoltage'] }))).toMatchObject({ code: 'provider_response_changed' });
  });

  it('duplicated and reordered pages: duplicates pass through as identical records keyed by sourceId; nothing is lost', async () => {
    given({ kind: 'duplicate_and_reorder', overlap: 2 });
    const { items } = await drain((c) => h.adapter().vehicles(c));
    const active = h.fleet.vehicles().filter((v) => v.active);
    expect(items.length).toBeGreaterThan(active.length);
    const bySource = new Map<string, unknown>();
    for (const { fetchedAt: _fetchedAt, ...record } of items) {
      if (bySource.has(record.sourceId)) expect(record).toEqual(bySource.get(record.sourceId));
      bySource.set(record.sourceId, record);
    }
    expect([...bySource.keys()].sort()).toEqual(active.map((v) => samsaraVehicleId(v.index)).sort());
    expect(items.slice(0, active.length).map((v) => v.sourceId)).not.toEqual(active.map((v) => samsaraVehicleId(v.index)));
  });
});

describe('Samsara scenarios: data', () => {
  const v0 = () => h.fleet.vehicles().find((v) => v.active && v.hasOdometer && samsaraHasEcu(v.index) && h.fleet.stateAt(v.index, NOW - 3600_000).odometerM! < h.fleet.stateAt(v.index, NOW).odometerM!)!;

  it('late history: hidden until available, then delivered', async () => {
    const v = v0();
    const window = { from: iso(NOW - 4 * 3600_000), to: iso(NOW), metrics: ['odometer'] as const, vehicleSourceIds: [samsaraVehicleId(v.index)] };
    given({ kind: 'late_history', fromMs: NOW - 3 * 3600_000, toMs: NOW - 3600_000, availableAtMs: NOW + 60_000 });
    const hidden = (await drain((cursor) => h.adapter().telemetryHistory({ ...window, cursor }))).items.map((o) => Date.parse(o.observedAt));
    expect(hidden.some((t) => t >= NOW - 3 * 3600_000 && t < NOW - 3600_000)).toBe(false);
    h.clock.set({ nowMs: NOW + 120_000 });
    const late = (await drain((cursor) => h.adapter().telemetryHistory({ ...window, cursor }))).items.map((o) => Date.parse(o.observedAt));
    expect(late.filter((t) => t >= NOW - 3 * 3600_000 && t < NOW - 3600_000).length).toBeGreaterThan(0);
    expect(late.length).toBeGreaterThan(hidden.length);
  });

  it('odometer reset: the latest and history readings drop and continue from the new value', async () => {
    const v = v0();
    const atMs = NOW - 3600_000;
    given({ kind: 'odometer_reset', vehicleIndex: v.index, atMs, toMeters: 1000 });
    const latest = (await drain((cursor) => h.adapter().latestTelemetry({ metrics: ['odometer'], vehicleSourceIds: [samsaraVehicleId(v.index)], cursor }))).items;
    const driven = h.fleet.stateAt(v.index, Math.floor(NOW / 60_000) * 60_000).odometerM! - h.fleet.stateAt(v.index, atMs).odometerM!;
    expect(latest).toEqual([expect.objectContaining({ metric: 'odometer', value: { meters: Math.floor(1000 + driven) }, source: 'samsara:obdOdometerMeters' })]);
    const history = (await drain((cursor) => h.adapter().telemetryHistory({ from: iso(atMs - 3600_000), to: iso(NOW), metrics: ['odometer'], vehicleSourceIds: [samsaraVehicleId(v.index)], cursor }))).items;
    const odometerAt = (t: number) => h.fleet.stateAt(v.index, t).odometerM!;
    const expectedAt = (t: number) => Math.floor(t < atMs ? odometerAt(t) : 1000 + odometerAt(t) - odometerAt(atMs));
    expect(history.map((o) => (o.metric === 'odometer' ? o.value.meters : NaN))).toEqual(history.map((o) => expectedAt(Date.parse(o.observedAt))));
    expect(history.some((o) => Date.parse(o.observedAt) < atMs) && history.some((o) => Date.parse(o.observedAt) >= atMs)).toBe(true);
  });

  it('device swap: the vehicle reports its new gateway serial', async () => {
    const v = h.fleet.vehicles().find((x) => x.active)!;
    given({ kind: 'device_swap', vehicleIndex: v.index, atMs: NOW - 3600_000 });
    const { items } = await drain((c) => h.adapter().vehicles(c));
    const record = items.find((r) => r.sourceId === samsaraVehicleId(v.index))!;
    expect(record.metadata.serialNumber).toMatchObject({ status: 'available', value: swappedSerial(v.serialNumber, 1) });
    expect(record.metadata.serialNumber.value).not.toBe(v.serialNumber);
  });
});
