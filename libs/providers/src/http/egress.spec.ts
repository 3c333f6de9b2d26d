/**
 * SSRF guard and redirects (egress.ts, ProviderHttpClient; docs/reliability.md "Hostile upstreams").
 * Every test stays on loopback whatever the code under test does: production policies get an
 * injected network (lookup and connect) whose connect records the addresses it is handed and opens
 * a stream to a loopback listener, never to them. Address classification: egress-address.spec.ts.
 *
 * Mutations tried (each fails the test named, and no packet left loopback):
 * - guardedConnection's address check removed (`for (const { address } of [])`): every "refuses a
 *   provider host resolving to …" row, "refuses loopback …" and "refuses a name with any refused
 *   address" (the connector records 10.0.0.7 … and the request answers 200 from the listener).
 * - assertEgressUrl's host checks removed: "refuses the base URL …" (resolved and connected).
 * - ProviderHttpClient following every redirect (origin check removed): "a 302 to another origin
 *   forwards neither Motive's X-Api-Key nor Samsara's bearer" (server B receives the credential).
 * - serverUrl back to `${protocol}//${host}` without the shape and egress check: "Geotab's named
 *   server …" (the refusal moves from Authenticate to the next call; with request()'s URL check also
 *   removed, the session id is posted to the named server).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect as netConnect, type AddressInfo } from 'node:net';
import { ProviderError } from '../errors.js';
import { GeotabClient, serverUrl } from '../geotab/geotab.client.js';
import { deviceSchema } from '../geotab/geotab.schemas.js';
import { createMotiveAdapter } from '../motive/motive.adapter.js';
import { createSamsaraAdapter } from '../samsara/samsara.adapter.js';
import { egressPolicyFor, hostAllowed, type EgressConnect, type EgressLookup, type EgressNetwork, type ProviderFetch } from './egress.js';
import { ProviderHttpClient } from './provider-http-client.js';

const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as ProviderError);

describe('hostAllowed', () => {
  it('matches allow-listed hosts exactly or as a sub-domain of a wildcard', () => {
    const geotab = egressPolicyFor('geotab', 'production').allowedHosts;
    expect(hostAllowed('my512.geotab.com', geotab)).toBe(true);
    expect(hostAllowed('MY.GEOTAB.COM.', geotab)).toBe(true);
    expect(hostAllowed('geotab.com.evil.example', geotab)).toBe(false);
    expect(hostAllowed('evilgeotab.com', geotab)).toBe(false);
    expect(hostAllowed('api.samsara.com.evil.example', egressPolicyFor('samsara', 'production').allowedHosts)).toBe(false);
  });
});

describe('production egress through ProviderHttpClient', () => {
  let listener: Server;
  let port: number;
  let connections = 0;
  beforeAll(async () => {
    listener = createHttpServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
    listener.on('connection', () => connections++);
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    port = (listener.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => listener.close(() => r())));
  beforeEach(() => void (connections = 0));

  /**
   * The injected network: every name resolves to `addresses`; connect records the addresses it was
   * handed and opens a plain TCP stream to the loopback listener (the "TLS" is the connector's, so
   * none), never to them. With the guard removed, `connected` shows where the request would have gone.
   */
  const network = (...addresses: string[]) => {
    const calls: string[] = [];
    const connected: string[][] = [];
    const lookup: EgressLookup = async (hostname) => (calls.push(hostname), addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
    const connect: EgressConnect = (target) => (connected.push(target.addresses.map((a) => a.address)), netConnect(port, '127.0.0.1'));
    return { calls, connected, lookup, connect };
  };
  const client = (baseUrl: string, net: EgressNetwork) =>
    new ProviderHttpClient({ baseUrl, egress: egressPolicyFor('samsara', 'production', net), retry: { maxAttempts: 3, baseDelayMs: 1 }, headers: () => ({ authorization: 'Bearer secret-token' }) });

  it('connects a public provider host to exactly its resolved addresses, through the connector', async () => {
    const net = network('52.94.236.248', '2600:1f18::1');
    expect((await client('https://api.samsara.com', net).request({ path: '/fleet/vehicles' })).status).toBe(200);
    expect(net.connected).toEqual([['52.94.236.248', '2600:1f18::1']]);
    expect(connections).toBe(1);
  });

  it('refuses loopback before connecting, once and finally', async () => {
    const net = network('127.0.0.1');
    const error = await failure(client('https://api.samsara.com', net).request({ path: '/fleet/vehicles' }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ code: 'provider_config_invalid', detail: { message: 'egress refused: api.samsara.com resolves to a loopback address' } });
    expect(net.calls).toEqual(['api.samsara.com']);
    expect(net.connected).toEqual([]);
    expect(connections).toBe(0);
  });

  it.each([
    ['10.0.0.7', 'private'],
    ['172.20.1.1', 'private'],
    ['192.168.0.10', 'private'],
    ['fd00::7', 'private'],
    ['169.254.10.10', 'link-local'],
    ['fe80::7', 'link-local'],
    ['100.64.1.1', 'cgnat'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['169.254.169.254', 'metadata'],
    ['::a9fe:a9fe', 'metadata'],
    ['::ffff:a00:7', 'private'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['::1', 'loopback'],
  ])('refuses a provider host resolving to %s (%s)', async (address, range) => {
    const net = network(address);
    const error = await failure(client('https://api.samsara.com', net).request({ path: '/fleet/vehicles' }));
    expect(error).toMatchObject({ code: 'provider_config_invalid', detail: { message: `egress refused: api.samsara.com resolves to a ${range} address` } });
    expect(net.connected).toEqual([]);
  });

  it('refuses a name with any refused address among public ones (no rebinding through a second record)', async () => {
    const net = network('52.94.236.248', '127.0.0.1');
    const error = await failure(client('https://api.samsara.com', net).request({ path: '/x' }));
    expect(error).toMatchObject({ code: 'provider_config_invalid', detail: { message: 'egress refused: api.samsara.com resolves to a loopback address' } });
    expect(net.connected).toEqual([]);
  });

  it.each([
    ['http://api.samsara.com', 'production requests use https only'],
    ['https://api.samsara.com.evil.example', 'host api.samsara.com.evil.example is not an allow-listed provider host'],
    ['https://my.geotab.com', 'host my.geotab.com is not an allow-listed provider host'],
    ['https://127.0.0.1', 'an IP literal is not allowed'],
    ['https://[::1]', 'an IP literal is not allowed'],
    ['https://user:pw@api.samsara.com', 'a URL with user information'],
  ])('refuses the base URL %s without resolving it', async (baseUrl, why) => {
    const net = network('52.94.236.248');
    const error = await failure(client(baseUrl, net).request({ path: '/fleet/vehicles' }));
    expect(error).toMatchObject({ code: 'provider_config_invalid', detail: { message: `egress refused: ${why}` } });
    expect(net.calls).toEqual([]);
    expect(net.connected).toEqual([]);
  });
});

/** Two local servers: A (the provider) and B (another origin A may redirect to). */
const servers: Record<'a' | 'b', { server?: Server; url: string; seen: { path: string; method: string; headers: IncomingHttpHeaders; body: string }[] }> = {
  a: { url: '', seen: [] },
  b: { url: '', seen: [] },
};
let routeA: (path: string) => { status: number; location?: string };

describe('redirects', () => {
  beforeAll(async () => {
    for (const which of ['a', 'b'] as const) {
      const server = createHttpServer((req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          const path = req.url ?? '/';
          servers[which].seen.push({ path, method: req.method ?? '', headers: req.headers, body });
          const route = which === 'a' ? routeA(path) : { status: 200 };
          res.writeHead(route.status, { 'content-type': 'application/json', ...(route.location ? { location: route.location } : {}) });
          res.end(route.status === 200 ? '{"data":[],"vehicles":[],"pagination":{"hasNextPage":false,"endCursor":"","per_page":25,"page_no":1,"total":0}}' : '');
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
    servers.a.seen = [];
    servers.b.seen = [];
  });

  it("a 302 to another origin forwards neither Motive's X-Api-Key nor Samsara's bearer: it is refused, finally", async () => {
    routeA = (path) => ({ status: 302, location: `${servers.b.url}${path}` });
    const motive = createMotiveAdapter({ provider: 'motive', baseUrl: servers.a.url, credentials: { apiKey: 'motive-key-123' }, retry: { maxAttempts: 3, baseDelayMs: 1 } });
    const samsara = createSamsaraAdapter({ provider: 'samsara', baseUrl: servers.a.url, credentials: { apiToken: 'samsara-token-456' }, retry: { maxAttempts: 3, baseDelayMs: 1 } });
    for (const adapter of [motive, samsara]) {
      const error = await failure(adapter.vehicles(null));
      expect(error).toMatchObject({ code: 'provider_config_invalid', detail: { status: 302, message: 'a redirect to another origin refused' } });
    }
    expect(servers.a.seen.map((s) => s.headers['x-api-key'] ?? s.headers.authorization)).toEqual(['motive-key-123', 'Bearer samsara-token-456']);
    expect(servers.b.seen).toEqual([]);
  });

  it('another port or host name of the same machine is another origin', async () => {
    const b = new URL(servers.b.url);
    for (const location of [`http://localhost:${b.port}/x`, `${servers.b.url}/x`, `http://127.0.0.1:${b.port}/x`]) {
      routeA = () => ({ status: 307, location });
      const http = new ProviderHttpClient({ baseUrl: servers.a.url, headers: () => ({ 'x-api-key': 'k' }) });
      await expect(http.request({ path: '/x' })).rejects.toMatchObject({ code: 'provider_config_invalid' });
    }
    expect(servers.b.seen).toEqual([]);
  });

  it('follows redirects within the origin with the credentials; 303 after a POST becomes a GET without body', async () => {
    routeA = (path) => (path === '/old' ? { status: 307, location: '/mid' } : path === '/mid' ? { status: 303, location: `${servers.a.url}/new` } : { status: 200 });
    const http = new ProviderHttpClient({ baseUrl: servers.a.url, headers: () => ({ 'x-api-key': 'k' }) });
    const res = await http.request({ method: 'POST', path: '/old', body: { q: 1 } });
    expect(res.status).toBe(200);
    expect(servers.a.seen.map((s) => [s.method, s.path, s.body, s.headers['x-api-key']])).toEqual([
      ['POST', '/old', '{"q":1}', 'k'],
      ['POST', '/mid', '{"q":1}', 'k'],
      ['GET', '/new', '', 'k'],
    ]);
  });

  it('stops a redirect loop after five hops', async () => {
    routeA = () => ({ status: 302, location: '/loop' });
    const http = new ProviderHttpClient({ baseUrl: servers.a.url });
    await expect(http.request({ path: '/loop' })).rejects.toMatchObject({ code: 'provider_config_invalid', detail: { message: 'too many redirects refused' } });
    expect(servers.a.seen).toHaveLength(6);
  });

  it('sandbox resolves through an injected lookup too (simulators by name on loopback)', async () => {
    routeA = () => ({ status: 200 });
    const port = new URL(servers.a.url).port;
    const http = new ProviderHttpClient({ baseUrl: `http://samsara-sim:${port}`, egress: { mode: 'sandbox', allowedHosts: [], lookup: async () => [{ address: '127.0.0.1', family: 4 }] } });
    expect((await http.request({ path: '/ok' })).status).toBe(200);
  });
});

describe("Geotab's named server", () => {
  /** A fake transport: Authenticate answers `path`; every exchange is recorded. */
  function geotab(path: string) {
    const sent: { url: string; body: string }[] = [];
    const fetch: ProviderFetch = async (url, init) => {
      sent.push({ url, body: init.body ?? '' });
      const method = (JSON.parse(init.body ?? '{}') as { method?: string }).method;
      const result = method === 'Authenticate' ? { credentials: { database: 'acme', sessionId: 'SESSION-SECRET', userName: 'svc' }, path } : [{ id: 'b1', name: 'Truck' }];
      return new Response(JSON.stringify({ result }), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const client = new GeotabClient({
      baseUrl: 'https://my.geotab.com',
      credentials: { database: 'acme', userName: 'svc', password: 'pw' },
      egress: egressPolicyFor('geotab', 'production'),
      retry: { maxAttempts: 1 },
      fetch: fetch as typeof globalThis.fetch,
    });
    return { sent, client };
  }

  it.each(['169.254.169.254', '127.0.0.1:5432', 'http://127.0.0.1:5432/', 'evil.example.com', 'my1.geotab.com@evil.example.com', 'my512.geotab.com:5432', 'my512.geotab.com/apiv1?x=1', '[::1]', 'geotab.com.evil.example'])(
    'a reply naming %s is refused at Authenticate and the session id goes nowhere',
    async (named) => {
      const { sent, client } = geotab(named);
      const error = await failure(client.get('Device', deviceSchema));
      expect(error).toMatchObject({ code: 'provider_config_invalid', detail: { path: 'geotab:Authenticate' } });
      expect(sent.map((s) => s.url)).toEqual(['https://my.geotab.com/apiv1']);
      expect(sent.some((s) => s.body.includes('SESSION-SECRET'))).toBe(false);
    },
  );

  it('an allow-listed Geotab server is followed over https', async () => {
    const { sent, client } = geotab('my512.geotab.com');
    expect(await client.get('Device', deviceSchema)).toHaveLength(1);
    expect(sent.map((s) => s.url)).toEqual(['https://my.geotab.com/apiv1', 'https://my512.geotab.com/apiv1']);
  });

  it('serverUrl keeps host:port only in the sandbox (simulators)', () => {
    expect(serverUrl('http://127.0.0.1:4103', '127.0.0.1:4999')).toBe('http://127.0.0.1:4999');
    expect(serverUrl('https://my.geotab.com', 'ThisServer', egressPolicyFor('geotab', 'production'))).toBe('https://my.geotab.com');
    expect(() => serverUrl('https://my.geotab.com', 'my5.geotab.com:444', egressPolicyFor('geotab', 'production'))).toThrow('not a host name');
  });
});
