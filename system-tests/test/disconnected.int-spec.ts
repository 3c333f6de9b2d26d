/**
 * A disconnected connection has its local access disabled (spec 3; decision 0013), observed over
 * HTTP against a real gateway, directory and sync-orchestrator, every response validated against
 * the committed OpenAPI document:
 * - every connection-scoped route of the document answers 404 `not_found`, byte-for-byte the answer
 *   for a connection the key holds no grant on, and every sync route (reads of past syncs
 *   included) 403 `connection_forbidden`, byte-for-byte the answer without a grant — decided from
 *   the gateway's own connection row, before any projection has heard of the change;
 * - a refused call changes nothing (a refused cancel leaves the sync open);
 * - a paused connection stays fully readable, and cancel keeps working (spec 4.1 rule 4);
 * - re-activating restores access, while read and sync-list cursors issued before the disconnect
 *   stay `invalid_cursor` (a pause and resume, by contrast, keeps them valid).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { driverId, groupId, tripId, vehicleId, type ConnectionConfig } from '@switchyard/domain';
import { loadOpenApi, pollUntil } from '@switchyard/testing';
import { driverRecord, directorySql, ingest, readConnection, tripRecord, vehicleRecord } from './reads-fixture.js';
import { groupRecord } from './groups-fixture.js';
import { bearer, startTestGateway, type TestGateway } from './support.js';
import { COLLECTING, createSyncApp, waitForConfig, type SyncApp } from './syncs-fixture.js';

type Res = Awaited<ReturnType<TestGateway['call']>>;

let gw: TestGateway;
let conn: string;
let elsewhere: string;
let key: Record<string, string>;
let app: SyncApp;
let ungrantedApp: SyncApp;
let syncIds: string[];

const WINDOW = 'startTime=2026-11-01T00:00:00Z&endTime=2026-11-02T00:00:00Z';

/** One concrete request per connection-scoped path template of the document, on connection `c`. */
const connectionRoutes = (c: string): Record<string, string> => {
  const at = (sourceId: string) => ({ connectionId: c, provider: 'samsara' as const, sourceId });
  const base = `/v1/connections/${c}`;
  return {
    '/v1/connections/{id}': base,
    '/v1/connections/{id}/capabilities': `${base}/capabilities`,
    '/v1/connections/{id}/drivers': `${base}/drivers`,
    '/v1/connections/{id}/drivers/{driverId}': `${base}/drivers/${driverId(at('d1'))}`,
    '/v1/connections/{id}/groups': `${base}/groups`,
    '/v1/connections/{id}/groups/{groupId}': `${base}/groups/${groupId(at('g1'))}`,
    '/v1/connections/{id}/trips': `${base}/trips`,
    '/v1/connections/{id}/trips/{tripId}': `${base}/trips/${tripId(at('t1'))}`,
    '/v1/connections/{id}/vehicles': `${base}/vehicles?view=profiles`,
    '/v1/connections/{id}/vehicles/{vehicleId}': `${base}/vehicles/${vehicleId(at('v1'))}?scope=directory`,
    '/v1/connections/{id}/vehicles/{vehicleId}/metadata': `${base}/vehicles/${vehicleId(at('v1'))}/metadata`,
    '/v1/connections/{id}/vehicles/{vehicleId}/telemetry': `${base}/vehicles/${vehicleId(at('v1'))}/telemetry`,
    '/v1/connections/{id}/vehicles/{vehicleId}/history': `${base}/vehicles/${vehicleId(at('v1'))}/history?metric=odometer&${WINDOW}`,
    '/v1/connections/{id}/locations': `${base}/locations`,
    '/v1/connections/{id}/vehicles/{vehicleId}/distance': `${base}/vehicles/${vehicleId(at('v1'))}/distance?${WINDOW}`,
    '/v1/connections/{id}/vehicles/{vehicleId}/engine-hours': `${base}/vehicles/${vehicleId(at('v1'))}/engine-hours?${WINDOW}`,
    '/v1/connections/{id}/vehicles/{vehicleId}/idling': `${base}/vehicles/${vehicleId(at('v1'))}/idling?${WINDOW}`,
    '/v1/connections/{id}/vehicles/{vehicleId}/utilization': `${base}/vehicles/${vehicleId(at('v1'))}/utilization?${WINDOW}`,
    '/v1/connections/{id}/utilization': `${base}/utilization?${WINDOW}`,
    '/v1/connections/{id}/vehicles/{vehicleId}/profile': `${base}/vehicles/${vehicleId(at('v1'))}/profile`,
    '/v1/connections/{id}/vehicles/{vehicleId}/identity': `${base}/vehicles/${vehicleId(at('v1'))}/identity`,
    '/v1/connections/{id}/vehicles/{vehicleId}/images': `${base}/vehicles/${vehicleId(at('v1'))}/images`,
    '/v1/connections/{id}/vehicles/{vehicleId}/specifications': `${base}/vehicles/${vehicleId(at('v1'))}/specifications`,
    '/v1/connections/{id}/vehicles/{vehicleId}/build': `${base}/vehicles/${vehicleId(at('v1'))}/build`,
    '/v1/connections/{id}/faults': `${base}/faults`,
    '/v1/connections/{id}/fault-events': `${base}/fault-events`,
    '/v1/connections/{id}/freshness': `${base}/freshness`,
  };
};

/**
 * Connection-scoped routes whose disconnected answer is checked in their own suites because they
 * change state (a POST, or a GET of what such a POST created): the connect-session routes and
 * disconnect — apps/gateway/test/connect-sessions.int-spec.ts, "a disconnected connection" — and
 * the refresh, which asks the provider.
 */
const COVERED_ELSEWHERE = new Set([
  'POST /v1/connections/{id}/connect-sessions',
  'GET /v1/connections/{id}/connect-sessions/{sessionId}',
  'POST /v1/connections/{id}/disconnect',
  // Contacts the provider and claims a 30 s slot: system-tests/test/telemetry-refresh.int-spec.ts, "a disconnected connection".
  'POST /v1/connections/{id}/vehicles/{vehicleId}/refresh',
]);

const syncRoutes = (): [string, string][] => [
  ['POST', '/v1/syncs'],
  ['GET', '/v1/syncs'],
  ['GET', `/v1/syncs/${syncIds[0]}`],
  ['POST', `/v1/syncs/${syncIds[0]}/retry`],
  ['POST', `/v1/syncs/${syncIds[1]}/cancel`],
];

/** Headers that differ per response by nature; everything else must be identical. */
const comparable = (res: Res) => ({
  status: res.status,
  text: res.text,
  headers: [...res.headers.entries()].filter(([n]) => !['x-request-id', 'date'].includes(n)),
});

const get = (path: string, headers: Record<string, string> = key) => gw.call('GET', path, { headers });

/** Changes the status on the gateway and waits until the directory and the orchestrator hold it too. */
async function setStatus(status: ConnectionConfig['status']): Promise<void> {
  const config = await gw.connections.configure(conn, { status });
  await waitForConfig(gw, config);
  await pollUntil(
    async () => (await directorySql<{ revision: number }>(gw, (t) => `select revision from ${t('connection_config')} where connection_id = ?::uuid`, [conn]))[0]?.revision === config.revision,
    { timeoutMs: 15_000, description: `config revision ${config.revision} in the directory` },
  );
}

async function expectEveryConnectionRoute(status: 200 | 404): Promise<void> {
  const mine = connectionRoutes(conn);
  const theirs = connectionRoutes(elsewhere);
  for (const [template, path] of Object.entries(mine)) {
    const res = await get(path);
    if (status === 200) {
      expect({ template, status: res.status }).toEqual({ template, status: 200 });
      continue;
    }
    // Not a byte of the connection's data: exactly the answer for a connection without a grant.
    expect({ template, ...comparable(res) }).toEqual({ template, ...comparable(await get(theirs[template]!)) });
    expect({ template, status: res.status, text: res.text }).toEqual({ template, status: 404, text: '{"error":"not_found"}' });
  }
}

beforeAll(async () => {
  // Enrichment without a vendor: its vendor products are `disabled`, identity is decoded offline.
  gw = await startTestGateway({ directory: true, syncOrchestrator: true, telemetryIngest: true, faultFeed: true, enrichment: {}, rpcTimeoutMs: 10_000 });
  conn = await readConnection(gw, { ...COLLECTING, approvedVehicleIds: ['v1', 'v2'], optIns: { groupInventory: false, vehicleMetadata: true, extendedTelemetry: false } });
  await waitForConfig(gw, (await gw.connections.get(conn))!);
  elsewhere = (await gw.connections.create({ customerId: 'cust-other', provider: 'samsara', environment: 'sandbox' })).connectionId;
  const k = await gw.credentials.createConsumerKey('everything');
  await gw.credentials.grantConsumer(k.id, conn, ['read', 'manage', 'history']);
  key = bearer(k.token);

  const now = new Date().toISOString();
  await ingest(gw, conn, 'groups', [groupRecord('g1', now)]);
  await ingest(gw, conn, 'vehicles', [vehicleRecord('v1', now), vehicleRecord('v2', now)]);
  await ingest(gw, conn, 'drivers', [driverRecord('d1', now)]);
  await ingest(gw, conn, 'trips', [tripRecord('t1', 'v1', '2026-11-01T08:00:00.000Z', now), tripRecord('t2', 'v1', '2026-11-01T10:00:00.000Z', now)]);
  // Enrichment learns the vehicle from the directory's VIN and visibility events.
  const profile = `/v1/connections/${conn}/vehicles/${vehicleId({ connectionId: conn, provider: 'samsara', sourceId: 'v1' })}/profile`;
  await pollUntil(async () => (await get(profile)).status === 200, { timeoutMs: 30_000, description: 'the enrichment context knows v1' });

  app = await createSyncApp(gw, conn);
  ungrantedApp = await createSyncApp(gw, conn, { operations: [], history: false, name: 'no grant' });
  syncIds = [];
  for (let i = 0; i < 2; i++) {
    const res = await gw.call('POST', '/v1/syncs', { headers: app.headers });
    expect(res.status).toBe(201);
    syncIds.push((res.body as { id: string }).id);
  }
}, 90_000);

afterAll(async () => {
  await gw?.close();
});

describe('a disconnected connection (local access disabled)', () => {
  it('covers every connection-scoped route of the OpenAPI document', () => {
    const documented = Object.entries(loadOpenApi().paths as Record<string, Record<string, unknown>>)
      .filter(([path]) => path.startsWith('/v1/connections/{id}'))
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
      .filter((route) => !COVERED_ELSEWHERE.has(route));
    expect(documented.sort()).toEqual(Object.keys(connectionRoutes(conn)).map((t) => `GET ${t}`).sort());
  });

  it('serves every route while active', async () => {
    await expectEveryConnectionRoute(200);
    expect((await get(`/v1/connections/${conn}`)).body).toMatchObject({ id: conn, status: 'active' });
    for (const path of ['/v1/syncs', `/v1/syncs/${syncIds[0]}`]) expect((await gw.call('GET', path, { headers: app.headers })).status).toBe(200);
  });

  it('stays fully readable while paused, and cancel keeps working (spec 4.1 rule 4)', async () => {
    await setStatus('paused');
    await expectEveryConnectionRoute(200);
    expect((await get(`/v1/connections/${conn}`)).body).toMatchObject({ id: conn, status: 'paused' });
    expect((await gw.call('GET', '/v1/syncs', { headers: app.headers })).body).toMatchObject({ syncs: [{ id: syncIds[1] }, { id: syncIds[0] }] });
    expect(await gw.call('GET', `/v1/syncs/${syncIds[0]}`, { headers: app.headers })).toMatchObject({ status: 200, body: { id: syncIds[0], status: 'requested' } });
    // Collection is stopped, so create is refused by the collection gate, not by authorization.
    expect(await gw.call('POST', '/v1/syncs', { headers: app.headers })).toMatchObject({ status: 503, body: { error: 'gate_disabled' } });
    expect(await gw.call('POST', `/v1/syncs/${syncIds[0]}/cancel`, { headers: app.headers })).toMatchObject({ status: 200, body: { id: syncIds[0], message: 'Sync cancellation requested' } });
    await setStatus('active');
  });

  it('answers 404 on every connection route and 403 on every sync route, decided from the gateway row alone', async () => {
    // No outbox flush: neither the directory nor the orchestrator has heard of the disconnect.
    await gw.connections.configure(conn, { status: 'disconnected' });
    await expectEveryConnectionRoute(404);
    for (const [method, path] of syncRoutes()) {
      const res = await gw.call(method, path, { headers: app.headers });
      const ungranted = await gw.call(method, path, { headers: ungrantedApp.headers });
      expect({ method, path, ...comparable(res) }).toEqual({ method, path, ...comparable(ungranted) });
      expect({ method, path, status: res.status, text: res.text }).toEqual({ method, path, status: 403, text: '{"error":"connection_forbidden"}' });
    }
  });

  it('still authenticates first: a wrong credential is 401, not a hint that the connection exists', async () => {
    expect(await get(`/v1/connections/${conn}`, bearer(`pt_${'A'.repeat(52)}`))).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
    expect(await gw.call('GET', '/v1/syncs', { headers: { ...app.headers, authorization: `Bearer sk_sandbox_${'A'.repeat(52)}` } })).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
  });

  it('restores access on re-activation; the refused calls changed nothing', async () => {
    await setStatus('active');
    await expectEveryConnectionRoute(200);
    // The retry and cancel refused while disconnected never reached the orchestrator.
    expect((await gw.call('GET', `/v1/syncs/${syncIds[0]}`, { headers: app.headers })).body).toMatchObject({ id: syncIds[0], status: 'failed', attempts: 1 });
    expect((await gw.call('GET', `/v1/syncs/${syncIds[1]}`, { headers: app.headers })).body).toMatchObject({ id: syncIds[1], status: 'requested' });
    expect((await gw.call('POST', `/v1/syncs/${syncIds[1]}/cancel`, { headers: app.headers })).status).toBe(200);
  });
});

describe('cursors across a disconnect', () => {
  const tripsPage = (query: string) => get(`/v1/connections/${conn}/trips${query}`);
  const syncsPage = (query: string) => gw.call('GET', `/v1/syncs${query}`, { headers: app.headers });
  const nextOf = (res: Res) => {
    expect(res.status).toBe(200);
    const next = (res.body as { next?: unknown }).next;
    expect(next).toEqual(expect.stringMatching(/^[A-Za-z0-9_-]+$/));
    return next as string;
  };

  it('keeps cursors valid across a pause and resume', async () => {
    const readCursor = nextOf(await tripsPage('?limit=1'));
    const syncCursor = nextOf(await syncsPage('?limit=1'));
    await setStatus('paused');
    await setStatus('active');
    expect((await tripsPage(`?limit=1&cursor=${readCursor}`)).body).toMatchObject({ results: [{ sourceId: 't2' }] });
    expect((await syncsPage(`?limit=1&cursor=${syncCursor}`)).body).toMatchObject({ syncs: [{ id: expect.any(String) }] });
  });

  it('refuses cursors issued before a disconnect, while disconnected and after re-activation', async () => {
    const readCursor = nextOf(await tripsPage('?limit=1'));
    const syncCursor = nextOf(await syncsPage('?limit=1'));
    await setStatus('disconnected');
    expect(await tripsPage(`?limit=1&cursor=${readCursor}`)).toMatchObject({ status: 404, text: '{"error":"not_found"}' });
    expect(await syncsPage(`?limit=1&cursor=${syncCursor}`)).toMatchObject({ status: 403, text: '{"error":"connection_forbidden"}' });
    await setStatus('active');
    expect(await tripsPage(`?limit=1&cursor=${readCursor}`)).toMatchObject({ status: 400, body: { error: 'invalid_cursor' } });
    expect(await syncsPage(`?limit=1&cursor=${syncCursor}`)).toMatchObject({ status: 400, body: { error: 'invalid_cursor' } });
    // A walk started after re-activation works.
    expect((await tripsPage(`?limit=1&cursor=${nextOf(await tripsPage('?limit=1'))}`)).body).toMatchObject({ results: [{ sourceId: 't2' }] });
    expect((await syncsPage(`?limit=1&cursor=${nextOf(await syncsPage('?limit=1'))}`)).status).toBe(200);
  });
});
