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

/**
 * One reading of every input (issue 18 items 3, 8, 9; decision 0016): the same date-time text is
 * read alike in the trips window and the sync body, ids are read case-insensitively, comma lists
 * follow one rule, and every refusal names its parameter in Switchyard-Error-Detail.
 */
describe('one reading of every input', () => {
  const detail = (res: { headers: Headers }) => res.headers.get('switchyard-error-detail');
  const trips = () => `/v1/connections/${connectionId}/trips`;

  it('trips?from takes lowercase t/z like startFrom does, and any offset', async () => {
    for (const from of ['2026-11-01t00:00:00z', '2026-11-01T02:00:00%2B02:00']) {
      const res = await gw.call('GET', `${trips()}?from=${from}`, { headers: key });
      expect({ from, status: res.status }).toEqual({ from, status: 200 });
    }
  });

  it.each(['0000-01-01T00:00:00Z', '0001-01-01T00:30:00%2B01:00', '9999-12-31T00:00:00Z'])('trips?from=%s, outside the accepted range (year 0 was a PostgreSQL 500), is 400 naming from', async (from) => {
    const res = await gw.call('GET', `${trips()}?from=${from}`, { headers: key });
    expect({ status: res.status, body: res.body, detail: detail(res) }).toEqual({ status: 400, body: { error: 'invalid_query' }, detail: 'in=query, name="from", reason=out_of_range' });
  });

  it('an unencoded + in a date is refused with a reason that says so', async () => {
    const res = await gw.call('GET', `${trips()}?to=2026-11-24T00:00:00+02:00`, { headers: key });
    expect({ status: res.status, detail: detail(res) }).toEqual({ status: 400, detail: 'in=query, name="to", reason=unencoded_plus' });
  });

  it('a startFrom outside the range is 400 invalid_body naming startFrom', async () => {
    const res = await gw.call('POST', '/v1/syncs', { headers: { ...app.headers, 'content-type': 'application/json' }, body: JSON.stringify({ startFrom: '0000-01-01T00:00:00Z' }) });
    expect({ status: res.status, body: res.body, detail: detail(res) }).toEqual({ status: 400, body: { error: 'invalid_body' }, detail: 'in=body, name="startFrom", reason=out_of_range' });
  });

  it('51 copies of one id exceed the 50-id limit: limits count the items as sent', async () => {
    const id = vehicleId({ connectionId, provider: 'samsara', sourceId: 'v' });
    const fifty = await gw.call('GET', `${trips()}?vehicleIds=${Array.from({ length: 50 }, () => id).join(',')}`, { headers: key });
    expect(fifty.status).toBe(200);
    const res = await gw.call('GET', `${trips()}?vehicleIds=${Array.from({ length: 51 }, () => id).join(',')}`, { headers: key });
    expect({ status: res.status, detail: detail(res) }).toEqual({ status: 400, detail: 'in=query, name="vehicleIds", reason=too_many' });
  });

  it('a repeated expand value counts once on every route, the sync list included', async () => {
    expect((await gw.call('GET', `${trips()}?expand=vehicle,vehicle`, { headers: key })).status).toBe(200);
    expect((await gw.call('GET', '/v1/syncs?expand=issues,issues', { headers: app.headers })).status).toBe(200);
    const empty = await gw.call('GET', '/v1/syncs?expand=issues,', { headers: app.headers });
    expect({ status: empty.status, detail: detail(empty) }).toEqual({ status: 400, detail: 'in=query, name="expand", reason=empty_item' });
  });

  it('a lowercase Crockford body names the same resource as the uppercase one, in paths and in lists', async () => {
    const id = vehicleId({ connectionId, provider: 'samsara', sourceId: 'not-stored' });
    const lower = `vcl_${id.slice(4).toLowerCase()}`;
    const upper = await gw.call('GET', `/v1/connections/${connectionId}/vehicles/${id}/metadata`, { headers: key });
    const same = await gw.call('GET', `/v1/connections/${connectionId}/vehicles/${lower}/metadata`, { headers: key });
    expect({ status: same.status, body: same.body }).toEqual({ status: upper.status, body: upper.body });
    expect((await gw.call('GET', `${trips()}?vehicleIds=${lower}`, { headers: key })).status).toBe(200);
    const sync = await gw.call('GET', `/v1/syncs/sync_${syncId.slice(5).toLowerCase()}`, { headers: app.headers });
    expect({ status: sync.status, id: (sync.body as { id?: string }).id }).toEqual({ status: 200, id: syncId });
    // The prefix is not Crockford: it is read exactly.
    const prefix = await gw.call('GET', `/v1/connections/${connectionId}/vehicles/VCL_${id.slice(4)}/metadata`, { headers: key });
    expect({ status: prefix.status, detail: detail(prefix) }).toEqual({ status: 400, detail: 'in=path, name="vehicleId", reason=malformed' });
  });

  it('an undeclared parameter is named (when it is a plain identifier)', async () => {
    const res = await gw.call('GET', '/v1/catalog?typo=1', { headers: key });
    expect({ status: res.status, detail: detail(res) }).toEqual({ status: 400, detail: 'in=query, name="typo", reason=unknown' });
  });
});
