/**
 * Spec section 5 status rules, observed over HTTP: 401 for any wrong credential, 404 for a
 * connection the key has no grant (or no such permission) on — byte-identical to a connection that
 * does not exist — and 401/403 on sync routes for applications (exercised through a probe route
 * guarded exactly like the sync routes will be).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, Module } from '@nestjs/common';
import { ApplicationAuth, GatewayModule } from '../src/index.js';
import { bearer, startTestGateway, type TestGateway } from './support.js';

@Controller('v1/test-sync')
class SyncProbeController {
  @Get()
  @ApplicationAuth('sync.read')
  read() {
    return { ok: true };
  }
}
@Module({ imports: [GatewayModule], controllers: [SyncProbeController] })
class SyncProbeModule {}

let gw: TestGateway;
let key: string;
let keyId: string;
let otherKey: string;
let historyOnlyKey: string;
let connA: string;
let connB: string;
let prodConn: string;
let appSecret: string;
let appId: string;
let tokenA: string;
let tokenProd: string;
let otherAppToken: string;

beforeAll(async () => {
  gw = await startTestGateway({ extraModules: [SyncProbeModule] });
  const a = await gw.connections.create({ customerId: 'cust-a', provider: 'samsara', environment: 'sandbox' });
  const b = await gw.connections.create({ customerId: 'cust-b', provider: 'geotab', environment: 'sandbox' });
  const p = await gw.connections.create({ customerId: 'cust-p', provider: 'motive', environment: 'production' });
  [connA, connB, prodConn] = [a.connectionId, b.connectionId, p.connectionId];
  const k = await gw.credentials.createConsumerKey('main');
  [key, keyId] = [k.token, k.id];
  await gw.credentials.grantConsumer(keyId, connA, ['read', 'manage']);
  otherKey = (await gw.credentials.createConsumerKey('other')).token;
  const h = await gw.credentials.createConsumerKey('history only');
  historyOnlyKey = h.token;
  await gw.credentials.grantConsumer(h.id, connA, ['history']);

  const app = await gw.credentials.createApplication('app', 'sandbox');
  [appSecret, appId] = [app.token, app.id];
  await gw.credentials.grantApplication(appId, connA, ['sync.read'], false);
  await gw.credentials.grantApplication(appId, prodConn, ['sync.read'], false);
  tokenA = (await gw.credentials.issueConnectionToken(appId, connA)).token;
  tokenProd = (await gw.credentials.issueConnectionToken(appId, prodConn)).token;
  const other = await gw.credentials.createApplication('other app', 'sandbox');
  otherAppToken = (await gw.credentials.issueConnectionToken(other.id, connA)).token;
});

afterAll(async () => {
  await gw?.close();
});

describe('consumer key on connection routes', () => {
  it('reads a granted connection', async () => {
    const res = await gw.call('GET', `/v1/connections/${connA}`, { headers: bearer(key) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: connA, customer_id: 'cust-a', provider: 'samsara', status: 'active', last_success_at: null });
  });

  it.each([
    ['no header', {}],
    ['empty bearer', { authorization: 'Bearer ' }],
    ['basic scheme', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
    ['garbage', { authorization: 'Bearer nonsense' }],
    ['well-formed unknown key', { authorization: `Bearer pt_${'A'.repeat(52)}` }],
  ])('401 unauthorized with %s', async (_label, headers) => {
    const res = await gw.call('GET', `/v1/connections/${connA}`, { headers: headers as Record<string, string> });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'unauthorized' });
  });

  it('401 for two Authorization lines, whichever comes first (Node would keep only the first)', async () => {
    const { request } = await import('node:http');
    const url = new URL(`${gw.url}/v1/connections/${connA}`);
    for (const lines of [[`Bearer ${key}`, `Bearer ${otherKey}`], [`Bearer ${key}`, `Bearer ${key}`]]) {
      const status = await new Promise<number | undefined>((resolve, reject) => {
        // A flat [name, value, …] list sends one header line per pair (and no default Host).
        const req = request(url, { headers: ['host', url.host, ...lines.flatMap((line) => ['authorization', line])] }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        });
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(401);
    }
  });

  it('401 when the secret part of a real key is wrong (same lookup id)', async () => {
    const forged = key.slice(0, 15) + (key[15] === 'a' ? 'b' : 'a') + key.slice(16);
    const res = await gw.call('GET', `/v1/connections/${connA}`, { headers: bearer(forged) });
    expect(res.status).toBe(401);
  });

  it('401 for an application secret on a connection route', async () => {
    const res = await gw.call('GET', `/v1/connections/${connA}`, { headers: bearer(appSecret) });
    expect(res.status).toBe(401);
  });

  it('404 without a grant, identical to a connection that does not exist', async () => {
    const ungranted = await gw.call('GET', `/v1/connections/${connB}`, { headers: bearer(key) });
    const missing = await gw.call('GET', '/v1/connections/7a1f9c1e-3b7d-4d6e-9a51-2d0f4b8e7c13', { headers: bearer(key) });
    const malformed = await gw.call('GET', '/v1/connections/not-a-uuid', { headers: bearer(key) });
    for (const res of [ungranted, missing, malformed]) {
      expect(res.status).toBe(404);
      expect(res.text).toBe('{"error":"not_found"}');
    }
    const strip = (h: Headers) => [...h.entries()].filter(([n]) => !['x-request-id', 'date'].includes(n));
    expect(strip(ungranted.headers)).toEqual(strip(missing.headers));
  });

  it('404 for capabilities of an ungranted connection, 200 for a granted one', async () => {
    expect((await gw.call('GET', `/v1/connections/${connB}/capabilities`, { headers: bearer(key) })).status).toBe(404);
    const ok = await gw.call('GET', `/v1/connections/${connA}/capabilities`, { headers: bearer(key) });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id: connA, faultModel: 'complete_snapshot', collection: 'poll' });
  });

  it('404 when the grant lacks the read permission', async () => {
    const res = await gw.call('GET', `/v1/connections/${connA}`, { headers: bearer(historyOnlyKey) });
    expect(res.status).toBe(404);
  });

  it('a key with no grants at all still reads the catalog', async () => {
    expect((await gw.call('GET', '/v1/catalog', { headers: bearer(otherKey) })).status).toBe(200);
    expect((await gw.call('GET', '/v1/catalog', {})).status).toBe(401);
  });

  it('revoking a grant and then the key takes effect on the next request', async () => {
    const k = await gw.credentials.createConsumerKey('short-lived');
    await gw.credentials.grantConsumer(k.id, connA, ['read']);
    expect((await gw.call('GET', `/v1/connections/${connA}`, { headers: bearer(k.token) })).status).toBe(200);
    await gw.credentials.grantConsumer(k.id, connA, []);
    expect((await gw.call('GET', `/v1/connections/${connA}`, { headers: bearer(k.token) })).status).toBe(404);
    await gw.credentials.revoke('consumer-key', k.id);
    expect((await gw.call('GET', `/v1/connections/${connA}`, { headers: bearer(k.token) })).status).toBe(401);
  });
});

describe('application secret on sync routes', () => {
  const probe = (headers: Record<string, string>) => gw.call('GET', '/v1/test-sync', { headers, validate: false });

  it('200 with the secret, its own Connection-Token and the operation grant', async () => {
    const res = await probe({ ...bearer(appSecret), 'connection-token': tokenA });
    expect(res.status).toBe(200);
  });

  it('401 for a pt_ consumer key (spec 5 rule 1)', async () => {
    const res = await probe({ ...bearer(key), 'connection-token': tokenA });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'unauthorized' });
  });

  it('401 without or with a foreign Connection-Token', async () => {
    expect((await probe(bearer(appSecret))).status).toBe(401);
    expect((await probe({ ...bearer(appSecret), 'connection-token': otherAppToken })).status).toBe(401);
    expect((await probe({ ...bearer(appSecret), 'connection-token': 'ct_short' })).status).toBe(401);
  });

  it('403 connection_forbidden when a sandbox application reaches a production connection', async () => {
    const res = await probe({ ...bearer(appSecret), 'connection-token': tokenProd });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'connection_forbidden' });
  });

  it('403 operation_forbidden without the operation grant, 403 connection_forbidden without any grant', async () => {
    await gw.credentials.grantApplication(appId, connA, ['sync.create'], false);
    expect((await probe({ ...bearer(appSecret), 'connection-token': tokenA })).body).toEqual({ error: 'operation_forbidden' });
    await gw.credentials.grantApplication(appId, connA, [], false);
    expect((await probe({ ...bearer(appSecret), 'connection-token': tokenA })).body).toEqual({ error: 'connection_forbidden' });
    await gw.credentials.grantApplication(appId, connA, ['sync.read'], false);
    expect((await probe({ ...bearer(appSecret), 'connection-token': tokenA })).status).toBe(200);
  });

  it('401 after the Connection-Token or the application is revoked', async () => {
    const app = await gw.credentials.createApplication('revocable', 'sandbox');
    await gw.credentials.grantApplication(app.id, connA, ['sync.read'], false);
    const t = await gw.credentials.issueConnectionToken(app.id, connA);
    expect((await probe({ ...bearer(app.token), 'connection-token': t.token })).status).toBe(200);
    await gw.credentials.revoke('connection-token', t.displayPrefix);
    expect((await probe({ ...bearer(app.token), 'connection-token': t.token })).status).toBe(401);
    const t2 = await gw.credentials.issueConnectionToken(app.id, connA);
    await gw.credentials.revoke('application', app.id);
    expect((await probe({ ...bearer(app.token), 'connection-token': t2.token })).status).toBe(401);
  });
});

describe('secrets at rest and in logs', () => {
  it('stores only hashes: no issued token appears anywhere in the gateway schema', async () => {
    const conn = gw.service.runtime.orm.em.getConnection();
    const schema = gw.schemas.gateway;
    const tables = await conn.execute<{ table_name: string }[]>(`select table_name from information_schema.tables where table_schema = ?`, [schema]);
    for (const secret of [key, appSecret, tokenA, otherKey]) {
      for (const { table_name } of tables) {
        const hits = await conn.execute<{ n: string }[]>(`select count(*) as n from "${schema}"."${table_name}" t where t::text like ?`, [`%${secret.slice(-40)}%`]);
        expect(Number(hits[0]!.n)).toBe(0);
      }
    }
    const rows = await conn.execute<{ secret_hash: Buffer }[]>(`select secret_hash from "${schema}".consumer_key where id = ?`, [keyId]);
    const { createHash } = await import('node:crypto');
    expect(rows[0]!.secret_hash.equals(createHash('sha256').update(key).digest())).toBe(true);
  });

  it('never writes a credential to the logs, even one sent in a header or the URL', async () => {
    await gw.call('GET', `/v1/connections/${connA}?token=${key}`, { headers: { ...bearer(key), 'x-debug': appSecret } });
    await gw.call('GET', '/v1/test-sync', { headers: { ...bearer(appSecret), 'connection-token': tokenA }, validate: false });
    const logs = gw.logText();
    expect(logs).toContain('"route":"/v1/connections/:id"');
    for (const secret of [key, appSecret, tokenA]) expect(logs).not.toContain(secret.slice(-40));
  });
});
