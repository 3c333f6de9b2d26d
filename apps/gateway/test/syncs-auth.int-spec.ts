/**
 * Spec 5 on the sync routes: 401 for a `pt_` key or a missing Connection-Token on every route,
 * 403 for a missing operation grant, and the orchestrator's in-transaction recheck (rule 2) — a
 * grant revoked between the gateway's authentication and the orchestrator's transaction is 403,
 * a revoked application 401, and a projection that has not caught up with the credential version
 * the gateway authenticated with is 503 (evidence unavailable), never trusted.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RPCS, RpcError } from '@switchyard/messaging';
import { bearer, startTestGateway, type TestGateway } from './support.js';
import { bumpVersionWithoutEvent, createConnection, createSyncApp, credentialVersion, waitForGrants, type SyncApp } from './syncs-fixture.js';

let gw: TestGateway;
let app: SyncApp;
let syncId: string;

const ROUTES = (id: string): [string, string][] => [
  ['POST', '/v1/syncs'],
  ['GET', '/v1/syncs'],
  ['GET', `/v1/syncs/${id}`],
  ['POST', `/v1/syncs/${id}/retry`],
  ['POST', `/v1/syncs/${id}/cancel`],
];

beforeAll(async () => {
  gw = await startTestGateway({ syncOrchestrator: true, rpcTimeoutMs: 10_000 });
  app = await createSyncApp(gw, await createConnection(gw));
  const res = await gw.call('POST', '/v1/syncs', { headers: app.headers });
  expect(res.status).toBe(201);
  syncId = (res.body as { id: string }).id;
});

afterAll(async () => {
  await gw?.close();
});

async function rpcError(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcError);
  return (error as RpcError).code;
}

describe('authentication (spec 5 rules 1, 4)', () => {
  it('answers 401 to a pt_ consumer key on every sync route, even one granted on the connection', async () => {
    const key = await gw.credentials.createConsumerKey('legacy');
    await gw.credentials.grantConsumer(key.id, app.connectionId, ['read', 'manage', 'history']);
    for (const [method, path] of ROUTES(syncId)) {
      const res = await gw.call(method, path, { headers: { ...bearer(key.token), 'connection-token': app.token } });
      expect({ method, path, status: res.status, body: res.body }).toEqual({ method, path, status: 401, body: { error: 'unauthorized' } });
    }
  });

  it('answers 401 without the Connection-Token header', async () => {
    for (const [method, path] of ROUTES(syncId)) {
      expect((await gw.call(method, path, { headers: bearer(app.secret) })).status).toBe(401);
    }
  });

  it('answers 403 operation_forbidden for an operation outside the grant', async () => {
    const reader = await createSyncApp(gw, app.connectionId, { operations: ['sync.read'], name: 'reader' });
    expect(await gw.call('POST', '/v1/syncs', { headers: reader.headers })).toMatchObject({ status: 403, body: { error: 'operation_forbidden' } });
    expect(await gw.call('POST', `/v1/syncs/${syncId}/cancel`, { headers: reader.headers })).toMatchObject({ status: 403, body: { error: 'operation_forbidden' } });
    expect((await gw.call('GET', '/v1/syncs', { headers: reader.headers })).status).toBe(200);
  });
});

describe('in-transaction recheck against the grant projection (spec 5 rule 2)', () => {
  it('publishes every grant change to the orchestrator projection', async () => {
    const em = gw.orchestrator!.runtime.orm.em.fork();
    const rows = await em.execute<{ credential_version: number; grants: unknown; revoked: boolean }[]>(
      `select credential_version, grants, revoked from "${em.config.get('schema')}"."application_credential" where application_id = ?::uuid`,
      [app.id],
    );
    expect(rows).toEqual([
      {
        credential_version: await credentialVersion(gw, app.id),
        revoked: false,
        grants: [{ connectionId: app.connectionId, operations: ['sync.create', 'sync.read', 'sync.retry', 'sync.cancel'], history: true }],
      },
    ]);
  });

  it('refuses with 403 when the grant was revoked after the gateway authenticated the call', async () => {
    const victim = await createSyncApp(gw, app.connectionId, { name: 'victim' });
    const staleVersion = await credentialVersion(gw, victim.id);
    const caller = { applicationId: victim.id, connectionId: victim.connectionId, credentialVersion: staleVersion };
    // The gateway authenticated at `staleVersion`; the operation grant is withdrawn before the orchestrator's transaction.
    await gw.credentials.grantApplication(victim.id, victim.connectionId, ['sync.read'], true);
    await waitForGrants(gw, victim.id);
    expect(await rpcError(gw.bus.request(RPCS.sync.create, { caller }, { timeoutMs: 5_000 }))).toBe('operation_forbidden');
    // The whole grant withdrawn: no grant on the connection.
    await gw.credentials.grantApplication(victim.id, victim.connectionId, [], false);
    await waitForGrants(gw, victim.id);
    expect(await rpcError(gw.bus.request(RPCS.sync.create, { caller }, { timeoutMs: 5_000 }))).toBe('connection_forbidden');
    expect(await rpcError(gw.bus.request(RPCS.sync.list, { caller, limit: 5 }, { timeoutMs: 5_000 }))).toBe('connection_forbidden');
    // And over HTTP, where the gateway itself now refuses.
    expect(await gw.call('POST', '/v1/syncs', { headers: victim.headers })).toMatchObject({ status: 403, body: { error: 'connection_forbidden' } });
  });

  it('refuses with 401 when the application was revoked after the gateway authenticated the call', async () => {
    const revoked = await createSyncApp(gw, app.connectionId, { name: 'to revoke' });
    const caller = { applicationId: revoked.id, connectionId: revoked.connectionId, credentialVersion: await credentialVersion(gw, revoked.id) };
    await gw.credentials.revoke('application', revoked.id);
    await waitForGrants(gw, revoked.id);
    expect(await rpcError(gw.bus.request(RPCS.sync.create, { caller }, { timeoutMs: 5_000 }))).toBe('unauthorized');
    expect((await gw.call('GET', '/v1/syncs', { headers: revoked.headers })).status).toBe(401);
  });

  it('answers 503 while the projection lags behind the credential version the gateway authenticated with', async () => {
    const lagging = await createSyncApp(gw, app.connectionId, { name: 'lagging' });
    const created = await gw.call('POST', '/v1/syncs', { headers: lagging.headers });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    await bumpVersionWithoutEvent(gw, lagging.id);
    for (const [method, path] of ROUTES(id)) {
      const res = await gw.call(method, path, { headers: lagging.headers });
      expect({ method, path, status: res.status, body: res.body }).toEqual({ method, path, status: 503, body: { error: 'service_unavailable' } });
    }
    // The snapshot at the new version arrives: the same calls go through.
    await gw.credentials.republishApplicationSnapshots();
    await waitForGrants(gw, lagging.id);
    expect((await gw.call('GET', `/v1/syncs/${id}`, { headers: lagging.headers })).status).toBe(200);
    expect((await gw.call('POST', '/v1/syncs', { headers: lagging.headers })).status).toBe(201);
  });

  it('answers 503 for an application whose first snapshot never arrived', async () => {
    const connectionId = app.connectionId;
    const caller = { applicationId: '99999999-9999-4999-8999-999999999999', connectionId, credentialVersion: 1 };
    expect(await rpcError(gw.bus.request(RPCS.sync.get, { caller, syncId }, { timeoutMs: 5_000 }))).toBe('service_unavailable');
  });
});
