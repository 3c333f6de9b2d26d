/**
 * `requestToken` against a local token endpoint: each provider's client authentication, the grant's
 * form, `expires_in` → expiry instant, and the status → reason mapping (never the provider's body).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestToken } from './connect-session-oauth.js';

let server: http.Server;
let base: string;
/** What the next request is answered with; the last request seen. */
let answer: { status: number; body: string; location?: string } = { status: 200, body: '{}' };
let last: { authorization?: string; form: URLSearchParams } | undefined;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      last = { authorization: req.headers.authorization, form: new URLSearchParams(Buffer.concat(chunks).toString('utf8')) };
      res.writeHead(answer.status, { 'content-type': 'application/json', ...(answer.location ? { location: answer.location } : {}) }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const client = () => ({ clientId: 'id', clientSecret: 'shh', authorizeUrl: `${base}/authorize`, tokenUrl: `${base}/token` });
const refresh = { grant_type: 'refresh_token', refresh_token: 'rt-1' } as const;
const NOW = Date.parse('2026-11-26T08:00:00.000Z');

describe('requestToken', () => {
  it('Samsara: client credentials as HTTP Basic; Motive: as form fields; the grant’s own fields either way', async () => {
    answer = { status: 200, body: JSON.stringify({ access_token: 'at', refresh_token: 'rt-2', expires_in: 3600 }) };
    expect(await requestToken('samsara', client(), refresh, () => NOW)).toEqual({ ok: true, accessToken: 'at', refreshToken: 'rt-2', expiresAt: new Date('2026-11-26T09:00:00.000Z') });
    expect(last?.authorization).toBe(`Basic ${Buffer.from('id:shh').toString('base64')}`);
    expect(Object.fromEntries(last!.form)).toEqual({ grant_type: 'refresh_token', refresh_token: 'rt-1' });

    await requestToken('motive', client(), { grant_type: 'authorization_code', code: 'c', redirect_uri: 'https://gw/cb' });
    expect(last?.authorization).toBeUndefined();
    expect(Object.fromEntries(last!.form)).toEqual({ grant_type: 'authorization_code', code: 'c', redirect_uri: 'https://gw/cb', client_id: 'id', client_secret: 'shh' });
  });

  it('an expiry only for a positive number of seconds; no refresh token when the answer has none', async () => {
    for (const expiresIn of [0, -5, '3600', null, Number.MAX_VALUE]) {
      answer = { status: 200, body: JSON.stringify({ access_token: 'at', expires_in: expiresIn }) };
      expect(await requestToken('samsara', client(), refresh)).toEqual({ ok: true, accessToken: 'at' });
    }
  });

  it('maps refusals, outages and changed answers to reason codes, never echoing the body', async () => {
    const cases: [typeof answer, string][] = [
      [{ status: 400, body: '{"error":"invalid_grant","echo":"rt-1"}' }, 'provider_auth_required'],
      [{ status: 401, body: '{"error":"invalid_client"}' }, 'provider_auth_required'],
      [{ status: 429, body: '{}' }, 'provider_unavailable'],
      [{ status: 503, body: '{}' }, 'provider_unavailable'],
      [{ status: 302, body: '', location: 'http://169.254.169.254/' }, 'provider_unavailable'],
      [{ status: 200, body: 'not json' }, 'provider_response_changed'],
      [{ status: 200, body: '{"token_type":"bearer"}' }, 'provider_response_changed'],
    ];
    for (const [given, reason] of cases) {
      answer = given;
      expect(await requestToken('samsara', client(), refresh)).toEqual({ ok: false, reason });
    }
    expect(await requestToken('samsara', { ...client(), tokenUrl: 'http://127.0.0.1:9/token' }, refresh)).toEqual({ ok: false, reason: 'provider_unavailable' });
  });
});
