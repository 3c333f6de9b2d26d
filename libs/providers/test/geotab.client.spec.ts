import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { ProviderError } from '../src/errors.js';
import { GeotabClient, serverUrl } from '../src/geotab/geotab.client.js';
import { deviceSchema } from '../src/geotab/geotab.schemas.js';
import type { Clock } from '../src/http/request-budget.js';
import { loadFixture } from './geotab-fixtures.js';

interface Rpc {
  method: string;
  params: Record<string, unknown> & { credentials?: Record<string, unknown> };
}
type Reply = { status?: number; body: unknown; headers?: Record<string, string> };

/** Two servers: `main` (the configured host) and `other` (where an Authenticate `path` may point). */
const servers: Record<'main' | 'other', { server?: Server; url: string; seen: Rpc[] }> = { main: { url: '', seen: [] }, other: { url: '', seen: [] } };
let handler: (rpc: Rpc, which: 'main' | 'other') => Reply;

beforeAll(async () => {
  for (const which of ['main', 'other'] as const) {
    const server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        const rpc = JSON.parse(text) as Rpc;
        servers[which].seen.push(rpc);
        const reply = handler(rpc, which);
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
        res.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers[which] = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen: [] };
  }
});
afterAll(async () => {
  for (const s of Object.values(servers)) await new Promise<void>((r) => s.server?.close(() => r()));
});
beforeEach(() => {
  servers.main.seen = [];
  servers.other.seen = [];
});

function fakeClock(): Clock & { sleeps: number[] } {
  let now = Date.parse('2024-09-01T00:00:00.000Z');
  const sleeps: number[] = [];
  return { sleeps, now: () => now, sleep: async (ms) => void (sleeps.push(ms), (now += ms)) };
}

const credentials = { database: 'acme', userName: 'svc-acme-fleetapi@example.com', password: 's3cret' };
const auth = (sessionId: string, path = 'ThisServer'): Reply => ({ body: { result: { credentials: { database: 'acme', sessionId, userName: credentials.userName }, path } } });
const geotabError = (type: string, message = type, extra: Partial<Reply> = {}): Reply => ({ ...extra, body: { error: { code: -32000, name: 'JSONRPCError', message, data: { type }, errors: [{ name: type, message }] } } });
const devices = { result: [{ id: 'b3', name: 'Truck 12' }] };
const client = (clock = fakeClock()) => new GeotabClient({ baseUrl: servers.main.url, credentials, clock, random: () => 0, retry: { maxAttempts: 3 } });
const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as ProviderError);
const methods = (which: 'main' | 'other' = 'main') => servers[which].seen.map((r) => r.method);

describe('GeotabClient sessions', () => {
  it('authenticates once, reuses the session, and never sends the password again', async () => {
    handler = (rpc) => (rpc.method === 'Authenticate' ? auth('S1') : { body: devices });
    const c = client();
    await c.get('Device', deviceSchema);
    await c.get('Device', deviceSchema, { search: { id: 'b3' }, resultsLimit: 1 });
    expect(methods()).toEqual(['Authenticate', 'Get', 'Get']);
    expect(servers.main.seen[0].params).toEqual(credentials);
    expect(servers.main.seen[2].params).toEqual({ typeName: 'Device', search: { id: 'b3' }, resultsLimit: 1, credentials: { database: 'acme', userName: credentials.userName, sessionId: 'S1' } });
  });

  it('follows the Authenticate path to another server; "ThisServer" keeps the base URL', async () => {
    const otherHost = new URL(servers.other.url).host;
    handler = (rpc, which) => (rpc.method === 'Authenticate' ? auth('S1', otherHost) : which === 'other' ? { body: devices } : geotabError('InvalidUserException'));
    expect(await client().get('Device', deviceSchema)).toHaveLength(1);
    expect([methods('main'), methods('other')]).toEqual([['Authenticate'], ['Get']]);
    expect(serverUrl('https://my.geotab.com', 'my512.geotab.com')).toBe('https://my512.geotab.com');
    expect(serverUrl('https://my.geotab.com', 'ThisServer')).toBe('https://my.geotab.com');
  });

  it('renews an expired session once (HTTP 200 InvalidUserException) and retries the call', async () => {
    let session = 0;
    handler = (rpc) => {
      if (rpc.method === 'Authenticate') return auth(`S${++session}`);
      return rpc.params.credentials?.sessionId === 'S1' ? geotabError('InvalidUserException') : { body: devices };
    };
    expect(await client().get('Device', deviceSchema)).toHaveLength(1);
    expect(methods()).toEqual(['Authenticate', 'Get', 'Authenticate', 'Get']);
  });

  it('a revoked credential is provider_auth_required after one renewal, with no loop', async () => {
    let authCalls = 0;
    handler = (rpc) => (rpc.method === 'Authenticate' && ++authCalls === 1 ? auth('S1') : geotabError('InvalidUserException', 'Incorrect login credentials'));
    const error = await failure(client().get('Device', deviceSchema));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ code: 'provider_auth_required', detail: { path: 'geotab:Authenticate', message: 'InvalidUserException' } });
    expect(methods()).toEqual(['Authenticate', 'Get', 'Authenticate']);
    expect(JSON.stringify(error)).not.toContain('s3cret');
  });

  it('refuses an 11th Authenticate within a minute locally (the provider allows 10/min/user)', async () => {
    handler = () => geotabError('InvalidUserException');
    const clock = fakeClock();
    const c = client(clock);
    for (let i = 0; i < 10; i++) expect(await failure(c.get('Device', deviceSchema))).toMatchObject({ code: 'provider_auth_required' });
    const throttled = await failure(c.get('Device', deviceSchema));
    expect(throttled).toMatchObject({ code: 'provider_throttled', detail: { retryAfterMs: 60_000 } });
    expect(methods().filter((m) => m === 'Authenticate')).toHaveLength(10);
    await clock.sleep(60_001);
    expect(await failure(c.get('Device', deviceSchema))).toMatchObject({ code: 'provider_auth_required' });
    expect(c.authenticateCallsInWindow()).toBe(1);
  });
});

describe('GeotabClient in-body errors', () => {
  it('honours Retry-After on an HTTP-200 OverLimitException, then succeeds', async () => {
    let gets = 0;
    handler = (rpc) => (rpc.method === 'Authenticate' ? auth('S1') : ++gets === 1 ? geotabError('OverLimitException', 'API calls quota exceeded', { headers: { 'retry-after': '7' } }) : { body: devices });
    const clock = fakeClock();
    expect(await client(clock).get('Device', deviceSchema)).toHaveLength(1);
    expect(clock.sleeps).toEqual([7000]);
  });

  it('a persistent OverLimit is provider_throttled carrying the wait; 429 + JSON-RPC body goes through the transport retry', async () => {
    handler = (rpc) => (rpc.method === 'Authenticate' ? auth('S1') : geotabError('OverLimitException', 'quota', { status: 429, headers: { 'retry-after': '2' } }));
    const clock = fakeClock();
    expect(await failure(client(clock).get('Device', deviceSchema))).toMatchObject({ code: 'provider_throttled', detail: { status: 429, retryAfterMs: 2000 } });
    expect(clock.sleeps).toEqual([2000, 2000]);
    handler = (rpc) => (rpc.method === 'Authenticate' ? auth('S1') : { body: { error: { message: 'quota', data: { type: 'OverLimitException', retryAfter: 3 } } } });
    expect(await failure(client().get('Device', deviceSchema))).toMatchObject({ code: 'provider_throttled', detail: { retryAfterMs: 3000 } });
  });

  it.each([
    ['DbUnavailableException', 'The database is initializing', 'provider_unavailable', 3],
    ['DbUnavailableException', "Database 'acme' was not found", 'provider_config_invalid', 1],
    ['InvalidPermissionsException', 'The user does not have access to Trip', 'provider_scope_mismatch', 1],
    ['MissingMethodException', 'The method "Get" could not be found', 'provider_response_changed', 1],
    ['ArgumentException', 'resultsLimit', 'provider_config_invalid', 1],
    ['SomethingNewException', 'x', 'provider_unavailable', 1],
  ])('%s (%s) → %s after %i call(s)', async (type, message, code, calls) => {
    handler = (rpc) => (rpc.method === 'Authenticate' ? auth('S1') : geotabError(type, message));
    expect(await failure(client().get('Trip', z.unknown()))).toMatchObject({ code, detail: { message: type, path: 'geotab:Get' } });
    expect(methods().filter((m) => m === 'Get')).toHaveLength(calls);
  });

  it('a wrong database at Authenticate is provider_config_invalid', async () => {
    handler = () => geotabError('DbUnavailableException', "Database 'acme' was not found");
    expect(await failure(client().get('Device', deviceSchema))).toMatchObject({ code: 'provider_config_invalid', detail: { path: 'geotab:Authenticate' } });
  });

  it('reads the error fixtures: MissingMethodException via errors[0].name; a body with neither member is provider_response_changed', async () => {
    handler = (rpc) => (rpc.method === 'Authenticate' ? auth('S1') : { body: loadFixture('error', 'ok', 'missing-method') });
    expect(await failure(client().get('Device', deviceSchema))).toMatchObject({ code: 'provider_response_changed', detail: { message: 'MissingMethodException' } });
    handler = (rpc) => (rpc.method === 'Authenticate' ? auth('S1') : { body: loadFixture('error', 'not-ok', 'neither-result-nor-error') });
    expect(await failure(client().get('Device', deviceSchema))).toMatchObject({ code: 'provider_response_changed' });
  });

  it('GetFeed sends fromVersion and caps resultsLimit at 50,000', async () => {
    handler = (rpc) => (rpc.method === 'Authenticate' ? auth('S1') : { body: { result: { data: [{ id: 'b3' }], toVersion: '00000000000011a2' } } });
    const page = await client().getFeed('Device', deviceSchema, { fromVersion: '0000000000000001', resultsLimit: 1_000_000 });
    expect(page).toEqual({ data: [{ id: 'b3' }], toVersion: '00000000000011a2' });
    expect(servers.main.seen[1].params).toMatchObject({ typeName: 'Device', fromVersion: '0000000000000001', resultsLimit: 50_000 });
  });
});
