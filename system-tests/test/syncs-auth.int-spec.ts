/**
 * Spec 5 on the sync routes: 401 for a `pt_` key or a missing Connection-Token on every route,
 * 403 for a missing operation grant, and the orchestrator's in-transaction recheck (rule 2) — a
 * grant revoked between the gateway's authentication and the orchestrator's transaction is 403,
 * a revoked application or Connection-Token 401, and a projection that has not caught up with the
 * credential or token version the gateway authenticated with is 503 (evidence unavailable), never
 * trusted.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RPCS } from '@switchyard/messaging';
import { rpcErrorCode } from '@switchyard/testing';
import { bearer, startTestGateway, type TestGateway } from './support.js';
import { bumpVersionWithoutEvent, callerOf, createConnection, createSyncApp, credentialVersion, waitForGrants, type SyncApp } from './syncs-fixture.js';

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
  it('publishes every grant and Connection-Token change to the orchestrator projection', async () => {
    const projected = async (applicationId: string) => {
      const em = gw.orchestrator!.runtime.orm.em.fork();
      return em.execute<{ credential_version: number; token_version: number; grants: unknown; connection_tokens: unknown; revoked: boolean }[]>(
        `select credential_version, token_version, grants, connection_tokens, revoked from "${em.config.get('schema')}"."application_credential" where application_id = ?::uuid`,
        [applicationId],
      );
    };
    const grants = [{ connectionId: app.connectionId, operations: ['sync.create', 'sync.read', 'sync.retry', 'sync.cancel'], history: true }];
    expect(await projected(app.id)).toEqual([
      { credential_version: await credentialVersion(gw, app.id), token_version: 1, revoked: false, grants, connection_tokens: [{ id: app.tokenId, connectionId: app.connectionId }] },
    ]);
    // A second token, then the first revoked: each moves the token version, never the credential version.
    const rotating = await createSyncApp(gw, app.connectionId, { name: 'rotating' });
    const version = await credentialVersion(gw, rotating.id);
    const second = await gw.credentials.issueConnectionToken(rotating.id, rotating.connectionId);
    await gw.credentials.revoke('connection-token', rotating.tokenId);
    await waitForGrants(gw, rotating.id);
    expect(await credentialVersion(gw, rotating.id)).toBe(version);
    expect(await projected(rotating.id)).toEqual([
      { credential_version: version, token_version: 3, revoked: false, grants, connection_tokens: [{ id: second.id, connectionId: rotating.connectionId }] },
    ]);
  });

  it('refuses with 403 when the grant was revoked after the gateway authenticated the call', async () => {
    const victim = await createSyncApp(gw, app.connectionId, { name: 'victim' });
    const caller = await callerOf(gw, victim);
    // The gateway authenticated at `caller`'s versions; the operation grant is withdrawn before the orchestrator's transaction.
    await gw.credentials.grantApplication(victim.id, victim.connectionId, ['sync.read'], true);
    await waitForGrants(gw, victim.id);
    expect(await rpcErrorCode(gw.bus.request(RPCS.sync.create, { caller }, { timeoutMs: 5_000 }))).toBe('operation_forbidden');
    // The whole grant withdrawn: no grant on the connection.
    await gw.credentials.grantApplication(victim.id, victim.connectionId, [], false);
    await waitForGrants(gw, victim.id);
    expect(await rpcErrorCode(gw.bus.request(RPCS.sync.create, { caller }, { timeoutMs: 5_000 }))).toBe('connection_forbidden');
    expect(await rpcErrorCode(gw.bus.request(RPCS.sync.list, { caller, limit: 5 }, { timeoutMs: 5_000 }))).toBe('connection_forbidden');
    // And over HTTP, where the gateway itself now refuses.
    expect(await gw.call('POST', '/v1/syncs', { headers: victim.headers })).toMatchObject({ status: 403, body: { error: 'connection_forbidden' } });
  });

  it('refuses with 401 when the application was revoked after the gateway authenticated the call', async () => {
    const revoked = await createSyncApp(gw, app.connectionId, { name: 'to revoke' });
    const caller = await callerOf(gw, revoked);
    await gw.credentials.revoke('application', revoked.id);
    await waitForGrants(gw, revoked.id);
    expect(await rpcErrorCode(gw.bus.request(RPCS.sync.create, { caller }, { timeoutMs: 5_000 }))).toBe('unauthorized');
    expect((await gw.call('GET', '/v1/syncs', { headers: revoked.headers })).status).toBe(401);
  });

  it.each([
    ['credential version (a grant change)', 'credential_version' as const],
    ['token version (a Connection-Token issued or revoked)', 'token_version' as const],
  ])('answers 503 while the projection lags behind the %s the gateway authenticated with', async (_change, column) => {
    const lagging = await createSyncApp(gw, app.connectionId, { name: `lagging ${column}` });
    const created = await gw.call('POST', '/v1/syncs', { headers: lagging.headers });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    await bumpVersionWithoutEvent(gw, lagging.id, column);
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

  it('answers 503 to a caller without the Connection-Token it was authenticated with (a gateway before the token recheck)', async () => {
    const caller = await callerOf(gw, app);
    expect(await gw.bus.request(RPCS.sync.list, { caller, limit: 1 }, { timeoutMs: 5_000 })).toMatchObject({ syncs: [{ id: syncId }] });
    delete caller.connectionToken;
    expect(await rpcErrorCode(gw.bus.request(RPCS.sync.list, { caller, limit: 1 }, { timeoutMs: 5_000 }))).toBe('service_unavailable');
  });

  it('refuses with 401 when the Connection-Token was revoked after the gateway authenticated the call; a new token works', async () => {
    const holder = await createSyncApp(gw, app.connectionId, { name: 'token holder' });
    const created = await gw.call('POST', '/v1/syncs', { headers: holder.headers });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    // What the gateway sent when it accepted the token; the token is revoked before the orchestrator's transaction.
    const caller = await callerOf(gw, holder);
    await gw.credentials.revoke('connection-token', holder.tokenId);
    await waitForGrants(gw, holder.id);
    expect(await rpcErrorCode(gw.bus.request(RPCS.sync.create, { caller }, { timeoutMs: 5_000 }))).toBe('unauthorized');
    expect(await rpcErrorCode(gw.bus.request(RPCS.sync.get, { caller, syncId: id }, { timeoutMs: 5_000 }))).toBe('unauthorized');
    expect(await rpcErrorCode(gw.bus.request(RPCS.sync.list, { caller, limit: 5 }, { timeoutMs: 5_000 }))).toBe('unauthorized');
    expect(await rpcErrorCode(gw.bus.request(RPCS.sync.cancel, { caller, syncId: id }, { timeoutMs: 5_000 }))).toBe('unauthorized');
    // Over HTTP the gateway refuses the revoked token itself, on every route, with the same answer.
    for (const [method, path] of ROUTES(id)) {
      const res = await gw.call(method, path, { headers: holder.headers });
      expect({ method, path, status: res.status, body: res.body }).toEqual({ method, path, status: 401, body: { error: 'unauthorized' } });
    }
    // A new token for the same application and connection works, and sees the application's syncs.
    const fresh = await gw.credentials.issueConnectionToken(holder.id, holder.connectionId);
    await waitForGrants(gw, holder.id);
    const headers = { ...holder.headers, 'connection-token': fresh.token };
    expect(await gw.call('GET', `/v1/syncs/${id}`, { headers })).toMatchObject({ status: 200, body: { id } });
    expect((await gw.call('POST', '/v1/syncs', { headers })).status).toBe(201);
    expect((await gw.call('GET', '/v1/syncs', { headers: holder.headers })).status).toBe(401);
  });

  it('refuses with 401 a Connection-Token the application holds for another connection', async () => {
    const holder = await createSyncApp(gw, app.connectionId, { name: 'two connections' });
    const otherConnection = await createConnection(gw);
    await gw.credentials.grantApplication(holder.id, otherConnection, ['sync.read'], false);
    const elsewhere = await gw.credentials.issueConnectionToken(holder.id, otherConnection);
    await waitForGrants(gw, holder.id);
    const own = await callerOf(gw, holder);
    const caller = { ...own, connectionToken: { ...own.connectionToken!, id: elsewhere.id } };
    expect(await rpcErrorCode(gw.bus.request(RPCS.sync.list, { caller, limit: 5 }, { timeoutMs: 5_000 }))).toBe('unauthorized');
    expect(await gw.bus.request(RPCS.sync.list, { caller: own, limit: 5 }, { timeoutMs: 5_000 })).toMatchObject({ syncs: [] });
  });

  it('answers 503 for an application whose first snapshot never arrived', async () => {
    const connectionId = app.connectionId;
    const caller = { applicationId: '99999999-9999-4999-8999-999999999999', connectionId, credentialVersion: 1 };
    expect(await rpcErrorCode(gw.bus.request(RPCS.sync.get, { caller, syncId }, { timeoutMs: 5_000 }))).toBe('service_unavailable');
  });
});
