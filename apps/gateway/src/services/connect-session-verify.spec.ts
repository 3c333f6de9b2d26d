/**
 * Credential verification on the connect page runs under the deployment's egress policy (issue 15,
 * decision 0023): a production gateway never sends the customer's credentials to a non-allow-listed
 * provider URL (here a loopback server), a sandbox one does (the simulators).
 *
 * Mutation tried: `verifyProviderCredentials` building the adapter without `egress` — the
 * production case reaches the server with the token and fails.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyProviderCredentials } from './connect-session-verify.js';

let server: Server;
let baseUrl: string;
const seen: (string | undefined)[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers.authorization);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"data":[],"pagination":{"endCursor":"","hasNextPage":false}}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('verifyProviderCredentials', () => {
  it('production: a provider URL off the allow-list is provider_config_invalid and the token is never sent', async () => {
    const before = seen.length;
    expect(await verifyProviderCredentials('samsara', baseUrl, { apiToken: 'tok-production' }, 'production')).toEqual({ ok: false, reason: 'provider_config_invalid' });
    expect(seen.length).toBe(before);
  });

  it('sandbox: the same URL is reached (simulators on loopback)', async () => {
    expect(await verifyProviderCredentials('samsara', baseUrl, { apiToken: 'tok-sandbox' }, 'sandbox')).toMatchObject({ ok: true });
    expect(seen.at(-1)).toBe('Bearer tok-sandbox');
  });
});
