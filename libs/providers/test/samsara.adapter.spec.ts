// The Samsara client and adapter against a scripted local HTTP server: bearer auth, cursor
// pagination across lanes (driver passes, stat type groups, id chunks), resumable cursors, error mapping.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProviderAdapter } from '../src/adapter.js';
import type { Clock } from '../src/http/request-budget.js';
import { createSamsaraAdapter } from '../src/samsara/samsara.adapter.js';
import { decodeLaneCursor, encodeLaneCursor } from '../src/samsara/samsara.cursor.js';

interface Scripted {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}
type Route = (url: URL) => Scripted;
const routes = new Map<string, Route>();
const seen: { url: URL; auth: string | undefined }[] = [];
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    seen.push({ url, auth: req.headers.authorization });
    const reply = routes.get(url.pathname)?.(url) ?? { status: 404, body: { message: 'not found', requestId: 'r1' } };
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
    res.end(JSON.stringify(reply.body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  routes.clear();
  seen.length = 0;
});

function fakeClock(): Clock & { sleeps: number[] } {
  let now = Date.parse('2024-09-01T18:10:00Z');
  const sleeps: number[] = [];
  return { sleeps, now: () => now, sleep: async (ms) => void (sleeps.push(ms), (now += ms)) };
}
const adapter = (clock = fakeClock(), retry = { maxAttempts: 3 }): ProviderAdapter =>
  createSamsaraAdapter({ provider: 'samsara', baseUrl, credentials: { apiToken: 'tok-123' }, clock, retry, random: () => 0 });

/** Serves `items` in pages of `size`, cursor = base64 offset, `""` at the end. */
const paged =
  (items: (url: URL) => unknown[], size: number): Route =>
  (url) => {
    const all = items(url);
    const offset = url.searchParams.get('after') ? Number(Buffer.from(url.searchParams.get('after')!, 'base64').toString()) : 0;
    const end = offset + size;
    return { body: { data: all.slice(offset, end), pagination: { endCursor: end < all.length ? Buffer.from(String(end)).toString('base64') : '', hasNextPage: end < all.length } } };
  };

async function drain<T>(fetchPage: (cursor: string | null) => Promise<{ items: readonly T[]; next: string | null }>): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await fetchPage(cursor);
    items.push(...page.items);
    cursor = page.next;
    pages++;
  } while (cursor !== null);
  return { items, pages };
}

describe('Samsara adapter paging', () => {
  it('follows endCursor with limit=512 and the bearer token until hasNextPage is false', async () => {
    const vehicles = Array.from({ length: 7 }, (_, i) => ({ id: String(100 + i), name: `V${i}`, createdAtTime: '2024-01-01T00:00:00Z' }));
    routes.set('/fleet/vehicles', paged(() => vehicles, 3));
    const { items, pages } = await drain((c) => adapter().vehicles(c));
    expect(pages).toBe(3);
    expect(items.map((v) => v.sourceId)).toEqual(vehicles.map((v) => v.id));
    expect(seen.every((s) => s.auth === 'Bearer tok-123' && s.url.searchParams.get('limit') === '512')).toBe(true);
    expect(seen.map((s) => s.url.searchParams.get('after'))).toEqual([null, 'Mw==', 'Ng==']);
  });

  it('lists drivers once per activation status and resumes from a persisted cursor', async () => {
    routes.set(
      '/fleet/drivers',
      paged((url) => (url.searchParams.get('driverActivationStatus') === 'active' ? [{ id: 'a1' }, { id: 'a2' }, { id: 'a3' }] : [{ id: 'd1' }]), 2),
    );
    const first = await adapter().drivers(null);
    expect(first.items.map((d) => d.sourceId)).toEqual(['a1', 'a2']);
    // A new adapter instance (another process) continues from the cursor alone.
    const { items } = await drain((c) => adapter().drivers(c ?? first.next));
    expect(items.map((d) => [d.sourceId, d.status.value])).toEqual([
      ['a3', 'active'],
      ['d1', 'inactive'],
    ]);
    expect(seen.map((s) => s.url.searchParams.get('driverActivationStatus'))).toEqual(['active', 'active', 'deactivated']);
  });

  it('requests stats in groups of ≤ 3 types and vehicle ids in chunks of 50', async () => {
    routes.set('/fleet/vehicles/stats/history', (url) => ({
      body: {
        data: url.searchParams
          .get('vehicleIds')!
          .split(',')
          .slice(0, 1)
          .map((id) => ({ id, batteryMilliVolts: [{ time: '2024-09-01T10:00:00Z', value: 12_600 }] })),
        pagination: { endCursor: '', hasNextPage: false },
      },
    }));
    const ids = Array.from({ length: 51 }, (_, i) => String(i + 1));
    const { items, pages } = await drain((cursor) =>
      adapter().telemetryHistory({ from: '2024-09-01T00:00:00Z', to: '2024-09-02T00:00:00Z', metrics: ['batteryVoltage', 'odometer', 'location', 'engineState'], vehicleSourceIds: ids, cursor }),
    );
    expect(pages).toBe(4); // 2 id chunks × 2 type groups
    expect(seen.map((s) => [s.url.searchParams.get('types'), s.url.searchParams.get('vehicleIds')!.split(',').length])).toEqual([
      ['gps,obdOdometerMeters,gpsOdometerMeters', 50],
      ['batteryMilliVolts,engineStates', 50],
      ['gps,obdOdometerMeters,gpsOdometerMeters', 1],
      ['batteryMilliVolts,engineStates', 1],
    ]);
    expect(items.filter((o) => o.metric === 'batteryVoltage').map((o) => o.vehicleSourceId)).toEqual(['1', '51']);
    expect(seen[0]?.url.searchParams.get('startTime')).toBe('2024-09-01T00:00:00Z');
  });

  // Issue 31: the current snapshot's value carries the time the vehicle last reported a change
  // (here a month old); the snapshot is the set active at our read, so it is observed at the read.
  // mutation: mapFaultSnapshots without readAt in faults() → observedAt 2024-08-01 and this fails.
  it('a current fault snapshot is observed at the read (its fetch time, or the `to` asked for), a history point at its own time', async () => {
    const point = { time: '2024-08-01T06:00:00Z', obdDtcs: [{ txId: 0, confirmedDtcs: [{ dtcShortCode: 'P0420' }] }] };
    routes.set('/fleet/vehicles/stats', () => ({ body: { data: [{ id: '7', faultCodes: point }], pagination: { endCursor: '', hasNextPage: false } } }));
    routes.set('/fleet/vehicles/stats/history', () => ({ body: { data: [{ id: '7', faultCodes: [point] }], pagination: { endCursor: '', hasNextPage: false } } }));
    const current = await adapter().faults({ vehicleSourceIds: ['7'] });
    expect(current.items.map((s) => [s.observedAt, s.fetchedAt])).toEqual([['2024-09-01T18:10:00.000Z', '2024-09-01T18:10:00.000Z']]);
    const asOf = await adapter().faults({ vehicleSourceIds: ['7'], to: '2024-09-01T12:00:00Z' });
    expect(asOf.items.map((s) => s.observedAt)).toEqual(['2024-09-01T12:00:00.000Z']);
    const history = await adapter().faults({ vehicleSourceIds: ['7'], from: '2024-07-01T00:00:00Z', to: '2024-09-01T00:00:00Z' });
    expect(history.items.map((s) => s.observedAt)).toEqual(['2024-08-01T06:00:00.000Z']);
  });

  it('refuses a cursor it did not issue as provider_config_invalid', async () => {
    await expect(adapter().vehicles('not-a-cursor')).rejects.toMatchObject({ code: 'provider_config_invalid' });
    await expect(adapter().vehicles(encodeLaneCursor({ l: 3, a: null }))).rejects.toMatchObject({ code: 'provider_config_invalid' });
    expect(decodeLaneCursor(encodeLaneCursor({ l: 1, a: 'x==' }), 2)).toEqual({ l: 1, a: 'x==' });
  });

  it('enriches stream trips with legacy distance and driver, one legacy call per vehicle', async () => {
    routes.set('/trips/stream', () => ({
      body: {
        data: [
          { asset: { id: '7' }, completionStatus: 'completed', tripStartTime: '2024-09-01T06:00:00Z', tripEndTime: '2024-09-01T07:00:00Z', startLocation: { latitude: 1, longitude: 2 } },
          { asset: { id: '7' }, completionStatus: 'completed', tripStartTime: '2024-09-01T08:00:00Z', tripEndTime: '2024-09-01T09:00:00Z' },
          { asset: { id: '7' }, completionStatus: 'completed', tripStartTime: '2024-09-02T00:00:00Z', tripEndTime: '2024-09-02T01:00:00Z' },
        ],
        pagination: { endCursor: '', hasNextPage: false },
      },
    }));
    routes.set('/v1/fleet/trips', () => ({
      body: { trips: [{ startMs: Date.parse('2024-09-01T06:00:00Z'), endMs: Date.parse('2024-09-01T07:00:00Z'), distanceMeters: 5000, driverId: 42 }] },
    }));
    const page = await adapter().trips({ from: '2024-09-01T00:00:00Z', to: '2024-09-02T00:00:00Z', vehicleSourceIds: ['7'] });
    expect(page.items.map((t) => [t.sourceId, t.driverSourceId, t.distanceKm.value, t.distanceBasis])).toEqual([
      [`7:${Date.parse('2024-09-01T06:00:00Z')}`, '42', 5, 'gps'],
      [`7:${Date.parse('2024-09-01T08:00:00Z')}`, null, null, null],
    ]); // the trip starting exactly at `to` is outside [from, to)
    const stream = seen.find((s) => s.url.pathname === '/trips/stream')!.url.searchParams;
    expect(Object.fromEntries(stream)).toMatchObject({ queryBy: 'tripStartTime', completionStatus: 'completed', ids: '7' });
    expect(seen.filter((s) => s.url.pathname === '/v1/fleet/trips').map((s) => s.url.searchParams.get('vehicleId'))).toEqual(['7']);
  });

  // Mutation tried: sending the stream request without `ids` when none were given (the fallback
  // removed) gets the scripted 404 → provider_config_invalid and fails this test.
  it('a trips call without vehicle ids lists the fleet first and asks /trips/stream with every id (ids is required)', async () => {
    routes.set('/fleet/vehicles', paged(() => [{ id: '9', name: 'nine' }, { id: '7', name: 'seven' }], 1));
    routes.set('/trips/stream', (url) =>
      url.searchParams.get('ids')
        ? { body: { data: [{ asset: { id: '7' }, completionStatus: 'completed', tripStartTime: '2024-09-01T06:00:00Z', tripEndTime: '2024-09-01T07:00:00Z' }], pagination: { endCursor: '', hasNextPage: false } } }
        : { status: 404, body: { message: 'ids is required', requestId: 'r2' } },
    );
    routes.set('/v1/fleet/trips', () => ({ body: { trips: [] } }));
    const page = await adapter().trips({ from: '2024-09-01T00:00:00Z', to: '2024-09-02T00:00:00Z' });
    expect(page.items.map((t) => t.vehicleSourceId)).toEqual(['7']);
    expect(seen.filter((s) => s.url.pathname === '/trips/stream').map((s) => s.url.searchParams.get('ids'))).toEqual(['7,9']);
  });

  // Mutation tried: dropping the legacy skips (`page.skipped.forEach(skip)` removed) fails this test.
  it('a malformed legacy trip costs only its stream trip the enrichment and is reported; every one malformed is a response change', async () => {
    routes.set('/trips/stream', () => ({
      body: {
        data: [
          { asset: { id: '7' }, completionStatus: 'completed', tripStartTime: '2024-09-01T06:00:00Z', tripEndTime: '2024-09-01T07:00:00Z' },
          { asset: { id: '7' }, completionStatus: 'completed', tripStartTime: '2024-09-01T08:00:00Z', tripEndTime: '2024-09-01T09:00:00Z' },
        ],
        pagination: { endCursor: '', hasNextPage: false },
      },
    }));
    const good = { startMs: Date.parse('2024-09-01T06:00:00Z'), endMs: Date.parse('2024-09-01T07:00:00Z'), startOdometer: 1000, endOdometer: 6000, driverId: 42 };
    const bad = { startMs: '2024-09-01T08:00:00Z', endMs: Date.parse('2024-09-01T09:00:00Z'), driverId: 43 };
    routes.set('/v1/fleet/trips', () => ({ body: { trips: [good, bad] } }));
    const window = { from: '2024-09-01T00:00:00Z', to: '2024-09-02T00:00:00Z', vehicleSourceIds: ['7'] };
    const page = await adapter().trips(window);
    expect(page.items.map((t) => [t.driverSourceId, t.distanceKm.value, t.distanceBasis])).toEqual([
      ['42', 5, 'odometer'],
      [null, null, null],
    ]);
    expect(page.skipped).toEqual([{ sourceId: '7', reason: expect.stringMatching(/^\/v1\/fleet\/trips trips\.1\.startMs: /) }]);
    routes.set('/v1/fleet/trips', () => ({ body: { trips: [bad] } }));
    await expect(adapter().trips(window)).rejects.toMatchObject({ code: 'provider_response_changed', detail: { path: '/v1/fleet/trips' } });
  });
});

describe('Samsara adapter errors', () => {
  const error = { message: 'nope', requestId: 'req-1' };
  it.each([
    [401, 'provider_auth_required'],
    [403, 'provider_scope_mismatch'],
    [404, 'provider_config_invalid'],
  ])('HTTP %i → %s without retrying', async (status, code) => {
    routes.set('/tags', () => ({ status, body: error }));
    await expect(adapter().groups()).rejects.toMatchObject({ code, detail: { status } });
    expect(seen).toHaveLength(1);
  });

  it('waits the fractional Retry-After of a 429 and succeeds; gives up as provider_throttled', async () => {
    let calls = 0;
    routes.set('/tags', () =>
      ++calls <= 2 ? { status: 429, headers: { 'retry-after': '0.25' }, body: error } : { body: { data: [{ id: '1', name: 'x' }], pagination: { endCursor: '', hasNextPage: false } } },
    );
    const clock = fakeClock();
    expect((await adapter(clock).groups()).items).toHaveLength(1);
    expect(clock.sleeps).toEqual([250, 250]);
    calls = -10;
    await expect(adapter(fakeClock(), { maxAttempts: 2 }).groups()).rejects.toMatchObject({ code: 'provider_throttled', detail: { status: 429, retryAfterMs: 250 } });
  });

  it('5xx is retried, then provider_unavailable', async () => {
    routes.set('/tags', () => ({ status: 503, body: error }));
    await expect(adapter().groups()).rejects.toMatchObject({ code: 'provider_unavailable' });
    expect(seen).toHaveLength(3);
  });

  it('one malformed record is skipped with its id and reason; the rest of the page is mapped', async () => {
    routes.set('/fleet/vehicles/stats', () => ({
      body: {
        data: [
          { id: '1', obdOdometerMeters: { time: '2024-09-01T00:00:00Z', value: 12 } },
          { id: '2', obdOdometerMeters: { time: '2024-09-01T00:00:00Z', value: '12' } },
        ],
        pagination: { endCursor: '', hasNextPage: false },
      },
    }));
    const page = await adapter().latestTelemetry({ metrics: ['odometer'] });
    expect(page.items.map((o) => [o.vehicleSourceId, o.value])).toEqual([['1', { meters: 12 }]]);
    expect(page.skipped).toEqual([{ sourceId: '2', reason: '/fleet/vehicles/stats data.1.obdOdometerMeters.value: Invalid input: expected number, received string' }]);
  });

  it('a shape change is provider_response_changed and names the path, not the payload', async () => {
    routes.set('/fleet/vehicles/stats', () => ({ body: { data: [{ id: '1', obdOdometerMeters: { time: '2024-09-01T00:00:00Z', value: '12' } }], pagination: { endCursor: '', hasNextPage: false } } }));
    const failure = await adapter().latestTelemetry({ metrics: ['odometer'] }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: 'provider_response_changed', detail: { path: '/fleet/vehicles/stats', message: expect.stringContaining('data.0.obdOdometerMeters.value') } });
    expect(String((failure as Error).message)).not.toContain('tok-123');
  });
});
