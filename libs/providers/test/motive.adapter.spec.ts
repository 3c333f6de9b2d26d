import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page, ProviderAdapter } from '../src/adapter.js';
import type { Clock } from '../src/http/request-budget.js';
import { createMotiveAdapter } from '../src/motive/motive.adapter.js';
import { MotiveClient } from '../src/motive/motive.client.js';
import { motiveSchemas } from '../src/motive/index.js';
import { motiveFixture, type MotiveFixtureResource } from './motive-fixtures.js';

/** A scripted Motive: a handler per path, every request recorded. */
type Handler = (url: URL, headers: IncomingHttpHeaders) => { status?: number; body: unknown; delayMs?: number };
const routes = new Map<string, Handler>();
const seen: Array<{ url: URL; headers: IncomingHttpHeaders }> = [];
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    seen.push({ url, headers: req.headers });
    const out = routes.get(url.pathname)?.(url, req.headers) ?? { status: 404, body: { error_message: 'not found' } };
    setTimeout(() => {
      res.writeHead(out.status ?? 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(out.body));
    }, out.delayMs ?? 0);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  routes.clear();
  seen.length = 0;
});

const clock: Clock = { now: () => Date.parse('2024-09-02T00:00:00Z'), sleep: async () => undefined };
const adapter = () => createMotiveAdapter({ provider: 'motive', baseUrl, credentials: { apiKey: 'k-123' }, clock, retry: { maxAttempts: 2 } });
const vehicle = (id: number) => ({ vehicle: { id, number: `T${id}`, status: 'active' } });

/** Serves `total` vehicles in pages, optionally lying about total or repeating the previous page's tail. */
function vehiclesRoute(total: number, opts: { reportedTotal?: number; overlap?: number } = {}): void {
  routes.set('/v1/vehicles', (url) => {
    const per = Number(url.searchParams.get('per_page'));
    const page = Number(url.searchParams.get('page_no'));
    const start = (page - 1) * per;
    const ids = Array.from({ length: Math.max(0, Math.min(per, total - start)) }, (_, i) => start + i + 1);
    const repeated = page > 1 && opts.overlap ? Array.from({ length: opts.overlap }, (_, i) => start - i) : [];
    return { body: { vehicles: [...repeated, ...ids].map(vehicle), pagination: { per_page: per, page_no: page, total: opts.reportedTotal ?? total } } };
  });
}

async function drain<T>(call: (cursor: string | null) => Promise<{ items: readonly T[]; next: string | null }>): Promise<{ items: T[]; calls: number }> {
  const items: T[] = [];
  let cursor: string | null = null;
  let calls = 0;
  do {
    const page = await call(cursor);
    calls++;
    items.push(...page.items);
    cursor = page.next;
  } while (cursor !== null && calls < 50);
  return { items, calls };
}

describe('Motive adapter over HTTP (scripted server)', () => {
  it('sends X-Api-Key and X-Metric-Units: true with per_page 100 on every request', async () => {
    vehiclesRoute(3);
    await adapter().vehicles(null);
    expect(seen[0].headers['x-api-key']).toBe('k-123');
    expect(seen[0].headers['x-metric-units']).toBe('true');
    expect(seen[0].url.searchParams.get('per_page')).toBe('100');
    expect(seen[0].url.searchParams.get('page_no')).toBe('1');
  });

  it('terminates pagination from pagination.total (250 → 3 pages)', async () => {
    vehiclesRoute(250);
    const { items, calls } = await drain((c) => adapter().vehicles(c));
    expect(calls).toBe(3);
    expect(items.map((v) => v.sourceId)).toEqual(Array.from({ length: 250 }, (_, i) => String(i + 1)));
  });

  it('stops on an empty page when total overstates the rows', async () => {
    vehiclesRoute(100, { reportedTotal: 1000 });
    const { items, calls } = await drain((c) => adapter().vehicles(c));
    expect(calls).toBe(2);
    expect(items).toHaveLength(100);
  });

  it('drops rows repeated from the previous page (offset drift)', async () => {
    vehiclesRoute(230, { overlap: 3 });
    const { items } = await drain((c) => adapter().vehicles(c));
    expect(items.map((v) => v.sourceId)).toEqual(Array.from({ length: 230 }, (_, i) => String(i + 1)));
  });

  it('refuses a cursor it did not make', async () => {
    await expect(adapter().vehicles('not-a-cursor')).rejects.toMatchObject({ code: 'provider_config_invalid' });
  });

  it('metric_units: false is a display preference: trips stay km, locations stay km and km/h, no probe', async () => {
    routes.set('/v1/driving_periods', () => ({
      body: {
        driving_periods: [
          { driving_period: { id: 1, start_time: '2024-09-01T06:00:00Z', end_time: '2024-09-01T07:00:00Z', duration: 3600, start_kilometers: 100, end_kilometers: 110, driver: null, vehicle: { id: 4, metric_units: false } } },
          { driving_period: { id: 2, start_time: '2024-09-01T08:00:00Z', end_time: null, duration: null, start_kilometers: 110, end_kilometers: null, vehicle: { id: 4, metric_units: false } } },
        ],
        pagination: { per_page: 100, page_no: 1, total: 2 },
      },
    }));
    routes.set('/v1/vehicle_locations', () => ({
      body: { vehicles: [{ vehicle: { id: 4, metric_units: false, current_location: { located_at: '2024-09-01T07:00:00Z', lat: 1, lon: 2, speed: 36, odometer: 110 } } }], pagination: { per_page: 100, page_no: 1, total: 1 } },
    }));
    const a = adapter();
    const trips = await a.trips({ from: '2024-09-01T00:00:00Z', to: '2024-09-02T00:00:00Z' });
    expect(trips.items).toHaveLength(1); // the ongoing period is excluded
    expect(trips.items[0]).toMatchObject({ distanceKm: { value: 10 }, durationMs: 3_600_000, distanceBasis: 'odometer', driverSourceId: null });
    expect(seen[0].url.searchParams.get('start_date')).toBe('2024-09-01');
    expect(seen[0].url.searchParams.get('end_date')).toBe('2024-09-01');
    seen.length = 0;
    const latest = await a.latestTelemetry({ metrics: ['odometer', 'speed'] });
    expect(latest.items.map((o) => [o.metric, o.value])).toEqual([
      ['odometer', { meters: 110_000 }],
      ['speed', { value: 10 }],
    ]);
    expect(latest.items[0].units).toEqual({ source: 'kilometers', normalized: 'meters', factor: 1000 });
    expect(seen.map((r) => r.url.pathname)).toEqual(['/v1/vehicle_locations']);
  });

  it('reads a window over 30 days in ≤ 30-day driving-period slices with a resumable cursor, each period once', async () => {
    const overlap = { id: 7, start_time: '2024-03-30T23:00:00Z', end_time: '2024-03-31T01:00:00Z', duration: 7200, start_kilometers: 1, end_kilometers: 3, vehicle: { id: 4 } };
    routes.set('/v1/driving_periods', (url) => {
      const start = url.searchParams.get('start_date') ?? '';
      const end = url.searchParams.get('end_date') ?? '';
      if (Date.parse(end) - Date.parse(start) > 30 * 86_400_000) return { status: 400, body: { error_message: 'Date range cannot be greater than 30 days' } };
      const page = Number(url.searchParams.get('page_no'));
      const own = { id: Date.parse(start) / 86_400_000 + page, start_time: `${start}T12:00:00Z`, end_time: `${start}T13:00:00Z`, duration: 3600, start_kilometers: 1, end_kilometers: 2, vehicle: { id: 4 } };
      // The period crossing the 2024-03-30/31 slice boundary is listed by both slices (overlap semantics are unconfirmed).
      const rows = page === 1 && (start === '2024-03-01' || start === '2024-03-31') ? [own, overlap] : [own];
      return { body: { driving_periods: rows.map((driving_period) => ({ driving_period })), pagination: { per_page: 2, page_no: page, total: start === '2024-04-30' ? 1 : 3 } } };
    });
    const a = adapter();
    const { items, calls } = await drain((cursor) => a.trips({ from: '2024-03-01T00:00:00Z', to: '2024-05-15T00:00:00Z', cursor }));
    expect(seen.map((r) => `${r.url.searchParams.get('start_date')}..${r.url.searchParams.get('end_date')}#${r.url.searchParams.get('page_no')}`)).toEqual([
      '2024-03-01..2024-03-30#1', '2024-03-01..2024-03-30#2',
      '2024-03-31..2024-04-29#1', '2024-03-31..2024-04-29#2',
      '2024-04-30..2024-05-14#1',
    ]);
    expect(calls).toBe(5);
    expect(items.filter((t) => t.sourceId === '7')).toHaveLength(1); // reported by the slice holding its start day only
    expect(items.map((t) => t.startedAt)).toContain('2024-04-30T12:00:00.000Z');
  });

  it('walks history per vehicle, page and date chunk, keeping only the window', async () => {
    routes.set('/v3/vehicle_locations/4', (url) => ({
      body: {
        vehicle_locations: [
          { vehicle_location: { id: `a-${url.searchParams.get('start_date')}`, located_at: `${url.searchParams.get('start_date')}T12:00:00Z`, lat: 1, lon: 2 } },
          { vehicle_location: { id: 'early', located_at: '2024-01-01T00:00:00Z', lat: 1, lon: 2 } },
        ],
      },
    }));
    routes.set('/v3/vehicle_locations/5', () => ({ body: { vehicle_locations: [] } }));
    const a = adapter();
    const { items, calls } = await drain((cursor) => a.telemetryHistory({ from: '2024-03-01T00:00:00Z', to: '2024-07-01T00:00:00Z', metrics: ['location'], vehicleSourceIds: ['4', '5'], cursor }));
    expect(calls).toBe(4); // 122 days → 2 chunks of ≤ 90 days, per vehicle
    expect(items.map((o) => o.observedAt)).toEqual(['2024-03-01T12:00:00.000Z', '2024-05-30T12:00:00.000Z']);
    expect(seen.map((r) => `${r.url.pathname} ${r.url.searchParams.get('start_date')}..${r.url.searchParams.get('end_date')}`)).toEqual([
      '/v3/vehicle_locations/4 2024-03-01..2024-05-29',
      '/v3/vehicle_locations/4 2024-05-30..2024-06-30',
      '/v3/vehicle_locations/5 2024-03-01..2024-05-29',
      '/v3/vehicle_locations/5 2024-05-30..2024-06-30',
    ]);
  });

  it('keeps at most 10 v3 history calls in flight', async () => {
    routes.set('/v3/vehicle_locations/1', () => ({ body: { vehicle_locations: [] }, delayMs: 20 }));
    const client = new MotiveClient({ provider: 'motive', baseUrl, credentials: { apiKey: 'k' } });
    await Promise.all(Array.from({ length: 25 }, () => client.historyPage('/v3/vehicle_locations/1', motiveSchemas.historyEnvelope, 1, {})));
    expect(client.v3Slots.peak).toBe(10);
  });

  it('scans every fault page before building complete snapshots', async () => {
    routes.set('/v1/fault_codes', (url) => {
      const page = Number(url.searchParams.get('page_no'));
      const f = (id: number, vehicleId: number, status: string) => ({ fault_code: { id, code: `P0${id}`, status, network: 'obdii', vehicle: { id: vehicleId, metric_units: true } } });
      const pages = [[f(1, 4, 'open'), f(2, 5, 'closed')], [f(3, 4, 'open'), f(1, 4, 'open')]];
      return { body: { fault_codes: pages[page - 1] ?? [], pagination: { per_page: 2, page_no: page, total: 4 } } };
    });
    const res = await adapter().faults({});
    expect(res.next).toBeNull();
    expect(res.items.map((s) => 'active' in s && [s.vehicleSourceId, s.active.map((x) => x.code)])).toEqual([
      ['4', ['P01', 'P03']],
      ['5', []],
    ]);
  });

  it('maps auth failures to reason codes', async () => {
    routes.set('/v1/groups', () => ({ status: 401, body: { error_message: 'bad key' } }));
    await expect(adapter().groups(null)).rejects.toMatchObject({ code: 'provider_auth_required' });
  });
});

/**
 * Per-record tolerance (issue 17: 6): each resource's `ok/one-malformed-record.json` has one malformed
 * record among good ones. The good ones map, the bad one is in `skipped` with its id and reason, and
 * the page succeeds. Mutation tried: parseMotiveList back to a whole-envelope parse (every row fails
 * the page) — each row of this table fails.
 */
describe('Motive adapter: a malformed record is skipped with a reason, not the page', () => {
  const noGroups = { groups: [], pagination: { per_page: 100, page_no: 1, total: 0 } };
  const DAY = { from: '2024-09-01T00:00:00Z', to: '2024-09-02T00:00:00Z' };
  type Row = [resource: MotiveFixtureResource, path: string, read: (a: ProviderAdapter) => Promise<Page<unknown>>, mapped: unknown[], skipped: unknown[]];
  const idOf = (r: unknown) => (r as { sourceId?: string }).sourceId ?? (r as { vehicleSourceId: string }).vehicleSourceId;
  const rows: Row[] = [
    ['vehicles', '/v1/vehicles', (a) => a.vehicles(null), ['4', '6'], [{ sourceId: '5', reason: expect.stringMatching(/^\/v1\/vehicles vehicles\.1\.vehicle\.id: /) }]],
    ['users', '/v1/users', (a) => a.drivers(null), ['11', '13'], [{ sourceId: null, reason: expect.stringMatching(/^\/v1\/users users\.1\.user: /) }]],
    ['groups', '/v1/groups', (a) => a.groups(null), ['6', '8'], [{ sourceId: '7', reason: expect.stringMatching(/^\/v1\/groups groups\.1\.group\.parent_id: /) }]],
    [
      'vehicle-locations',
      '/v1/vehicle_locations',
      (a) => a.latestTelemetry({ metrics: ['odometer'] }),
      ['4', '6'],
      [{ sourceId: '5', reason: expect.stringMatching(/^\/v1\/vehicle_locations vehicles\.1\.vehicle\.current_location\.located_at: /) }],
    ],
    [
      'vehicle-locations-v3',
      '/v3/vehicle_locations/4',
      (a) => a.telemetryHistory({ ...DAY, metrics: ['odometer'], vehicleSourceIds: ['4'] }),
      ['4', '4'],
      [{ sourceId: '77', reason: expect.stringMatching(/^\/v3\/vehicle_locations\/4 vehicle_locations\.1\.vehicle_location\.id: /) }],
    ],
    [
      'driving-periods',
      '/v1/driving_periods',
      (a) => a.trips(DAY),
      ['98231', '98234'],
      [
        { sourceId: '98232', reason: expect.stringMatching(/^\/v1\/driving_periods driving_periods\.1\.driving_period\.start_time: /) },
        { sourceId: '98233', reason: '/v1/driving_periods driving_period 98233: start_time/end_time not RFC 3339' },
      ],
    ],
    [
      'fault-codes',
      '/v1/fault_codes',
      (a) => a.faults({}),
      ['4', '6'],
      [{ sourceId: '5', reason: expect.stringMatching(/^\/v1\/fault_codes fault_codes\.1\.fault_code\.status: .*, so the snapshot cannot be complete$/) }],
    ],
  ];

  it.each(rows)('%s: the good records map, the bad one is skipped', async (resource, path, read, mapped, skipped) => {
    routes.set(path, () => ({ body: motiveFixture(resource, 'ok', 'one-malformed-record') }));
    if (path !== '/v1/groups') routes.set('/v1/groups', () => ({ body: noGroups }));
    const page = await read(adapter());
    expect(page.items.map(idOf)).toEqual(mapped);
    expect(page.skipped).toEqual(skipped);
  });

  it('the good records keep their values and units', async () => {
    routes.set('/v1/driving_periods', () => ({ body: motiveFixture('driving-periods', 'ok', 'one-malformed-record') }));
    routes.set('/v1/fault_codes', () => ({ body: motiveFixture('fault-codes', 'ok', 'one-malformed-record') }));
    const trips = await adapter().trips(DAY);
    expect(trips.items.map((t) => [t.sourceId, t.distanceKm.value, t.distanceBasis])).toEqual([
      ['98231', 140, 'odometer'],
      ['98234', 25.5, 'odometer'],
    ]);
    const faults = await adapter().faults({});
    expect(faults.items.map((s) => 'active' in s && [s.vehicleSourceId, s.active.map((f) => f.faultKey)])).toEqual([
      ['4', ['obdii:P0420']],
      ['6', []],
    ]);
  });

  it('a malformed envelope, or a page whose every record fails, is still provider_response_changed', async () => {
    routes.set('/v1/vehicles', () => ({ body: { vehicles: { vehicle: { id: 4 } }, pagination: { per_page: 100, page_no: 1, total: 1 } } }));
    await expect(adapter().vehicles(null)).rejects.toMatchObject({ code: 'provider_response_changed', detail: { path: '/v1/vehicles', message: expect.stringContaining('vehicles') } });
    routes.set('/v1/vehicles', () => ({ body: { vehicles: [{ vehicle: { id: '4' } }, { vehicle: { id: '5' } }], pagination: { per_page: 100, page_no: 1, total: 2 } } }));
    await expect(adapter().vehicles(null)).rejects.toMatchObject({ code: 'provider_response_changed', detail: { message: expect.stringContaining('vehicles.0.vehicle.id') } });
  });

  it('a skipped record still counts for paging: a page of 100 with one bad record asks for the next page', async () => {
    routes.set('/v1/vehicles', (url) => {
      const page = Number(url.searchParams.get('page_no'));
      const ids = page === 1 ? Array.from({ length: 100 }, (_, i) => i + 1) : [101];
      return { body: { vehicles: ids.map((id) => ({ vehicle: { id: id === 50 ? 'x' : id, number: `T${id}` } })), pagination: { per_page: 100, page_no: page, total: 101 } } };
    });
    const { items, calls } = await drain((c) => adapter().vehicles(c));
    expect(calls).toBe(2);
    expect(items).toHaveLength(100);
  });
});
