/**
 * The gateway refreshes OAuth grants in `gateway.connection.provider-access` (decision 0027), over
 * the real NATS server and PostgreSQL, against real Samsara and Motive simulator processes (their
 * token endpoints rotate refresh tokens: a used one answers 400 `invalid_grant`). Each grant is
 * obtained as a customer would: the simulator's consent form approved over HTTP, the code
 * exchanged through the gateway's own `requestToken`. A connection is seeded with a random
 * "expired" access token (which the simulator refuses) beside the real refresh token, so a reply
 * whose token the simulator accepts is the proof of a refresh.
 *
 * A second gateway has Samsara's token URL pointed at a relay in this file (which can answer 503,
 * or hold a refresh until the test released it and then forward it to the simulator) and no Motive
 * OAuth client at all.
 *
 * Mutations tried (each caught, then restored):
 * - without the advisory lock (`lockGrantRefresh` of db/repositories/oauth-grant.repository.ts
 *   not called), "eight concurrent collectors" fails: the requests that read the seal before the
 *   first refresh committed reuse the rotated refresh token and answer provider_auth_required;
 * - without the re-read of the seal under the lock (refreshing whatever the caller saw before it
 *   queued), the same test fails the same way: the queued requests refresh with the refresh token
 *   they read before the first refresh rotated it;
 * - without the compare-and-swap (`and provider_credentials = ?` dropped from the UPDATE of
 *   `swapSealedCredentials`), "a reconnect … wins" fails: the refreshed tokens overwrite the
 *   reconnect's;
 * - `refreshable` hard-coded false again, or PROACTIVE_REFRESH_MARGIN_MS set to 0, fail the tests
 *   that expect a refresh.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBus, providerAccessRequest, RpcError, RPCS, type MessageBus, type ProviderAccessV1 } from '@switchyard/messaging';
import { SIMULATOR_OAUTH_PATHS, simulatorAuthorizationCode, spawnSimulator, type NodeProcess } from '@switchyard/testing';
import type { OAuthClient } from '../src/config.js';
import { requestToken, type OAuthProviderName } from '../src/services/connect-session-oauth.js';
import { bearer, logLines, startTestGateway, type TestGateway } from './support.js';

const secret = (label: string) => `${label}-${randomBytes(18).toString('base64url')}`;
const CLIENT = { clientId: secret('client'), clientSecret: secret('client-secret') };
const ACCOUNT = { samsara: secret('samsara-account'), motive: secret('motive-account') };
const REDIRECT_URI = 'http://127.0.0.1:9/connect/oauth/callback';
/** A read each simulator's API answers 200 for a working token. */
const API_PATH = { samsara: '/fleet/vehicles', motive: '/v1/vehicles' };
const HOUR_MS = 3_600_000;

let gw: TestGateway;
/** Samsara's token URL is the relay below; Motive has no OAuth client. */
let relayed: TestGateway;
let collector: MessageBus;
let relayedCollector: MessageBus;
const sims: Partial<Record<OAuthProviderName, { process: NodeProcess; url: string }>> = {};
const clients = {} as Record<OAuthProviderName, OAuthClient>;
/** Every secret this suite saw: none may appear in a log line. */
const seen = new Set<string>([CLIENT.clientSecret, ACCOUNT.samsara, ACCOUNT.motive]);

/** The relay in front of the Samsara simulator's token endpoint (the second gateway's token URL). */
let relay: http.Server;
let relayUrl: string;
let relayMode: 'unavailable' | 'forward' = 'forward';
/** While set, a relayed request reports its arrival and waits for the release before it is forwarded. */
let hold: { arrived: () => void; release: Promise<void> } | undefined;
let relayedRequests = 0;

async function startRelay(): Promise<void> {
  relay = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      relayedRequests += 1;
      void (async () => {
        if (relayMode === 'unavailable') return void res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"temporarily_unavailable"}');
        const gate = hold;
        if (gate) {
          gate.arrived();
          await gate.release;
        }
        const upstream = await fetch(clients.samsara.tokenUrl, {
          method: 'POST',
          headers: { 'content-type': req.headers['content-type'] ?? '', authorization: req.headers.authorization ?? '' },
          body: Buffer.concat(chunks),
        });
        res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
      })();
    });
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}/oauth2/token`;
}

/** A customer's grant: the simulator's consent form approved (account 0), the code exchanged by the gateway's token request. */
async function grant(provider: OAuthProviderName): Promise<{ accessToken: string; refreshToken: string }> {
  const code = await simulatorAuthorizationCode(sims[provider]!.url, provider, CLIENT.clientId, REDIRECT_URI);
  const answer = await requestToken(provider, clients[provider], { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI });
  if (!answer.ok || !answer.refreshToken) throw new Error(`code exchange failed: ${answer.ok ? 'no refresh token' : answer.reason}`);
  seen.add(answer.accessToken).add(answer.refreshToken);
  return { accessToken: answer.accessToken, refreshToken: answer.refreshToken };
}

/** The simulator's API status for a Bearer token (200: the token works; 401: refused). */
async function apiStatus(provider: OAuthProviderName, token: string): Promise<number> {
  const res = await fetch(`${sims[provider]!.url}${API_PATH[provider]}`, { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  return res.status;
}

/** What a collector does: a fresh key pair, the request (naming the refused token, if any), and opening the sealed reply. */
async function access(connectionId: string, rejectedToken?: string, bus = collector): Promise<ProviderAccessV1> {
  const sealed = providerAccessRequest(connectionId, rejectedToken);
  return sealed.open(await bus.request(RPCS.gateway.providerAccess, sealed.request, { timeoutMs: 20_000 }));
}

async function accessError(connectionId: string, rejectedToken?: string, bus = collector): Promise<RpcError> {
  const error = await access(connectionId, rejectedToken, bus).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
}

/** Every secret of `credentials` joins `seen` (the expiry is not one). */
function remember(credentials: Record<string, string>): void {
  for (const [key, value] of Object.entries(credentials)) if (key !== 'accessTokenExpiresAt') seen.add(value);
}

async function connection(provider: OAuthProviderName, credentials: Record<string, string>, gateway = gw): Promise<string> {
  remember(credentials);
  return (await gateway.connections.create({ customerId: 'c-oauth', provider, environment: 'sandbox', providerCredentials: credentials })).connectionId;
}

async function stored(connectionId: string, gateway = gw): Promise<Record<string, string>> {
  const credentials = (await gateway.connections.providerCredentials(connectionId)) ?? {};
  remember(credentials);
  return credentials;
}

async function storedSeal(connectionId: string, gateway = gw): Promise<string> {
  const rows = await gateway.service.runtime.orm.em.fork().execute<{ provider_credentials: string }[]>(`select provider_credentials from "${gateway.schemas.gateway}"."connection" where id = ?::uuid`, [connectionId]);
  return rows[0]!.provider_credentials;
}

async function revision(connectionId: string, gateway = gw): Promise<number> {
  return (await gateway.connections.get(connectionId))!.revision;
}

/** Refresh-grant requests the Samsara simulator has answered so far (its `/_sim/oauth` counters). */
async function simulatorRefreshes(): Promise<number> {
  const res = await fetch(`${sims.samsara!.url}/_sim/oauth`);
  return ((await res.json()) as { tokenRequests: { refresh_token: number } }).tokenRequests.refresh_token;
}

const logged = (gateway: TestGateway, msg: string, connectionId: string) => logLines(gateway).filter((l) => l.msg === msg && l.connectionId === connectionId);
const refreshes = (connectionId: string, gateway = gw) => logged(gateway, 'OAuth grant refreshed', connectionId);
const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

beforeAll(async () => {
  const env = { SIM_OAUTH_CLIENT_ID: CLIENT.clientId, SIM_OAUTH_CLIENT_SECRET: CLIENT.clientSecret, SIM_OAUTH_ACCESS_TOKEN_TTL_SECONDS: '3600', SIM_VEHICLES: '1', SIM_SEED: 'oauth-refresh' };
  sims.samsara = await spawnSimulator('samsara', { ...env, SAMSARA_API_TOKENS: ACCOUNT.samsara });
  sims.motive = await spawnSimulator('motive', { ...env, MOTIVE_API_KEYS: ACCOUNT.motive });
  for (const provider of ['samsara', 'motive'] as const) {
    const url = sims[provider]!.url;
    clients[provider] = { ...CLIENT, authorizeUrl: `${url}${SIMULATOR_OAUTH_PATHS[provider].authorize}`, tokenUrl: `${url}${SIMULATOR_OAUTH_PATHS[provider].token}` };
  }
  await startRelay();
  gw = await startTestGateway({ oauth: clients, providerBaseUrls: { samsara: sims.samsara.url, motive: sims.motive.url } });
  relayed = await startTestGateway({ oauth: { samsara: { ...clients.samsara, tokenUrl: relayUrl } } });
  collector = await createBus({ kind: 'jetstream', servers: gw.natsUrl, name: 'collector-test', namespace: gw.namespace });
  relayedCollector = await createBus({ kind: 'jetstream', servers: relayed.natsUrl, name: 'collector-test', namespace: relayed.namespace });
}, 60_000);

afterAll(async () => {
  await collector?.close();
  await relayedCollector?.close();
  await gw?.close();
  await relayed?.close();
  await new Promise((resolve) => relay?.close(resolve));
  for (const sim of Object.values(sims)) await sim.process.kill();
});

describe('provider-access refreshes an OAuth grant', () => {
  it('at connect, the code exchange seals the refresh token and the access token’s expiry beside it; collectors get the access token only', async () => {
    const key = await gw.credentials.createConsumerKey('oauth refresh');
    const { connectionId } = await gw.connections.create({ customerId: 'c-oauth', provider: 'samsara', environment: 'sandbox' });
    await gw.connections.configure(connectionId, { status: 'paused' });
    await gw.credentials.grantConsumer(key.id, connectionId, ['read', 'manage']);
    const session = await gw.call('POST', `/v1/connections/${connectionId}/connect-sessions`, { headers: bearer(key.token) });
    const { url } = session.body as { url: string };
    // The connect page, as a browser would submit it: OAuth chosen, one signal, the disclosure accepted.
    const csrf = /name="csrf" value="([^"]+)"/.exec(await (await fetch(url)).text())?.[1] ?? '';
    const toProvider = await fetch(url, { method: 'POST', body: new URLSearchParams({ csrf, method: 'oauth', signals: 'odometer', accept: 'yes' }), redirect: 'manual' });
    const authorize = new URL(toProvider.headers.get('location') ?? 'http://invalid');
    expect(`${authorize.origin}${authorize.pathname}`).toBe(clients.samsara.authorizeUrl);
    const consent = await fetch(clients.samsara.authorizeUrl, { method: 'POST', body: new URLSearchParams({ ...Object.fromEntries(authorize.searchParams), decision: 'approve', account: '0' }), redirect: 'manual' });
    const back = await fetch(consent.headers.get('location') ?? 'http://invalid');
    expect(back.status).toBe(200);

    const sealed = await stored(connectionId);
    expect(Object.keys(sealed).sort()).toEqual(['accessTokenExpiresAt', 'apiToken', 'refreshToken']);
    expect(Math.abs(Date.parse(sealed.accessTokenExpiresAt!) - (Date.now() + HOUR_MS))).toBeLessThan(60_000);
    const reply = await access(connectionId);
    expect(reply).toMatchObject({ refreshable: true, credentials: { apiToken: sealed.apiToken } });
    expect(Object.keys(reply.credentials)).toEqual(['apiToken']);
    expect(refreshes(connectionId)).toEqual([]);
  });

  it('a refused token (rejectedTokenHash of the stored one) is refreshed: new credentials that work, the refresh token rotated, the revision kept', async () => {
    const { refreshToken } = await grant('samsara');
    const expired = secret('expired');
    expect(await apiStatus('samsara', expired)).toBe(401);
    const id = await connection('samsara', { apiToken: expired, refreshToken });
    const before = await revision(id);

    const reply = await access(id, expired);
    expect(reply).toMatchObject({ provider: 'samsara', refreshable: true, revision: before });
    // Collectors get the access token only: the refresh token and the expiry stay sealed in the gateway.
    expect(Object.keys(reply.credentials)).toEqual(['apiToken']);
    const { apiToken } = reply.credentials as { apiToken: string };
    expect(await apiStatus('samsara', apiToken)).toBe(200);

    const now = await stored(id);
    expect(now.apiToken).toBe(apiToken);
    expect(now.refreshToken).not.toBe(refreshToken);
    expect(Math.abs(Date.parse(now.accessTokenExpiresAt!) - (Date.now() + HOUR_MS))).toBeLessThan(60_000);
    // The simulator rotated it: the old refresh token is spent, the stored one is live.
    expect(await requestToken('samsara', clients.samsara, { grant_type: 'refresh_token', refresh_token: refreshToken })).toEqual({ ok: false, reason: 'provider_auth_required' });
    expect(await revision(id)).toBe(before);
    expect(refreshes(id)).toEqual([expect.objectContaining({ level: 'info', provider: 'samsara', reason: 'rejected', accessTokenExpiresAt: now.accessTokenExpiresAt })]);
  });

  it('Motive: the client credentials go as form fields, the token lives under accessToken', async () => {
    const { refreshToken } = await grant('motive');
    const expired = secret('expired');
    expect(await apiStatus('motive', expired)).toBe(401);
    const id = await connection('motive', { accessToken: expired, refreshToken });
    const reply = await access(id, expired);
    expect(reply).toMatchObject({ provider: 'motive', refreshable: true });
    expect(Object.keys(reply.credentials)).toEqual(['accessToken']);
    const { accessToken } = reply.credentials as { accessToken: string };
    expect(await apiStatus('motive', accessToken)).toBe(200);
    expect((await stored(id)).refreshToken).not.toBe(refreshToken);
    expect(refreshes(id)).toHaveLength(1);
  });

  it('eight concurrent collectors reporting the same refused token make one refresh and all get the new token', async () => {
    const { refreshToken } = await grant('samsara');
    const expired = secret('expired');
    const id = await connection('samsara', { apiToken: expired, refreshToken });
    const before = await simulatorRefreshes();
    const replies = await Promise.allSettled(Array.from({ length: 8 }, () => access(id, expired)));
    const failures = replies.flatMap((r) => (r.status === 'rejected' ? [(r.reason as RpcError).code] : []));
    expect(failures).toEqual([]);
    const tokens = new Set(replies.map((r) => (r.status === 'fulfilled' ? (r.value.credentials as { apiToken: string }).apiToken : '')));
    expect(tokens).toEqual(new Set([(await stored(id)).apiToken]));
    expect(await apiStatus('samsara', [...tokens][0]!)).toBe(200);
    expect(refreshes(id)).toHaveLength(1);
    expect((await simulatorRefreshes()) - before).toBe(1);
  });

  it('a rejectedTokenHash of a token no longer stored answers the current credentials without a refresh', async () => {
    const { accessToken, refreshToken } = await grant('samsara');
    const id = await connection('samsara', { apiToken: accessToken, refreshToken, accessTokenExpiresAt: inMs(HOUR_MS) });
    const seal = await storedSeal(id);
    const before = await simulatorRefreshes();
    const reply = await access(id, secret('refreshed-away-by-another-collector'));
    expect(reply).toMatchObject({ refreshable: true, credentials: { apiToken: accessToken } });
    expect(await storedSeal(id)).toBe(seal);
    expect(await simulatorRefreshes()).toBe(before);
    expect(refreshes(id)).toEqual([]);
  });

  it('refreshes proactively when the stored expiry is less than 5 minutes away or past, and not when it is further', async () => {
    for (const [expiresIn, refreshed] of [
      [4 * 60_000, true],
      [-60_000, true],
      [6 * 60_000, false],
    ] as const) {
      const { accessToken, refreshToken } = await grant('samsara');
      const id = await connection('samsara', { apiToken: accessToken, refreshToken, accessTokenExpiresAt: inMs(expiresIn) });
      const seal = await storedSeal(id);
      const reply = await access(id);
      expect(reply.refreshable).toBe(true);
      expect(await apiStatus('samsara', (reply.credentials as { apiToken: string }).apiToken)).toBe(200);
      const now = await stored(id);
      if (refreshed) {
        expect(now.refreshToken).not.toBe(refreshToken);
        expect(Date.parse(now.accessTokenExpiresAt!)).toBeGreaterThan(Date.now() + HOUR_MS - 60_000);
        expect(refreshes(id)).toEqual([expect.objectContaining({ reason: 'expiring' })]);
      } else {
        expect(await storedSeal(id)).toBe(seal);
        expect(refreshes(id)).toEqual([]);
      }
    }
  });

  it('a refused refresh (spent refresh token): provider_auth_required when asked for by rejectedTokenHash, the current credentials when only proactive', async () => {
    const spent = await grant('samsara');
    await requestToken('samsara', clients.samsara, { grant_type: 'refresh_token', refresh_token: spent.refreshToken });
    const expired = secret('expired');
    const reactive = await connection('samsara', { apiToken: expired, refreshToken: spent.refreshToken });
    const error = await accessError(reactive, expired);
    expect(error.code).toBe('provider_auth_required');
    expect(error.detail).toBe('the OAuth grant could not be refreshed; reconnect the connection');

    const proactive = await connection('samsara', { apiToken: spent.accessToken, refreshToken: spent.refreshToken, accessTokenExpiresAt: inMs(60_000) });
    const seal = await storedSeal(proactive);
    expect(await access(proactive)).toMatchObject({ refreshable: true, credentials: { apiToken: spent.accessToken } });
    expect(await storedSeal(proactive)).toBe(seal);
    expect(logged(gw, 'OAuth refresh failed', proactive)).toEqual([expect.objectContaining({ level: 'warn', reason: 'expiring', code: 'provider_auth_required' })]);
    expect(refreshes(reactive)).toEqual([]);
    expect(refreshes(proactive)).toEqual([]);
  });

  it('an unavailable token endpoint (503): provider_unavailable when reactive, the current credentials when proactive', async () => {
    relayMode = 'unavailable';
    try {
      const { accessToken, refreshToken } = await grant('samsara');
      const expired = secret('expired');
      const reactive = await connection('samsara', { apiToken: expired, refreshToken }, relayed);
      expect((await accessError(reactive, expired, relayedCollector)).code).toBe('provider_unavailable');
      const proactive = await connection('samsara', { apiToken: accessToken, refreshToken, accessTokenExpiresAt: inMs(60_000) }, relayed);
      expect(await access(proactive, undefined, relayedCollector)).toMatchObject({ credentials: { apiToken: accessToken } });
      expect(logged(relayed, 'OAuth refresh failed', proactive)).toEqual([expect.objectContaining({ reason: 'expiring', code: 'provider_unavailable' })]);
    } finally {
      relayMode = 'forward';
    }
  });

  it('refreshable is false for API-key credentials and where no OAuth client is configured, and nothing is refreshed there', async () => {
    const apiToken = secret('api-token');
    const samsaraKey = await connection('samsara', { apiToken });
    expect(await access(samsaraKey, apiToken)).toMatchObject({ refreshable: false, credentials: { apiToken } });
    const apiKey = secret('api-key');
    const motiveKey = await connection('motive', { apiKey });
    expect(await access(motiveKey, apiKey)).toMatchObject({ refreshable: false, credentials: { apiKey } });

    // A Motive grant on the gateway without a Motive OAuth client: answered as stored, never refreshed.
    const { refreshToken } = await grant('motive');
    const expired = secret('expired');
    const unconfigured = await connection('motive', { accessToken: expired, refreshToken, accessTokenExpiresAt: inMs(-60_000) }, relayed);
    expect(await access(unconfigured, expired, relayedCollector)).toMatchObject({ refreshable: false, credentials: { accessToken: expired } });
    expect((await stored(unconfigured, relayed)).refreshToken).toBe(refreshToken);
    expect(refreshes(samsaraKey)).toEqual([]);
    expect(refreshes(motiveKey)).toEqual([]);
    expect(refreshes(unconfigured, relayed)).toEqual([]);
  });

  it('a reconnect that replaces the credentials while a refresh waits on the provider wins (compare-and-swap)', async () => {
    const { refreshToken } = await grant('samsara');
    const expired = secret('expired');
    const id = await connection('samsara', { apiToken: expired, refreshToken }, relayed);
    let arrived!: () => void;
    const atProvider = new Promise<void>((resolve) => (arrived = resolve));
    let release!: () => void;
    hold = { arrived, release: new Promise<void>((resolve) => (release = resolve)) };
    const before = relayedRequests;
    try {
      const pending = access(id, expired, relayedCollector);
      await atProvider;
      // What a completed connect session does: new sealed credentials on the connection's row lock.
      const reconnected = secret('reconnected');
      seen.add(reconnected);
      await relayed.service.runtime.orm.em.fork().transactional(async (em) => {
        await relayed.connections.apply(em, id, {}, { providerCredentials: relayed.connections.sealCredentials(id, { apiToken: reconnected }) });
      });
      release();
      const reply = await pending;
      expect(reply).toMatchObject({ refreshable: false, credentials: { apiToken: reconnected } });
      expect(await stored(id, relayed)).toEqual({ apiToken: reconnected });
      expect(relayedRequests - before).toBe(1);
      expect(refreshes(id, relayed)).toEqual([]);
      expect(logged(relayed, 'OAuth refresh dropped: the connection’s credentials were replaced meanwhile', id)).toHaveLength(1);
    } finally {
      hold = undefined;
      release();
    }
  });

  it('never writes a token, refresh token or client secret to the gateways’ logs', () => {
    const logs = gw.logText() + relayed.logText();
    expect(logs).toContain('OAuth grant refreshed');
    expect(seen.size).toBeGreaterThan(20);
    for (const value of seen) expect(logs).not.toContain(value);
  });
});
