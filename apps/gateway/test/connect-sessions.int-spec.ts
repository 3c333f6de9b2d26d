/**
 * Connect sessions and disconnect over HTTP (spec 2.8, 3, 4.3, 5, 7, 8; decisions 0013, 0022):
 * every status code and rule of the three API routes, each response validated against the OpenAPI
 * document, and the page's steps that need no provider (open, decline, forged CSRF, missing
 * signal, reuse, expiry). Completion against the simulators is in
 * system-tests/test/connect-page.int-spec.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { query, tableNamer } from '@switchyard/persistence';
import { ConnectSessionRetention } from '../src/index.js';
import { bearer, startTestGateway, type TestGateway } from './support.js';

let gw: TestGateway;
let manager: { token: string; id: string };
let other: { token: string; id: string };
let reader: string;

const em = () => gw.service.runtime.orm.em.fork();
const sql = <T>(text: (t: (name: string) => string) => string, params: unknown[] = []) => query<T>(em(), text(tableNamer(em())), params);

async function connection(provider: 'samsara' | 'geotab' | 'motive', status: 'active' | 'paused' = 'paused') {
  const c = await gw.connections.create({ customerId: `cust-${provider}`, provider, environment: 'sandbox', providerCredentials: provider === 'samsara' ? { apiToken: 'old-token-value' } : undefined });
  if (status === 'paused') await gw.connections.configure(c.connectionId, { status: 'paused' });
  await gw.credentials.grantConsumer(manager.id, c.connectionId, ['read', 'manage']);
  await gw.credentials.grantConsumer(other.id, c.connectionId, ['read', 'manage']);
  return c.connectionId;
}

const create = (id: string, token = manager.token, init: { body?: string; headers?: Record<string, string> } = {}) =>
  gw.call('POST', `/v1/connections/${id}/connect-sessions`, { headers: { ...bearer(token), ...init.headers }, ...(init.body !== undefined ? { body: init.body } : {}) });

/** Moves a session's clock back so it is past its ten minutes. */
const age = (sessionId: string) => sql((t) => `update ${t('connect_session')} set created_at = created_at - interval '11 minutes', expires_at = expires_at - interval '11 minutes' where id = ?::uuid`, [sessionId]);

async function form(url: string, fields: Record<string, string | string[]>): Promise<{ status: number; text: string }> {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const item of Array.isArray(v) ? v : [v]) body.append(k, item);
  const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  return { status: res.status, text: await res.text() };
}

const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

beforeAll(async () => {
  gw = await startTestGateway();
  const m = await gw.credentials.createConsumerKey('manager');
  manager = { token: m.token, id: m.id };
  const o = await gw.credentials.createConsumerKey('other');
  other = { token: o.token, id: o.id };
  const r = await gw.credentials.createConsumerKey('reader');
  reader = r.token;
});

afterAll(async () => {
  await gw?.close();
});

describe('POST /v1/connections/{id}/connect-sessions', () => {
  it('200 {sessionId, expiresAt, url} on a paused connection; expires ten minutes after creation; status created; creating is not completion', async () => {
    const id = await connection('samsara');
    const before = Date.now();
    const res = await create(id);
    expect(res.status).toBe(200);
    const body = res.body as { sessionId: string; expiresAt: string; url: string };
    const [row] = await sql<{ lifetime: number }>((t) => `select extract(epoch from expires_at - created_at)::int as lifetime from ${t('connect_session')} where id = ?::uuid`, [body.sessionId]);
    expect(Number(row!.lifetime)).toBe(600);
    expect(Date.parse(body.expiresAt)).toBeGreaterThanOrEqual(before + 600_000 - 1000);
    expect(body.url).toMatch(new RegExp(`^${gw.url}/connect/[A-Za-z0-9_-]{43}$`));
    const status = await gw.call('GET', `/v1/connections/${id}/connect-sessions/${body.sessionId}`, { headers: bearer(manager.token) });
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ id: body.sessionId, status: 'created', completed_at: null, selected_signals: null });
    // Creating a link never pauses, activates or changes the connection.
    expect((await gw.connections.get(id))?.status).toBe('paused');
  });

  it('409 pause_connection_before_connect on an active connection', async () => {
    const id = await connection('samsara', 'active');
    const res = await create(id);
    expect([res.status, res.body]).toEqual([409, { error: 'pause_connection_before_connect' }]);
    expect((await gw.connections.get(id))?.status).toBe('active');
  });

  it('409 geotab_account_setup_required until the operator binds the database and server', async () => {
    const id = await connection('geotab');
    const res = await create(id);
    expect([res.status, res.body]).toEqual([409, { error: 'geotab_account_setup_required' }]);
    await gw.connections.bindGeotab(id, 'acme', 'http://127.0.0.1:9');
    expect((await create(id)).status).toBe(200);
  });

  it('404 without the manage grant, for a read-only key, another connection and a malformed id; 401 without a valid key', async () => {
    const id = await connection('samsara');
    const readOnly = await gw.credentials.createConsumerKey('read only');
    await gw.credentials.grantConsumer(readOnly.id, id, ['read', 'history']);
    expect([(await create(id, readOnly.token)).status, (await create(id, reader)).status, (await create('not-a-uuid')).status]).toEqual([404, 404, 404]);
    expect((await create(id, `pt_${'A'.repeat(52)}`)).status).toBe(401);
  });

  it('400 invalid_body for a body, even {}', async () => {
    const id = await connection('samsara');
    const res = await create(id, manager.token, { body: '{}', headers: { 'content-type': 'application/json' } });
    expect([res.status, res.body]).toEqual([400, { error: 'invalid_body' }]);
  });

  it('429 rate_limited with Retry-After after five sessions of one key on one connection in ten minutes; another key is counted apart; the window frees with time', async () => {
    const id = await connection('samsara');
    for (let i = 0; i < 5; i++) expect((await create(id)).status).toBe(200);
    const limited = await create(id);
    expect([limited.status, limited.body]).toEqual([429, { error: 'rate_limited' }]);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(590);
    expect(retryAfter).toBeLessThanOrEqual(600);
    expect((await create(id, other.token)).status).toBe(200);
    // The state is in PostgreSQL: once the oldest session leaves the window, one more is allowed.
    const [oldest] = await sql<{ id: string }>((t) => `select id from ${t('connect_session')} where connection_id = ?::uuid and consumer_key_id = ?::uuid order by created_at limit 1`, [id, manager.id]);
    await age(oldest!.id);
    expect((await create(id)).status).toBe(200);
    expect((await create(id)).status).toBe(429);
  });
});

describe('the session rate limit under concurrency', () => {
  it('twelve creates at once: exactly five sessions, seven 429 (the count and the insert are serialized by the connection row lock)', async () => {
    const id = await connection('samsara');
    const statuses = await Promise.all(Array.from({ length: 12 }, () => create(id).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
    const [row] = await sql<{ n: string }>((t) => `select count(*) as n from ${t('connect_session')} where connection_id = ?::uuid`, [id]);
    expect(Number(row!.n)).toBe(5);
  });
});

describe('GET /v1/connections/{id}/connect-sessions/{sessionId}', () => {
  it('another consumer, another connection, an unknown and a malformed id: 404', async () => {
    const id = await connection('samsara');
    const otherConnection = await connection('samsara');
    const { sessionId } = (await create(id)).body as { sessionId: string };
    const get = (conn: string, sid: string, token = manager.token) => gw.call('GET', `/v1/connections/${conn}/connect-sessions/${sid}`, { headers: bearer(token) });
    expect((await get(id, sessionId, other.token)).status).toBe(404);
    expect((await get(otherConnection, sessionId)).status).toBe(404);
    expect((await get(id, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await get(id, 'nope')).status).toBe(404);
    expect((await get(id, sessionId)).status).toBe(200);
  });

  it('created → started when the page opens; expired ten minutes after creation, and the page is dead then', async () => {
    const id = await connection('samsara');
    const { sessionId, url } = (await create(id)).body as { sessionId: string; url: string };
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    const html = await page.text();
    expect(html).toContain('cust-samsara');
    expect(html).not.toMatch(/name="signals" value="drivers?"/);
    const read = () => gw.call('GET', `/v1/connections/${id}/connect-sessions/${sessionId}`, { headers: bearer(manager.token) });
    expect(((await read()).body as { status: string }).status).toBe('started');
    await age(sessionId);
    expect(((await read()).body as { status: string }).status).toBe('expired');
    const again = await fetch(url);
    expect(again.status).toBe(410);
    expect(await again.text()).toContain('Link expired');
    expect((await form(url, { csrf: csrfOf(html), action: 'decline' })).status).toBe(410);
  });
});

describe('the page without a provider call', () => {
  it('no signal selected, a missing token and an unaccepted disclosure re-render the form with messages and consume nothing', async () => {
    const id = await connection('samsara');
    const { sessionId, url } = (await create(id)).body as { sessionId: string; url: string };
    const csrf = csrfOf(await (await fetch(url)).text());
    const res = await form(url, { csrf, method: 'api_token', apiToken: '', action: 'connect' });
    expect(res.status).toBe(422);
    expect(res.text).toContain('Choose at least one signal to share.');
    expect(res.text).toContain('Enter the API token');
    expect(res.text).toContain('Confirm that you have read');
    const status = await gw.call('GET', `/v1/connections/${id}/connect-sessions/${sessionId}`, { headers: bearer(manager.token) });
    expect((status.body as { status: string }).status).toBe('started');
  });

  it('a forged CSRF token is 403 and changes nothing; a token of another session too', async () => {
    const id = await connection('samsara');
    const a = (await create(id)).body as { sessionId: string; url: string };
    const b = (await create(id)).body as { sessionId: string; url: string };
    await fetch(a.url);
    const csrfB = csrfOf(await (await fetch(b.url)).text());
    for (const csrf of ['forged', csrfB, '']) {
      const res = await form(a.url, { csrf, signals: 'odometer', method: 'api_token', apiToken: 'x', accept: 'yes', action: 'decline' });
      expect(res.status).toBe(403);
    }
    const status = await gw.call('GET', `/v1/connections/${id}/connect-sessions/${a.sessionId}`, { headers: bearer(manager.token) });
    expect((status.body as { status: string }).status).toBe('started');
  });

  it('declining cancels the session; the link is dead afterwards', async () => {
    const id = await connection('samsara');
    const { sessionId, url } = (await create(id)).body as { sessionId: string; url: string };
    const csrf = csrfOf(await (await fetch(url)).text());
    const res = await form(url, { csrf, action: 'decline' });
    expect(res.status).toBe(200);
    expect(res.text).toContain('Request declined');
    const status = await gw.call('GET', `/v1/connections/${id}/connect-sessions/${sessionId}`, { headers: bearer(manager.token) });
    expect(status.body).toMatchObject({ status: 'cancelled', completed_at: null });
    expect((await fetch(url)).status).toBe(410);
  });

  it('an unknown link is 404; a form outside /connect/ stays 415', async () => {
    expect((await fetch(`${gw.url}/connect/${'A'.repeat(43)}`)).status).toBe(404);
    const res = await gw.call('POST', `/v1/connections/00000000-0000-4000-8000-000000000000/disconnect`, {
      headers: { ...bearer(manager.token), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
    });
    expect(res.status).toBe(415);
  });
});

describe('POST /v1/connections/{id}/disconnect', () => {
  it('200 {connectionId, status: disconnected}: credentials destroyed, the configuration event queued, open sessions cancelled; a second disconnect is 404', async () => {
    const id = await connection('samsara');
    const { sessionId } = (await create(id)).body as { sessionId: string };
    expect(await gw.connections.providerCredentials(id)).toEqual({ apiToken: 'old-token-value' });
    const res = await gw.call('POST', `/v1/connections/${id}/disconnect`, { headers: bearer(manager.token) });
    expect([res.status, res.body]).toEqual([200, { connectionId: id, status: 'disconnected' }]);
    expect(await gw.connections.providerCredentials(id)).toBeUndefined();
    const [event] = await sql<{ payload: { status: string } }>((t) => `select payload from ${t('outbox')} where subject like ? order by id desc limit 1`, [`%${id}`]);
    expect(event!.payload.status).toBe('disconnected');
    const [session] = await sql<{ status: string }>((t) => `select status from ${t('connect_session')} where id = ?::uuid`, [sessionId]);
    expect(session!.status).toBe('cancelled');
    const again = await gw.call('POST', `/v1/connections/${id}/disconnect`, { headers: bearer(manager.token) });
    expect([again.status, again.body]).toEqual([404, { error: 'not_found' }]);
    expect((await gw.call('GET', `/v1/connections/${id}`, { headers: bearer(manager.token) })).status).toBe(404);
  });

  it('a disconnected connection: every connect-session route and disconnect answer exactly what a connection without a grant does (decision 0013)', async () => {
    const id = await connection('samsara');
    const ungranted = (await gw.connections.create({ customerId: 'cust-none', provider: 'samsara', environment: 'sandbox' })).connectionId;
    const { sessionId } = (await create(id)).body as { sessionId: string };
    expect((await gw.call('POST', `/v1/connections/${id}/disconnect`, { headers: bearer(manager.token) })).status).toBe(200);
    const comparable = (res: { status: number; text: string; headers: Headers }) => ({
      status: res.status,
      text: res.text,
      headers: [...res.headers.entries()].filter(([n]) => !['x-request-id', 'date'].includes(n)),
    });
    for (const [method, path] of [
      ['POST', 'connect-sessions'],
      ['GET', `connect-sessions/${sessionId}`],
      ['POST', 'disconnect'],
    ] as const) {
      const res = await gw.call(method, `/v1/connections/${id}/${path}`, { headers: bearer(manager.token) });
      const none = await gw.call(method, `/v1/connections/${ungranted}/${path}`, { headers: bearer(manager.token) });
      expect({ method, path, ...comparable(res) }).toEqual({ method, path, ...comparable(none) });
      expect([res.status, res.text]).toEqual([404, '{"error":"not_found"}']);
    }
  });

  it('accepts {} as no body; refuses any other body with 400; needs manage (404)', async () => {
    const id = await connection('samsara', 'active');
    const bad = await gw.call('POST', `/v1/connections/${id}/disconnect`, { headers: { ...bearer(manager.token), 'content-type': 'application/json' }, body: '{"reason":"x"}' });
    expect([bad.status, bad.body]).toEqual([400, { error: 'invalid_body' }]);
    expect((await gw.call('POST', `/v1/connections/${id}/disconnect`, { headers: bearer(reader) })).status).toBe(404);
    const ok = await gw.call('POST', `/v1/connections/${id}/disconnect`, { headers: { ...bearer(manager.token), 'content-type': 'application/json' }, body: '{}' });
    expect(ok.status).toBe(200);
  });
});

describe('connect session retention (decision 0030)', () => {
  it('deletes sessions whose link expired more than 30 days ago; a live or recently expired one stays, and GET of a pruned one is 404', async () => {
    const id = await connection('samsara');
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push(((await create(id)).body as { sessionId: string }).sessionId);
    const [old, recent, live] = ids as [string, string, string];
    await sql((t) => `update ${t('connect_session')} set created_at = now() - interval '31 days', expires_at = now() - interval '31 days' + interval '10 minutes' where id = ?::uuid`, [old]);
    await sql((t) => `update ${t('connect_session')} set created_at = now() - interval '29 days', expires_at = now() - interval '29 days' + interval '10 minutes' where id = ?::uuid`, [recent]);
    // mutation: the cutoff without the retention (every expired session) → the 29-day one goes → this test fails.
    expect(await gw.service.app.get(ConnectSessionRetention).prune()).toBeGreaterThanOrEqual(1);
    const left = (await sql<{ id: string }>((t) => `select id from ${t('connect_session')} where id in (?, ?, ?)`, [old, recent, live])).map((r) => r.id);
    expect(left.sort()).toEqual([recent, live].sort());
    expect((await gw.call('GET', `/v1/connections/${id}/connect-sessions/${old}`, { headers: bearer(manager.token) })).status).toBe(404);
    expect((await gw.call('GET', `/v1/connections/${id}/connect-sessions/${recent}`, { headers: bearer(manager.token) })).status).toBe(200);
  });
});
