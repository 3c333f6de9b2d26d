// The simulator kit over real HTTP with a tiny fake provider dialect: account identification,
// rate limits with Retry-After, every scenario kind, and the /_sim control API.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createFleet,
  findScenario,
  fixedClock,
  pageWithScenario,
  MAX_STATS_PATHS,
  startSimulator,
  TrafficStats,
  type RunningSimulator,
  type SimErrorKind,
  type SimRequest,
  type SimResponse,
  type SimulatorDefinition,
  type TrafficCounts,
} from '../src/index.js';

const DAY = 86_400_000;
const EPOCH = Date.UTC(2025, 0, 1);
const STATUS: Record<SimErrorKind, number> = { unauthorized: 401, forbidden: 403, rate_limited: 429, server_error: 500, not_found: 404, bad_request: 400 };

const json = (body: unknown): SimResponse => ({ status: 200, body });
const num = (req: SimRequest, name: string) => Number(req.query.get(name));

const fake: SimulatorDefinition = {
  provider: 'samsara',
  account: (req) => /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1],
  error: (kind, _req, extra) => ({
    status: STATUS[kind],
    headers: Object.fromEntries(extra?.retryAfterSeconds !== undefined ? [['Retry-After', String(extra.retryAfterSeconds)]] : []),
    body: { kind, message: extra?.message ?? kind },
  }),
  rateLimits: (req, account) => (req.path === '/limited' ? [{ key: `token:${account}`, ratePerSecond: 20, burst: 3 }] : []),
  recordsOf: (body) => (typeof body === 'object' && body !== null && Array.isArray((body as { data?: unknown }).data) ? (body as { data: unknown[] }).data : undefined),
  matchKey: (req) => req.path,
  async handle(req, ctx) {
    const { fleet } = ctx;
    switch (req.path) {
      case '/vehicles': {
        const all = fleet.vehicles().map((v) => ({ id: String(v.index), name: v.name, vin: v.vin, serial: v.serialNumber }));
        const offset = num(req, 'offset') || 0;
        const page = pageWithScenario(all, offset, 5, findScenario(ctx.scenarios(), 'duplicate_and_reorder'), `${ctx.account}:${offset}`);
        return json({ data: page });
      }
      case '/state':
        return json({ data: [fleet.stateAt(num(req, 'vehicle'), num(req, 't') || ctx.clock.now())] });
      case '/history': {
        const v = num(req, 'vehicle');
        return json({ data: fleet.sampleTimes(v, num(req, 'from'), num(req, 'to'), 60_000).map((t) => ({ t })) });
      }
      case '/serial':
        return json({ serial: fleet.deviceSerial(num(req, 'vehicle'), num(req, 't')) });
      case '/limited':
      case '/trips':
        return json({ data: [] });
      case '/throw':
        throw new Error('handler bug');
      default:
        return { status: 404, body: { message: 'not found' } };
    }
  },
};

const NOW = EPOCH + 30 * DAY + 12 * 3_600_000;
const accounts = ['tok-basic', 'tok-limit', 'tok-storm', 'tok-5xx', 'tok-slow', 'tok-trunc', 'tok-revoke', 'tok-perm', 'tok-field', 'tok-dup', 'tok-late', 'tok-odo', 'tok-swap', 'tok-ctl', 'tok-stats'];
let sim: RunningSimulator;
const clock = fixedClock(NOW);
const fleet = createFleet({ seed: 'kit', vehicles: 12 });

const call = (token: string | undefined, path: string, init: RequestInit = {}) =>
  fetch(`${sim.url}${path}`, { ...init, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(init.headers as Record<string, string>) } });
const control = (path: string, method = 'GET', body?: unknown) =>
  fetch(`${sim.url}/_sim${path}`, { method, ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}) });
const statuses = async (token: string, path: string, n: number) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await call(token, path)).status);
  return out;
};

beforeAll(async () => {
  sim = await startSimulator(fake, { port: 0, fleet, clock, accounts: accounts.map((id) => ({ id })), controlApi: true });
});
afterAll(async () => {
  await sim.close();
});

describe('simulator kit', () => {
  it('identifies the account from the request, else answers the dialect 401', async () => {
    expect((await call(undefined, '/vehicles')).status).toBe(401);
    const unknown = await call('nope', '/vehicles');
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toEqual({ kind: 'unauthorized', message: 'unauthorized' });
    const ok = await call('tok-basic', '/vehicles');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toContain('application/json');
    expect(((await ok.json()) as { data: unknown[] }).data).toHaveLength(5);
    expect(sim.requestCount('tok-basic')).toBe(1);
    expect((await call('tok-basic', '/vehicles', { method: 'POST', body: '{nope' })).status).toBe(400);
    const bug = await call('tok-basic', '/throw');
    expect(bug.status).toBe(500);
    expect(await bug.json()).toEqual({ kind: 'server_error', message: 'handler bug' });
  });

  it('rate limits with token buckets and Retry-After, then recovers', async () => {
    expect(await statuses('tok-limit', '/limited', 3)).toEqual([200, 200, 200]);
    const limited = await call('tok-limit', '/limited');
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(0.05);
    expect((await call('tok-limit', '/vehicles')).status).toBe(200); // other routes have no bucket
    await new Promise((r) => setTimeout(r, 120));
    expect((await call('tok-limit', '/limited')).status).toBe(200);
  });

  it('counts the requests its rate limits refused in the control API', async () => {
    const counted = async () => ((await (await control('/accounts/tok-limit/scenarios')).json()) as { rateLimited: number }).rateLimited;
    const before = await counted();
    // Ten at once against a bucket of burst 3: some are refused, whatever the machine's speed.
    const answers = await Promise.all(Array.from({ length: 10 }, () => call('tok-limit', '/limited').then((r) => r.status)));
    const refused = answers.filter((s) => s === 429).length;
    expect(refused).toBeGreaterThan(0);
    expect((await counted()) - before).toBe(refused);
  });

  it('rate_limit_storm answers 429 with the given Retry-After for N requests', async () => {
    sim.setScenarios('tok-storm', [{ kind: 'rate_limit_storm', requests: 2, retryAfterSeconds: 7 }]);
    const first = await call('tok-storm', '/vehicles');
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('7');
    expect(sim.scenarios('tok-storm')).toEqual([{ kind: 'rate_limit_storm', requests: 1, retryAfterSeconds: 7 }]);
    expect(await statuses('tok-storm', '/vehicles', 2)).toEqual([429, 200]);
    expect(sim.scenarios('tok-storm')).toEqual([]);
    // A storm's 429s are the scenario's, not the rate limits': not counted as rate-limited.
    expect(((await (await control('/accounts/tok-storm/scenarios')).json()) as { rateLimited: number }).rateLimited).toBe(0);
  });

  it('server_errors answers the given status for N requests', async () => {
    sim.setScenarios('tok-5xx', [{ kind: 'server_errors', requests: 2, status: 503 }]);
    expect(await statuses('tok-5xx', '/vehicles', 3)).toEqual([503, 503, 200]);
  });

  it('slow delays responses, and hang never answers', async () => {
    sim.setScenarios('tok-slow', [{ kind: 'slow', requests: 1, delayMs: 300 }]);
    const started = Date.now();
    expect((await call('tok-slow', '/vehicles')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    sim.setScenarios('tok-slow', [{ kind: 'slow', requests: 1, delayMs: 0, hang: true }]);
    await expect(call('tok-slow', '/vehicles', { signal: AbortSignal.timeout(400) })).rejects.toThrow();
    expect((await call('tok-slow', '/vehicles')).status).toBe(200);
  });

  it('a hung request ends when the simulator closes', async () => {
    const own = await startSimulator(fake, { port: 0, fleet, clock, accounts: [{ id: 'h' }], controlApi: false });
    own.setScenarios('h', [{ kind: 'slow', requests: 1, delayMs: 0, hang: true }]);
    const pending = fetch(`${own.url}/vehicles`, { headers: { authorization: 'Bearer h' } });
    await new Promise((r) => setTimeout(r, 100));
    await own.close();
    await expect(pending).rejects.toThrow();
  });

  it('truncated_json cuts the body in half', async () => {
    sim.setScenarios('tok-trunc', [{ kind: 'truncated_json', requests: 1 }]);
    const whole = await (await call('tok-basic', '/vehicles')).text();
    const cut = await call('tok-trunc', '/vehicles');
    expect(cut.status).toBe(200);
    const text = await cut.text();
    expect(text.length).toBe(Math.floor(Buffer.byteLength(whole) / 2));
    expect(() => JSON.parse(text)).toThrow();
    expect(() => JSON.parse(whole)).not.toThrow();
    expect(JSON.parse(await (await call('tok-trunc', '/vehicles')).text())).toHaveProperty('data');
  });

  it('revoke_credential revokes after N successful requests; clearing restores', async () => {
    sim.setScenarios('tok-revoke', [{ kind: 'revoke_credential', afterRequests: 2 }]);
    expect(await statuses('tok-revoke', '/vehicles', 4)).toEqual([200, 200, 401, 401]);
    const body = await (await call('tok-revoke', '/vehicles')).json();
    expect(body).toEqual({ kind: 'unauthorized', message: 'credential revoked' });
    expect(((await (await control('/accounts/tok-revoke/scenarios')).json()) as { revoked: boolean }).revoked).toBe(true);
    expect((await control('/accounts/tok-revoke/scenarios', 'DELETE')).status).toBe(204);
    expect((await call('tok-revoke', '/vehicles')).status).toBe(200);
  });

  it('missing_permission answers 403 on matching paths only', async () => {
    sim.setScenarios('tok-perm', [{ kind: 'missing_permission', pathPrefix: '/trips' }]);
    expect((await call('tok-perm', '/trips')).status).toBe(403);
    expect((await call('tok-perm', '/vehicles')).status).toBe(200);
  });

  it('field_change renames and retypes a field in every record of matching responses', async () => {
    sim.setScenarios('tok-field', [
      { kind: 'field_change', pathPrefix: '/vehicles', field: 'vin', renameTo: 'vehicleVin' },
      { kind: 'field_change', pathPrefix: '/vehicles', field: 'id', retypeTo: 'number' },
      { kind: 'field_change', pathPrefix: '/state', field: 'odometerM', retypeTo: 'string' },
    ]);
    const { data } = (await (await call('tok-field', '/vehicles')).json()) as { data: Array<Record<string, unknown>> };
    for (const record of data) {
      expect(record).not.toHaveProperty('vin');
      expect(record).toHaveProperty('vehicleVin');
      expect(typeof record.id).toBe('number');
    }
    const state = (await (await call('tok-field', '/state?vehicle=0')).json()) as { data: Array<{ odometerM: unknown }> };
    expect(typeof state.data[0]?.odometerM).toBe('string');
  });

  it('duplicate_and_reorder repeats the previous page tail and shuffles, deterministically', async () => {
    const plain = (await (await call('tok-dup', '/vehicles?offset=5')).json()) as { data: Array<{ id: string }> };
    sim.setScenarios('tok-dup', [{ kind: 'duplicate_and_reorder', overlap: 2 }]);
    const page = (await (await call('tok-dup', '/vehicles?offset=5')).json()) as { data: Array<{ id: string }> };
    const again = (await (await call('tok-dup', '/vehicles?offset=5')).json()) as { data: Array<{ id: string }> };
    expect(page.data.map((r) => r.id).sort()).toEqual(['3', '4', ...plain.data.map((r) => r.id)].sort());
    expect(page.data.map((r) => r.id)).not.toEqual(['3', '4', ...plain.data.map((r) => r.id)]);
    expect(again).toEqual(page);
  });

  it('late_history hides a window until the clock passes availableAt', async () => {
    const from = NOW - DAY;
    const window = { fromMs: NOW - 6 * 3_600_000, toMs: NOW - 3_600_000 };
    sim.setScenarios('tok-late', [{ kind: 'late_history', ...window, availableAtMs: NOW + 3_600_000 }]);
    const times = async () => ((await (await call('tok-late', `/history?vehicle=1&from=${from}&to=${NOW}`)).json()) as { data: Array<{ t: number }> }).data.map((x) => x.t);
    const hidden = await times();
    expect(hidden.length).toBeGreaterThan(0);
    expect(hidden.some((t) => t >= window.fromMs && t < window.toMs)).toBe(false);
    expect((await control('/clock', 'PUT', { nowMs: NOW + 2 * 3_600_000 })).status).toBe(200);
    try {
      const shown = await times();
      expect(shown.some((t) => t >= window.fromMs && t < window.toMs)).toBe(true);
      expect(shown).toEqual(fleet.sampleTimes(1, from, NOW, 60_000));
    } finally {
      clock.set({ nowMs: NOW });
    }
  });

  it('odometer_reset drops the odometer and continues from there', async () => {
    const atMs = NOW - 2 * DAY;
    const odometer = async (t: number) => ((await (await call('tok-odo', `/state?vehicle=0&t=${t}`)).json()) as { data: Array<{ odometerM: number }> }).data[0]?.odometerM;
    sim.setScenarios('tok-odo', [{ kind: 'odometer_reset', vehicleIndex: 0, atMs, toMeters: 1000 }]);
    expect(await odometer(atMs - 1)).toBe(fleet.stateAt(0, atMs - 1).odometerM);
    expect(await odometer(atMs)).toBe(1000);
    const later = fleet.stateAt(0, NOW).odometerM ?? 0;
    expect(await odometer(NOW)).toBe(1000 + later - (fleet.stateAt(0, atMs).odometerM ?? 0));
    expect(await odometer(NOW)).toBeGreaterThan(1000);
  });

  it('device_swap changes the device serial from atMs', async () => {
    const atMs = NOW - DAY;
    sim.setScenarios('tok-swap', [{ kind: 'device_swap', vehicleIndex: 2, atMs }]);
    const serial = async (t: number) => ((await (await call('tok-swap', `/serial?vehicle=2&t=${t}`)).json()) as { serial: string }).serial;
    const original = fleet.vehicle(2).serialNumber;
    expect(await serial(atMs - 1)).toBe(original);
    const swapped = await serial(atMs);
    expect(swapped).not.toBe(original);
    expect(swapped).toMatch(/^SY[A-Z0-9]{10}$/);
    const { data } = (await (await call('tok-swap', '/vehicles')).json()) as { data: Array<{ id: string; serial: string }> };
    expect(data.find((v) => v.id === '2')?.serial).toBe(swapped);
    const other = (await (await call('tok-basic', '/vehicles')).json()) as { data: Array<{ id: string; serial: string }> };
    expect(other.data.find((v) => v.id === '2')?.serial).toBe(original);
  });

  it('control API: list, validate, 404 unknown accounts, clock get/set', async () => {
    expect((await control('/accounts/tok-ctl/scenarios', 'PUT', [{ kind: 'rate_limit_storm', requests: 0 }])).status).toBe(400);
    expect((await control('/accounts/tok-ctl/scenarios', 'PUT', { kind: 'slow' })).status).toBe(400);
    expect((await control('/accounts/nobody/scenarios')).status).toBe(404);
    const put = await control('/accounts/tok-ctl/scenarios', 'PUT', [{ kind: 'server_errors', requests: 1, status: 502 }]);
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ account: 'tok-ctl', revoked: false, scenarios: [{ kind: 'server_errors', requests: 1, status: 502 }] });
    expect((await call('tok-ctl', '/vehicles')).status).toBe(502);
    const list = (await (await control('/accounts')).json()) as { accounts: Array<{ account: string; requests: number }> };
    expect(list.accounts.find((a) => a.account === 'tok-ctl')?.requests).toBe(1);
    expect(await (await control('/clock')).json()).toEqual({ nowMs: NOW, now: new Date(NOW).toISOString(), factor: 0 });
    const set = await control('/clock', 'PUT', { now: '2025-03-01T00:00:00Z' });
    expect(((await set.json()) as { nowMs: number }).nowMs).toBe(Date.UTC(2025, 2, 1));
    expect((await control('/clock', 'PUT', { factor: -2 })).status).toBe(400);
    clock.set({ nowMs: NOW });
    expect((await control('/nowhere')).status).toBe(404);
  });

  it('control API: stats count answers per account and path (429s included), skip unknown tokens, reset', async () => {
    expect((await control('/stats', 'DELETE')).status).toBe(204);
    // A storm makes the 429s deterministic (the token buckets depend on wall time).
    sim.setScenarios('tok-stats', [{ kind: 'rate_limit_storm', requests: 1, retryAfterSeconds: 1 }]);
    expect(await statuses('tok-stats', '/vehicles', 4)).toEqual([429, 200, 200, 200]);
    expect((await call('tok-stats', '/state?vehicle=0')).status).toBe(200);
    expect((await call('nope', '/vehicles')).status).toBe(401);
    const { accounts: counted } = (await (await control('/stats')).json()) as { accounts: Record<string, TrafficCounts & { paths: Record<string, TrafficCounts> }> };
    expect(Object.keys(counted)).toEqual(['tok-stats']);
    const mine = counted['tok-stats']!;
    expect(mine).toMatchObject({ requests: 5, rateLimited: 1, byStatus: { '200': 4, '429': 1 } });
    expect(mine.paths['/vehicles']).toMatchObject({ requests: 4, rateLimited: 1, byStatus: { '200': 3, '429': 1 } });
    expect(mine.paths['/state']).toMatchObject({ requests: 1, rateLimited: 0, byStatus: { '200': 1 } });
    expect(mine.firstAtMs).toBeLessThanOrEqual(mine.lastAtMs!);
    expect((await control('/stats', 'PUT', {})).status).toBe(405);
    expect((await control('/stats', 'DELETE')).status).toBe(204);
    expect(await (await control('/stats')).json()).toEqual({ accounts: {} });
  });

  it('stats: paths past MAX_STATS_PATHS are counted under (other)', () => {
    let now = 1_000;
    const stats = new TrafficStats(() => now++);
    for (let i = 0; i < MAX_STATS_PATHS + 5; i++) stats.record('a', `/v/${i}`, i % 2 ? 429 : 200);
    const { a } = stats.view().accounts;
    expect(Object.keys(a!.paths)).toHaveLength(MAX_STATS_PATHS + 1);
    expect(a!.paths['(other)']).toMatchObject({ requests: 5 });
    expect(a).toMatchObject({ requests: MAX_STATS_PATHS + 5, firstAtMs: 1_000, lastAtMs: 1_000 + MAX_STATS_PATHS + 4 });
    expect(a!.rateLimited).toBe(Math.floor((MAX_STATS_PATHS + 5) / 2));
  });

  it('without controlApi the /_sim routes belong to the provider dialect', async () => {
    const plain = await startSimulator(fake, { port: 0, fleet, clock, accounts: [{ id: 'p' }], controlApi: false });
    try {
      expect((await fetch(`${plain.url}/_sim/clock`)).status).toBe(401);
    } finally {
      await plain.close();
    }
  });
});
