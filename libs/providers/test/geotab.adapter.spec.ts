/**
 * The Geotab adapter over a scripted MyGeotab (JSON-RPC over real HTTP), for per-record tolerance
 * (issue 17: 6): each resource's `ok/one-malformed-record.json` has one malformed record among good
 * ones. The good ones map, the bad one is in the page's `skipped` with its id and reason, and the
 * page succeeds; a malformed result or a page whose every record of a kind fails is still
 * `provider_response_changed`. Mutations tried: parseRecords throwing on any skipped record (the
 * old all-or-nothing parse) fails the single-call rows; PageRecords.settle throwing on any skipped
 * record fails the ExecuteMultiCall rows (history, latest).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page, ProviderAdapter } from '../src/adapter.js';
import { createGeotabAdapter } from '../src/geotab/geotab.adapter.js';
import type { Clock } from '../src/http/request-budget.js';
import { loadFixture, type GeotabFixtureResource } from './geotab-fixtures.js';

interface Call {
  method: string;
  params: Record<string, unknown> & { typeName?: string; search?: Record<string, unknown>; calls?: Call[] };
}

/** typeName → the fixture body served for Get / GetFeed of it; a missing one answers an empty result. */
const served = new Map<string, unknown>();
const seen: Call[] = [];
let server: Server;
let baseUrl: string;

const refId = (ref: unknown): unknown => (typeof ref === 'object' && ref !== null ? (ref as { id?: unknown }).id : ref);

/** A Get's result: the fixture's rows, narrowed by deviceSearch and diagnosticSearch ids (as MyGeotab would). */
function getResult(params: Call['params']): unknown {
  const body = served.get(params.typeName ?? '') as { result?: unknown } | undefined;
  if (body === undefined) return [];
  const feed = (body.result as { data?: unknown } | undefined)?.data;
  if (!Array.isArray(body.result) && !Array.isArray(feed)) return body.result; // served as is: a malformed result
  const rows = (Array.isArray(body.result) ? body.result : feed) as Record<string, unknown>[];
  const device = refId(params.search?.['deviceSearch']);
  const diagnostic = refId(params.search?.['diagnosticSearch']);
  return rows.filter((r) => (device === undefined || refId(r['device']) === device) && (diagnostic === undefined || refId(r['diagnostic']) === diagnostic));
}

function answer(call: Call): unknown {
  if (call.method === 'Authenticate') return { credentials: { database: 'acme', sessionId: 'S1', userName: 'svc' }, path: 'ThisServer' };
  if (call.method === 'GetFeed') return (served.get(call.params.typeName ?? '') as { result?: unknown } | undefined)?.result ?? { data: [], toVersion: '0000000000000001' };
  if (call.method === 'ExecuteMultiCall') return (call.params.calls ?? []).map(answer);
  return getResult(call.params);
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const call = JSON.parse(text) as Call;
      seen.push(call);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ result: answer(call) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  served.clear();
  seen.length = 0;
});

const clock: Clock = { now: () => Date.parse('2024-09-02T00:00:00Z'), sleep: async () => undefined };
const adapter = () => createGeotabAdapter({ provider: 'geotab', baseUrl, credentials: { database: 'acme', userName: 'svc', password: 'pw' }, clock, retry: { maxAttempts: 1 } });
const serve = (typeName: string, resource: GeotabFixtureResource) => served.set(typeName, loadFixture(resource, 'ok', 'one-malformed-record'));
const DAY = { from: '2024-09-01T00:00:00Z', to: '2024-09-02T00:00:00Z' };
const idOf = (r: unknown): string => {
  const o = r as { sourceId?: string; vehicleSourceId?: string; metric?: string };
  return o.metric ? `${o.vehicleSourceId}:${o.metric}` : (o.sourceId ?? String(o.vehicleSourceId));
};

describe('Geotab adapter: a malformed record is skipped with a reason, not the page', () => {
  type Row = [what: string, setup: () => void, read: (a: ProviderAdapter) => Promise<Page<unknown>>, mapped: string[], skipped: unknown[]];
  const rows: Row[] = [
    ['Device (vehicles)', () => serve('Device', 'device'), (a) => a.vehicles(), ['b1', 'b3'], [{ sourceId: 'b2', reason: expect.stringMatching(/^geotab:GetFeed:Device data\.1\.licensePlate: /) }]],
    ['User (drivers)', () => serve('User', 'user'), (a) => a.drivers(), ['u1', 'u3'], [{ sourceId: 'u2', reason: expect.stringMatching(/^geotab:GetFeed:User data\.1\.isDriver: /) }]],
    ['Group', () => serve('Group', 'group'), (a) => a.groups(), ['GroupCompanyId', 'bA', 'bC'], [{ sourceId: 'bB', reason: expect.stringMatching(/^geotab:Get:Group 2\.children: /) }]],
    [
      'Trip',
      () => serve('Trip', 'trip'),
      (a) => a.trips({ ...DAY, vehicleSourceIds: ['b1'] }),
      ['t1', 't3'],
      [{ sourceId: 't2', reason: 'geotab:Get:Trip 1.start: expected an RFC 3339 date-time' }],
    ],
    [
      'LogRecord + StatusData (history)',
      () => (serve('LogRecord', 'log-record'), serve('StatusData', 'status-data')),
      (a) => a.telemetryHistory({ ...DAY, metrics: ['location', 'speed', 'odometer', 'engineHours'], vehicleSourceIds: ['b1'] }),
      ['b1:location', 'b1:speed', 'b1:location', 'b1:speed', 'b1:odometer', 'b1:engineHours'],
      [
        { sourceId: 'l2', reason: expect.stringMatching(/^geotab:Get:LogRecord 1\.latitude: /) },
        { sourceId: 's2', reason: expect.stringMatching(/^geotab:Get:StatusData 1\.data: /) },
      ],
    ],
    [
      'DeviceStatusInfo (latest, one call per device)',
      () => serve('DeviceStatusInfo', 'device-status-info'),
      (a) => a.latestTelemetry({ metrics: ['location'], vehicleSourceIds: ['b1', 'b2', 'b3'] }),
      ['b1:location', 'b3:location'],
      [{ sourceId: 'b2', reason: expect.stringMatching(/^geotab:Get:DeviceStatusInfo 0\.dateTime: /) }],
    ],
    ['FaultData (feed)', () => serve('FaultData', 'fault-data'), (a) => a.faults({}), ['f1', 'f3'], [{ sourceId: 'f2', reason: 'geotab:GetFeed:FaultData data.1.dateTime: expected an RFC 3339 date-time' }]],
  ];

  it.each(rows)('%s: the good records map, the bad one is skipped', async (_what, setup, read, mapped, skipped) => {
    setup();
    const page = await read(adapter());
    expect(page.items.map(idOf)).toEqual(mapped);
    expect(page.skipped).toEqual(skipped);
  });

  it('the good records keep their values and units', async () => {
    serve('Trip', 'trip');
    serve('LogRecord', 'log-record');
    serve('StatusData', 'status-data');
    const trips = await adapter().trips({ ...DAY, vehicleSourceIds: ['b1'] });
    expect(trips.items.map((t) => [t.sourceId, t.distanceKm.value, t.distanceBasis, t.durationMs])).toEqual([
      ['t1', 52.5, 'provider_reported', 3_600_000],
      ['t3', 12.25, 'provider_reported', 1_800_000],
    ]);
    const history = await adapter().telemetryHistory({ ...DAY, metrics: ['speed', 'odometer', 'engineHours'], vehicleSourceIds: ['b1'] });
    expect(history.items.map((o) => [o.metric, o.value])).toEqual([
      ['speed', { value: 20 }], // 72 km/h
      ['speed', { value: 0 }],
      ['odometer', { meters: 412_345_678.5 }],
      ['engineHours', { seconds: 36_025_200 }],
    ]);
  });

  it('a result that is not an array, or a page whose every record of a kind fails, is provider_response_changed', async () => {
    served.set('Group', { result: { groups: [] } });
    await expect(adapter().groups()).rejects.toMatchObject({ code: 'provider_response_changed', detail: { path: 'geotab:Get:Group' } });
    served.set('DeviceStatusInfo', { result: [{ device: { id: 'b1' }, latitude: 1 }, { device: { id: 'b2' }, latitude: 2 }] });
    await expect(adapter().latestTelemetry({ metrics: ['location'], vehicleSourceIds: ['b1', 'b2'] })).rejects.toMatchObject({
      code: 'provider_response_changed',
      detail: { path: 'geotab:Get:DeviceStatusInfo', message: expect.stringContaining('0.dateTime') },
    });
  });

  it('skipped records still count for paging: a full feed page with a bad record asks for more', async () => {
    serve('Device', 'device');
    const page = await createGeotabAdapter({ provider: 'geotab', baseUrl, credentials: { database: 'acme', userName: 'svc', password: 'pw' }, clock, pageSizes: { entityFeed: 3 } }).vehicles();
    expect(page.items).toHaveLength(2);
    expect(page.next).not.toBeNull();
  });
});
