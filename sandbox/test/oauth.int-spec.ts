// The simulators' provider-hosted OAuth (src/common/oauth.routes.ts) with plain fetch: the consent
// page, Approve → code → token exchange (Samsara: HTTP Basic client credentials), the token working
// as a Bearer on the API, and the refusals — unknown client, wrong secret, a code used twice, a code
// sent with another redirect_uri, Deny → access_denied.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SANDBOX_OAUTH_CLIENT } from '../src/common/oauth.routes.js';
import { startSamsaraHarness, TOKEN, type SamsaraHarness } from './samsara-harness.js';

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
    const body = (await res.json()) as { access_token: string; refresh_token: string; token_type: string };
    expect(body.token_type).toBe('bearer');
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
