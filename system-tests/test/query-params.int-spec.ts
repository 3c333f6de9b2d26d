/**
 * One rule for query parameters on every /v1 route: a parameter the route does not declare is
 * `400 invalid_query` — on routes with a query DTO (the validation pipe) and on routes that take
 * none (UndeclaredQueryInterceptor) alike — checked after authentication, so a caller without
 * credentials still gets 401. Every response is validated against the committed OpenAPI document
 * (`call`), which documents that 400 on each of these operations.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { vehicleId } from '@switchyard/domain';
import { startTestGateway, type TestGateway } from './support.js';
import { readKey } from './reads-fixture.js';
import { createConnection, createSyncApp, type SyncApp } from './syncs-fixture.js';

let gw: TestGateway;
let connectionId: string;
let key: Record<string, string>;
let app: SyncApp;
let syncId: string;

beforeAll(async () => {
  gw = await startTestGateway({ syncOrchestrator: true, directory: true, rpcTimeoutMs: 10_000 });
  connectionId = await createConnection(gw);
  key = (await readKey(gw, [connectionId])).headers;
  app = await createSyncApp(gw, connectionId);
  const created = await gw.call('POST', '/v1/syncs', { headers: app.headers });
  expect(created.status).toBe(201);
  syncId = (created.body as { id: string }).id;
}, 60_000);

afterAll(async () => {
  await gw?.close();
});

/** [method, path, headers, status without a query] for routes with and without a query DTO. */
function routes(): [string, string, Record<string, string>, number][] {
  const vehicle = vehicleId({ connectionId, provider: 'samsara', sourceId: 'not-stored' });
  return [
    ['GET', '/v1/catalog', key, 200],
    ['GET', `/v1/connections/${connectionId}`, key, 200],
    ['GET', `/v1/connections/${connectionId}/capabilities`, key, 200],
    ['GET', `/v1/syncs/${syncId}`, app.headers, 200],
    ['GET', '/v1/syncs', app.headers, 200],
    // Stored vehicles only: an id the directory never stored is 404; its metadata, an opt-in left off here, is `disabled`.
    ['GET', `/v1/connections/${connectionId}/vehicles/${vehicle}`, key, 404],
    ['GET', `/v1/connections/${connectionId}/vehicles/${vehicle}/metadata`, key, 200],
    ['GET', `/v1/connections/${connectionId}/drivers`, key, 200],
  ];
}

describe('query parameters a route does not declare', () => {
  it('are 400 invalid_query on every route, which answers normally without them', async () => {
    for (const [method, path, headers, status] of routes()) {
      const plain = await gw.call(method, path, { headers });
      expect({ path, status: plain.status }).toEqual({ path, status });
      for (const query of ['x=1', 'x', 'X=1&x=2', 'limit=10&typo=1']) {
        const refused = await gw.call(method, `${path}?${query}`, { headers });
        expect({ path, query, status: refused.status, body: refused.body }).toEqual({ path, query, status: 400, body: { error: 'invalid_query' } });
      }
    }
  });

  it('an empty query string is no parameter', async () => {
    expect((await gw.call('GET', '/v1/catalog?', { headers: key })).status).toBe(200);
    expect((await gw.call('GET', `/v1/syncs/${syncId}?`, { headers: app.headers })).status).toBe(200);
  });

  it('POST routes refuse them before any body or state is looked at', async () => {
    const before = await gw.call('GET', '/v1/syncs', { headers: app.headers });
    const created = await gw.call('POST', '/v1/syncs?dryRun=true', { headers: app.headers });
    expect({ status: created.status, body: created.body }).toEqual({ status: 400, body: { error: 'invalid_query' } });
    // Nothing was created.
    expect((await gw.call('GET', '/v1/syncs', { headers: app.headers })).body).toEqual(before.body);
    const cancel = await gw.call('POST', `/v1/syncs/${syncId}/cancel?force=1`, { headers: app.headers });
    expect({ status: cancel.status, body: cancel.body }).toEqual({ status: 400, body: { error: 'invalid_query' } });
  });

  it('authentication comes first: without credentials it is 401, not 400', async () => {
    for (const path of ['/v1/catalog?x=1', `/v1/connections/${connectionId}?x=1`, `/v1/syncs/${syncId}?x=1`]) {
      const res = await gw.call('GET', path);
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
    }
  });

  it('the document declares the 400 invalid_query of every /v1 operation', async () => {
    const document = (await gw.call('GET', '/openapi.json', { validate: false })).body as { paths: Record<string, Record<string, { responses: Record<string, { description?: string }> }>> };
    const missing: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      if (!path.startsWith('/v1/')) continue;
      for (const [method, op] of Object.entries(item)) {
        if (!op.responses['400']?.description?.includes('`invalid_query`')) missing.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
