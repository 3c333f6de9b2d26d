// The simulators' provider-hosted OAuth (src/common/oauth.routes.ts) with plain fetch: the consent
// page, Approve → code → token exchange (Samsara: HTTP Basic client credentials), the token working
// as a Bearer on the API, and the refusals — unknown client, wrong secret, a code used twice, a code
// sent with another redirect_uri, Deny → access_denied. Then the token lifecycle, as real providers
// behave: opaque access tokens that expire after the TTL (1 s simulators here, Samsara and Motive),
// rotating refresh tokens, earlier access tokens valid until their own expiry, API credentials and
// unknown bearers unchanged, the SIM_OAUTH_ACCESS_TOKEN_TTL_SECONDS setting and the /_sim/oauth counters.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { SANDBOX_OAUTH_CLIENT, createOAuthProvider } from '../src/common/oauth.routes.js';
import type { RunningSimulator } from '../src/common/sim-kit.types.js';
import { startSimulator } from '../src/common/simulator.js';
import { createFleet, fixedClock } from '../src/fleet/fleet.js';
import { createMotiveSimulator } from '../src/motive/index.js';
import { createSamsaraSimulator } from '../src/samsara/index.js';
import { NOW, startSamsaraHarness, TOKEN, type SamsaraHarness } from './samsara-harness.js';

let h: SamsaraHarness;
beforeAll(async () => {
  h = await startSamsaraHarness();
});
afterAll(() => h.close());

const REDIRECT = 'http://127.0.0.1:9/connect/oauth/callback';
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

async function approve(decision = 'approve'): Promise<URL> {
  const form = new URLSearchParams({ client_id: SANDBOX_OAUTH_CLIENT.clientId, redirect_uri: REDIRECT, state: 'st-1', response_type: 'code', account: '0', decision });
  const res = await fetch(`${h.sim.url}/oauth2/authorize`, { method: 'POST', body: form, redirect: 'manual' });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location') ?? '');
}

function exchange(code: string, authorization = basic(SANDBOX_OAUTH_CLIENT.clientId, SANDBOX_OAUTH_CLIENT.clientSecret), redirectUri = REDIRECT) {
  return fetch(`${h.sim.url}/oauth2/token`, { method: 'POST', headers: { authorization }, body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }) });
}

describe('Samsara simulator OAuth', () => {
  it('shows a consent page for the registered client and refuses an unknown one', async () => {
    const ok = await fetch(`${h.sim.url}/oauth2/authorize?client_id=${SANDBOX_OAUTH_CLIENT.clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}&state=s&response_type=code`);
    expect(ok.status).toBe(200);
    const html = await ok.text();
    expect(html).toContain('Approve');
    expect(html).not.toContain(TOKEN);
    expect((await fetch(`${h.sim.url}/oauth2/authorize?client_id=other&redirect_uri=${encodeURIComponent(REDIRECT)}&response_type=code`)).status).toBe(400);
  });

  it('Approve → code → access token that authenticates API calls; the code works once', async () => {
    const back = await approve();
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe('st-1');
    const code = back.searchParams.get('code') ?? '';
    const res = await exchange(code);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { access_token: string; refresh_token: string; token_type: string; expires_in: number };
    expect(body.token_type).toBe('bearer');
    // Opaque, not the account's API credential (mutation checked: `access_token: account`); the default TTL.
    expect(body.access_token).toMatch(/^sim_oauth_[A-Za-z0-9_-]{43}$/);
    expect(body.access_token).not.toContain(TOKEN);
    expect(body.expires_in).toBe(3600);
    const api = await fetch(`${h.sim.url}/tags`, { headers: { authorization: `Bearer ${body.access_token}` } });
    expect(api.status).toBe(200);
    expect((await exchange(code)).status).toBe(400);
  });

  it('refuses a wrong client secret (401) and a code sent with another redirect_uri (400); Deny redirects with access_denied', async () => {
    expect((await exchange((await approve()).searchParams.get('code') ?? '', basic(SANDBOX_OAUTH_CLIENT.clientId, 'wrong'))).status).toBe(401);
    expect((await exchange((await approve()).searchParams.get('code') ?? '', undefined, 'http://127.0.0.1:9/elsewhere')).status).toBe(400);
    const denied = await approve('deny');
    expect([denied.searchParams.get('error'), denied.searchParams.get('code')]).toEqual(['access_denied', null]);
  });
});

type Tokens = { access_token: string; refresh_token: string; expires_in: number };

/** Approve account 0 at `sim` and exchange the code (each provider's client authentication). */
async function grant(sim: RunningSimulator): Promise<Tokens> {
  const authorize = sim.provider === 'samsara' ? '/oauth2/authorize' : '/oauth/authorize';
  const consent = new URLSearchParams({ client_id: SANDBOX_OAUTH_CLIENT.clientId, redirect_uri: REDIRECT, response_type: 'code', account: '0', decision: 'approve' });
  const back = new URL((await fetch(`${sim.url}${authorize}`, { method: 'POST', body: consent, redirect: 'manual' })).headers.get('location') ?? '');
  const res = await tokenRequest(sim, { grant_type: 'authorization_code', code: back.searchParams.get('code') ?? '', redirect_uri: REDIRECT });
  expect(res.status).toBe(200);
  return (await res.json()) as Tokens;
}

function tokenRequest(sim: RunningSimulator, fields: Record<string, string>): Promise<Response> {
  const { clientId, clientSecret } = SANDBOX_OAUTH_CLIENT;
  if (sim.provider === 'samsara') return fetch(`${sim.url}/oauth2/token`, { method: 'POST', headers: { authorization: basic(clientId, clientSecret) }, body: new URLSearchParams(fields) });
  return fetch(`${sim.url}/oauth/token`, { method: 'POST', body: new URLSearchParams({ ...fields, client_id: clientId, client_secret: clientSecret }) });
}

const refresh = (sim: RunningSimulator, refreshToken: string) => tokenRequest(sim, { grant_type: 'refresh_token', refresh_token: refreshToken });
const apiPath = (sim: RunningSimulator) => (sim.provider === 'samsara' ? '/tags' : '/v1/groups');
const bearer = (sim: RunningSimulator, token: string) => fetch(`${sim.url}${apiPath(sim)}`, { headers: { authorization: `Bearer ${token}` } });

async function startShortLived(provider: 'samsara' | 'motive', options: { controlApi?: boolean } = {}): Promise<RunningSimulator> {
  const def = provider === 'samsara' ? createSamsaraSimulator() : createMotiveSimulator();
  return startSimulator(def, { port: 0, fleet: createFleet({ seed: 'oauth', vehicles: 2 }), clock: fixedClock(NOW), accounts: [{ id: `${provider}-oauth-account` }], controlApi: options.controlApi ?? true, oauth: { accessTokenTtlSeconds: 1 } });
}

describe('access tokens expire; refresh tokens rotate', () => {
  it('refresh: a new distinct access token that serves the same account; the used refresh token is refused; the earlier access token keeps working', async () => {
    const first = await grant(h.sim);
    const own = await (await fetch(`${h.sim.url}/tags`, { headers: { authorization: `Bearer ${TOKEN}` } })).json();
    const res = await refresh(h.sim, first.refresh_token);
    expect(res.status).toBe(200);
    const second = (await res.json()) as Tokens;
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    for (const token of [second.access_token, first.access_token]) {
      const api = await bearer(h.sim, token);
      expect(api.status).toBe(200);
      // Served as the account behind the grant: the same body its own API token gets.
      expect(await api.json()).toEqual(own);
    }
    // Mutations checked: not deleting the used refresh token in the refresh grant → this 200s;
    // dropping the account's earlier access tokens on issue → the loop above gets a 401.
    const reused = await refresh(h.sim, first.refresh_token);
    expect([reused.status, await reused.json()]).toEqual([400, { error: 'invalid_grant' }]);
    expect((await refresh(h.sim, second.refresh_token)).status).toBe(200);
  });

  it('an unknown bearer is unauthorized as before; the account API token still works', async () => {
    // Mutation checked: the kit identifying accounts from issued tokens only (no fallback to the
    // provider's own lookup) → the API token's 200 fails.
    expect((await bearer(h.sim, `sim_oauth_${'A'.repeat(43)}`)).status).toBe(401);
    expect((await bearer(h.sim, TOKEN)).status).toBe(200);
  });

  it.each(['samsara', 'motive'] as const)('%s: an access token works until its TTL (1 s), then answers the provider 401; refreshing gives a working one', async (provider) => {
    const sim = await startShortLived(provider);
    try {
      const first = await grant(sim);
      expect(first.expires_in).toBe(1);
      expect((await bearer(sim, first.access_token)).status).toBe(200);
      await sleep(1_100);
      // Mutations checked: `accessToken()` never reporting `expired`, or the kit not answering it
      // (serving the account anyway) → this is 200.
      const expired = await bearer(sim, first.access_token);
      expect(expired.status).toBe(401);
      expect(await expired.json()).toMatchObject(provider === 'samsara' ? { message: 'access token expired' } : { error_message: 'access token expired' });
      const res = await refresh(sim, first.refresh_token);
      expect(res.status).toBe(200);
      const second = (await res.json()) as Tokens;
      expect((await bearer(sim, second.access_token)).status).toBe(200);
      // The account's own credential never expires (Motive: Bearer and X-Api-Key alike).
      expect((await bearer(sim, `${provider}-oauth-account`)).status).toBe(200);
      if (provider === 'motive') expect((await fetch(`${sim.url}/v1/groups`, { headers: { 'x-api-key': 'motive-oauth-account' } })).status).toBe(200);
    } finally {
      await sim.close();
    }
  });

  it('the TTL comes from SIM_OAUTH_ACCESS_TOKEN_TTL_SECONDS (a bad value fails at start) or the option', async () => {
    const saved = process.env.SIM_OAUTH_ACCESS_TOKEN_TTL_SECONDS;
    try {
      for (const bad of ['0', '-5', '1.5', '1h', 'abc']) {
        process.env.SIM_OAUTH_ACCESS_TOKEN_TTL_SECONDS = bad;
        expect(() => createOAuthProvider('samsara', () => [TOKEN])).toThrow(`SIM_OAUTH_ACCESS_TOKEN_TTL_SECONDS must be a whole number of seconds ≥ 1, got "${bad}"`);
      }
      process.env.SIM_OAUTH_ACCESS_TOKEN_TTL_SECONDS = '0';
      await expect(startSimulator(createMotiveSimulator(), { port: 0, fleet: createFleet({ seed: 'oauth', vehicles: 1 }), clock: fixedClock(NOW), accounts: [{ id: 'k' }], controlApi: false })).rejects.toThrow('SIM_OAUTH_ACCESS_TOKEN_TTL_SECONDS');
      process.env.SIM_OAUTH_ACCESS_TOKEN_TTL_SECONDS = '7';
      const sim = await startSimulator(createSamsaraSimulator(), { port: 0, fleet: createFleet({ seed: 'oauth', vehicles: 1 }), clock: fixedClock(NOW), accounts: [{ id: TOKEN }], controlApi: false });
      try {
        expect((await grant(sim)).expires_in).toBe(7);
      } finally {
        await sim.close();
      }
    } finally {
      if (saved === undefined) delete process.env.SIM_OAUTH_ACCESS_TOKEN_TTL_SECONDS;
      else process.env.SIM_OAUTH_ACCESS_TOKEN_TTL_SECONDS = saved;
    }
    expect(() => createOAuthProvider('samsara', () => [TOKEN], { accessTokenTtlSeconds: 0 })).toThrow('accessTokenTtlSeconds must be a whole number of seconds ≥ 1, got 0');
  });
});

describe('/_sim/oauth (control API)', () => {
  it('counts token-endpoint requests per grant type whatever their answer; DELETE resets; absent without the control API', async () => {
    expect((await fetch(`${h.sim.url}/_sim/oauth`, { method: 'DELETE' })).status).toBe(204);
    const tokens = await grant(h.sim);
    await refresh(h.sim, tokens.refresh_token);
    await refresh(h.sim, tokens.refresh_token); // refused: already used
    const counts = await fetch(`${h.sim.url}/_sim/oauth`);
    expect([counts.status, await counts.json()]).toEqual([200, { tokenRequests: { authorization_code: 1, refresh_token: 2 } }]);
    expect((await fetch(`${h.sim.url}/_sim/oauth`, { method: 'POST' })).status).toBe(405);
    const closed = await startShortLived('motive', { controlApi: false });
    try {
      // Not served: the path goes to the provider's API, which wants a credential.
      expect((await fetch(`${closed.url}/_sim/oauth`)).status).toBe(401);
    } finally {
      await closed.close();
    }
  });
});
