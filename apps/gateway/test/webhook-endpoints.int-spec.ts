/**
 * The webhook endpoint routes (additions beyond the contract, decision 0042) and the operator CLI's
 * webhook commands on a real gateway: create answers the secret once and stores it sealed, list /
 * get / change / delete keep to the calling application (another's id is 404 like an unknown one),
 * a rotation signs with two secrets until the previous one expires, the URL rule is the
 * deployment's egress policy (production: https to a host name; refused with the property named),
 * the cap of 20 endpoints holds, the delivery log pages and replay refuses anything but exactly one
 * selector. Every response is validated against the committed OpenAPI document.
 * Mutation tried: the application filter dropped from WebhookEndpointRepository.get → "another
 * application's endpoint is not found" fails (200).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { runOperator, SecretBox } from '../src/index.js';
import { WebhookEndpointsService } from '../src/services/webhook-endpoints.service.js';
import { openSecrets, type StoredWebhookSecret } from '../src/services/webhook-signature.js';
import { bearer, startTestGateway, type TestGateway } from './support.js';

let gw: TestGateway;
let app: { id: string; token: string };
let other: { id: string; token: string };
let key: { token: string };
const json = (token: string, body?: unknown) => ({ headers: { ...bearer(token), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
const RECEIVER = 'http://127.0.0.1:9/hooks';

beforeAll(async () => {
  gw = await startTestGateway();
  app = await gw.credentials.createApplication('hooks', 'sandbox');
  other = await gw.credentials.createApplication('other', 'sandbox');
  key = await gw.credentials.createConsumerKey('reader');
});

afterAll(async () => {
  await gw?.close();
});

async function stored(endpointId: string): Promise<StoredWebhookSecret[]> {
  const rows = await gw.service.runtime.orm.em.getConnection().execute<{ secrets: StoredWebhookSecret[] }[]>(`select secrets from "${gw.schemas.gateway}".webhook_endpoint where id = ?`, [endpointId]);
  return rows[0]!.secrets;
}

describe('webhook endpoint routes', () => {
  let endpointId: string;
  let secret: string;

  it('creates an endpoint with its secret shown once and stored sealed', async () => {
    const res = await gw.call('POST', '/v1/webhooks/endpoints', json(app.token, { url: RECEIVER, eventTypes: ['fault.opened', 'fault.cleared', 'fault.opened'], description: 'maintenance app' }));
    expect(res.status).toBe(201);
    const body = res.body as { endpoint: { id: string; eventTypes: string[]; enabled: boolean; secrets: { id: string }[] }; secret: string };
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(body.endpoint).toMatchObject({ url: RECEIVER, eventTypes: ['fault.opened', 'fault.cleared'], enabled: true, description: 'maintenance app' });
    endpointId = body.endpoint.id;
    secret = body.secret;
    const rows = await stored(endpointId);
    expect(JSON.stringify(rows)).not.toContain(secret.slice('whsec_'.length));
    expect(openSecrets(new SecretBox(gwMasterKey()), endpointId, rows, new Date())).toEqual([secret]);
    // Never shown again.
    const read = await gw.call('GET', `/v1/webhooks/endpoints/${endpointId}`, json(app.token));
    expect(read.status).toBe(200);
    expect(read.text).not.toContain(secret.slice('whsec_'.length));
  });

  it('lists and reads only the calling application\'s endpoints; another application\'s endpoint is not found', async () => {
    const mine = await gw.call('GET', '/v1/webhooks/endpoints', json(app.token));
    expect((mine.body as { endpoints: { id: string }[] }).endpoints.map((e) => e.id)).toEqual([endpointId]);
    const theirs = await gw.call('GET', '/v1/webhooks/endpoints', json(other.token));
    expect(theirs.body).toEqual({ endpoints: [] });
    for (const [method, path, body] of [
      ['GET', `/v1/webhooks/endpoints/${endpointId}`, undefined],
      ['PATCH', `/v1/webhooks/endpoints/${endpointId}`, { enabled: false }],
      ['POST', `/v1/webhooks/endpoints/${endpointId}/rotate-secret`, undefined],
      ['DELETE', `/v1/webhooks/endpoints/${endpointId}`, undefined],
      ['GET', `/v1/webhooks/endpoints/${endpointId}/messages`, undefined],
      ['POST', `/v1/webhooks/endpoints/${endpointId}/replay`, { fromSequence: '1' }],
    ] as const) {
      const res = await gw.call(method, path, json(other.token, body));
      expect({ method, path, status: res.status, body: res.body }).toEqual({ method, path, status: 404, body: { error: 'not_found' } });
    }
    expect((await gw.call('GET', '/v1/webhooks/endpoints/not-a-uuid', json(app.token))).status).toBe(404);
  });

  it('refuses a consumer key, no credential and a wrong secret with 401', async () => {
    expect((await gw.call('GET', '/v1/webhooks/endpoints', json(key.token))).status).toBe(401);
    expect((await gw.call('GET', '/v1/webhooks/endpoints', {})).status).toBe(401);
    expect((await gw.call('GET', '/v1/webhooks/endpoints', json(`${app.token.slice(0, -4)}AAAA`))).status).toBe(401);
  });

  it('changes event types and enabled: disabling by hand is `manual`, enabling clears it', async () => {
    const off = await gw.call('PATCH', `/v1/webhooks/endpoints/${endpointId}`, json(app.token, { enabled: false, eventTypes: ['sync.completed'] }));
    expect(off.body).toMatchObject({ enabled: false, disabledReason: 'manual', eventTypes: ['sync.completed'] });
    const on = await gw.call('PATCH', `/v1/webhooks/endpoints/${endpointId}`, json(app.token, { enabled: true, eventTypes: ['fault.opened', 'fault.cleared'], description: '' }));
    expect(on.body).toMatchObject({ enabled: true, eventTypes: ['fault.opened', 'fault.cleared'] });
    expect(on.body).not.toHaveProperty('disabledReason');
    expect(on.body).not.toHaveProperty('description');
  });

  it('refuses bad bodies naming the property: unknown type, empty list, unknown property, a URL that does not parse', async () => {
    for (const body of [{ url: RECEIVER, eventTypes: ['fault.exploded'] }, { url: RECEIVER, eventTypes: [] }, { url: RECEIVER, eventTypes: ['fault.opened'], colour: 'red' }, { url: 'not a url', eventTypes: ['fault.opened'] }, { eventTypes: ['fault.opened'] }]) {
      const res = await gw.call('POST', '/v1/webhooks/endpoints', json(app.token, body));
      expect({ body, status: res.status, error: res.body }).toEqual({ body, status: 400, error: { error: 'invalid_body' } });
      expect(res.headers.get('switchyard-error-detail')).toMatch(/^in=body/);
    }
  });

  it('rotates the secret: the new one is shown once, the previous one signs beside it until it expires', async () => {
    const res = await gw.call('POST', `/v1/webhooks/endpoints/${endpointId}/rotate-secret`, json(app.token));
    expect(res.status).toBe(200);
    const body = res.body as { endpoint: { secrets: { id: string; expiresAt?: string }[] }; secret: string };
    expect(body.secret).not.toBe(secret);
    expect(body.endpoint.secrets).toHaveLength(2);
    expect(body.endpoint.secrets[0]).not.toHaveProperty('expiresAt');
    expect(Date.parse(body.endpoint.secrets[1]!.expiresAt!) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    const box = new SecretBox(gwMasterKey());
    expect(openSecrets(box, endpointId, await stored(endpointId), new Date())).toEqual([body.secret, secret]);
    // Past the overlap only the new one signs.
    expect(openSecrets(box, endpointId, await stored(endpointId), new Date(Date.now() + 25 * 3_600_000))).toEqual([body.secret]);
    // A second rotation keeps two: the newest and the one it replaced.
    const again = (await gw.call('POST', `/v1/webhooks/endpoints/${endpointId}/rotate-secret`, json(app.token))).body as { secret: string; endpoint: { secrets: unknown[] } };
    expect(again.endpoint.secrets).toHaveLength(2);
    expect(openSecrets(box, endpointId, await stored(endpointId), new Date())).toEqual([again.secret, body.secret]);
  });

  it('pages the delivery log and refuses a cursor from another filter; replay takes exactly one selector', async () => {
    const log = await gw.call('GET', `/v1/webhooks/endpoints/${endpointId}/messages?limit=10&state=pending`, json(app.token));
    expect(log.body).toEqual({ messages: [] });
    expect((await gw.call('GET', `/v1/webhooks/endpoints/${endpointId}/messages?limit=0`, json(app.token))).status).toBe(400);
    expect((await gw.call('GET', `/v1/webhooks/endpoints/${endpointId}/messages?cursor=abc`, json(app.token))).body).toEqual({ error: 'invalid_cursor' });
    for (const body of [{}, { fromSequence: '1', since: '2026-01-01T00:00:00Z' }, { fromSequence: '0' }, { since: 'yesterday' }]) {
      const res = await gw.call('POST', `/v1/webhooks/endpoints/${endpointId}/replay`, json(app.token, body));
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
    }
    const none = await gw.call('POST', `/v1/webhooks/endpoints/${endpointId}/replay`, json(app.token, { fromSequence: '1' }));
    expect({ status: none.status, body: none.body }).toEqual({ status: 202, body: { replayed: 0, fromSequence: '1', throughSequence: '0', complete: true } });
    const unknown = await gw.call('POST', `/v1/webhooks/endpoints/${endpointId}/replay`, json(app.token, { eventId: '0b7e3c43-8f2a-4c1e-9d55-3f1e2a7b9c01' }));
    expect(unknown.status).toBe(404);
  });

  it('deletes the endpoint (204, no body taken), then it is not found', async () => {
    expect((await gw.call('DELETE', `/v1/webhooks/endpoints/${endpointId}`, json(app.token, {}))).status).toBe(400);
    const res = await gw.call('DELETE', `/v1/webhooks/endpoints/${endpointId}`, json(app.token));
    expect({ status: res.status, text: res.text }).toEqual({ status: 204, text: '' });
    expect((await gw.call('GET', `/v1/webhooks/endpoints/${endpointId}`, json(app.token))).status).toBe(404);
  });

  it('holds the cap of 20 endpoints per application', async () => {
    const capped = await gw.credentials.createApplication('capped', 'sandbox');
    for (let i = 0; i < 20; i++) expect((await gw.call('POST', '/v1/webhooks/endpoints', json(capped.token, { url: `${RECEIVER}/${i}`, eventTypes: ['sync.failed'] }))).status).toBe(201);
    const over = await gw.call('POST', '/v1/webhooks/endpoints', json(capped.token, { url: RECEIVER, eventTypes: ['sync.failed'] }));
    expect({ status: over.status, body: over.body }).toEqual({ status: 409, body: { error: 'too_many_webhook_endpoints' } });
  });
});

describe('the URL rule of a production deployment (the provider egress policy with any public host)', () => {
  const service = () => new WebhookEndpointsService(gw.service.runtime.orm, new SecretBox(SecretBox.generateKey()), { environment: 'production', secretOverlapMs: 0 });

  it.each([
    ['http://hooks.example.com/in', 'production requests use https only'],
    ['https://127.0.0.1/in', 'an IP literal is not allowed'],
    ['https://[::1]/in', 'an IP literal is not allowed'],
    ['https://user:pw@hooks.example.com/in', 'a URL with user information'],
    ['ftp://hooks.example.com/in', 'scheme ftp: is not http(s)'],
  ])('refuses %s', async (url, why) => {
    await expect(service().create(app.id, { url, eventTypes: ['fault.opened'] })).rejects.toMatchObject({ code: 'invalid_body', detail: { in: 'body', name: 'url', reason: 'not_allowed' }, explanation: `the URL is not allowed: ${why}` });
  });

  it('accepts https to a host name (its addresses are checked at each attempt)', async () => {
    const { endpoint } = await service().create(other.id, { url: 'https://hooks.example.com/in?token=x', eventTypes: ['fault.opened'] });
    expect(endpoint.url).toBe('https://hooks.example.com/in?token=x');
  });
});

describe('operator CLI webhook commands', () => {
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    env = { DATABASE_URL: gw.databaseUrl, DB_SCHEMA: gw.schemas.gateway, SWITCHYARD_MASTER_KEY: gwMasterKey(), CURSOR_SECRET: randomBytes(32).toString('base64url'), SWITCHYARD_ENV: 'sandbox' };
  });
  const op = (...argv: string[]) => runOperator(argv, env) as Promise<Record<string, unknown>>;

  it('creates, lists, updates, rotates and deletes an endpoint of an application', async () => {
    const created = (await op('webhook:create', '--app', app.id, '--url', RECEIVER, '--events', 'sync.completed,sync.failed')) as { endpoint: { id: string }; secret: string };
    expect(created.secret).toMatch(/^whsec_/);
    const id = created.endpoint.id;
    expect(((await op('webhook:list', '--app', app.id)) as { endpoints: { id: string }[] }).endpoints.map((e) => e.id)).toContain(id);
    expect(await op('webhook:update', '--app', app.id, '--endpoint', id, '--enabled', 'false')).toMatchObject({ enabled: false, disabledReason: 'manual' });
    const rotated = (await op('webhook:rotate-secret', '--app', app.id, '--endpoint', id)) as { secret: string };
    expect(rotated.secret).not.toBe(created.secret);
    expect(await op('webhook:messages', '--app', app.id, '--endpoint', id)).toEqual({ messages: [], hasMore: false });
    expect(await op('webhook:replay', '--app', app.id, '--endpoint', id, '--from-sequence', '1')).toMatchObject({ replayed: 0, complete: true });
    expect(await op('webhook:delete', '--app', app.id, '--endpoint', id)).toEqual({ ok: true });
    await expect(op('webhook:delete', '--app', app.id, '--endpoint', id)).rejects.toThrow('not_found: no such webhook endpoint for this application');
  });

  it('checks arguments before the database and explains a refused URL', async () => {
    await expect(op('webhook:create', '--app', app.id, '--url', RECEIVER, '--events', 'fault.exploded')).rejects.toThrow('--events: unknown event type "fault.exploded"');
    await expect(op('webhook:replay', '--app', app.id, '--endpoint', app.id, '--since', '2026-01-01T00:00:00Z', '--from-sequence', '3')).rejects.toThrow('exactly one of --event, --since, --from-sequence');
    await expect(op('webhook:create', '--app', 'x', '--url', RECEIVER, '--events', 'sync.failed')).rejects.toThrow('--app must be an id');
    await expect(runOperator(['webhook:create', '--app', app.id, '--url', 'http://hooks.example.com', '--events', 'sync.failed'], { ...env, SWITCHYARD_ENV: 'production' })).rejects.toThrow(
      'invalid_body: the URL is not allowed: production requests use https only',
    );
  });
});

/** The master key the test gateway seals with (support.ts generates one per gateway). */
const gwMasterKey = (): string => gw.masterKey;
