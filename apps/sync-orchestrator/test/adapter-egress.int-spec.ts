/**
 * The orchestrator's adapter factory end to end (issue 15): it asks `gateway.connection.provider-access`
 * with a fresh key, opens the sealed credentials, and builds the adapter under the deployment's
 * egress policy. A production orchestrator (SWITCHYARD_ENV=production) pointed at a loopback
 * provider refuses to send a single request there; a sandbox one reaches it with the opened token.
 * The gateway is played by the test (its real handler is tested in apps/gateway), sealing exactly
 * as the gateway does.
 *
 * Mutation tried: the factory building adapters without `egress` — the production orchestrator
 * sends the request to the loopback server and "a production orchestrator …" fails.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RPCS, sealProviderCredentials } from '@switchyard/messaging';
import type { ProviderError } from '@switchyard/providers';
import { startServiceForTest, type ServiceUnderTest } from '@switchyard/testing';
import { ProviderAdapterFactory, startSyncOrchestrator, syncOrchestratorService } from '../src/index.js';

let provider: Server;
let providerUrl: string;
const seen: { path: string; auth: string | undefined }[] = [];
const token = `samsara-${randomUUID()}`;

/** An orchestrator of `environment` whose Samsara base URL is the loopback provider, with a test gateway answering provider access. */
async function orchestrator(environment: 'sandbox' | 'production'): Promise<ServiceUnderTest> {
  const h = await startServiceForTest(syncOrchestratorService, {
    namespacePrefix: `egress-${environment}`,
    start: (options) => startSyncOrchestrator({ ...options, environment, collectors: false, scheduler: false, providerBaseUrls: { samsara: providerUrl } }),
  });
  h.client.serve(RPCS.gateway.providerAccess, async ({ connectionId, recipientKey }) => ({
    connectionId,
    provider: 'samsara' as const,
    environment,
    status: 'active' as const,
    revision: 1,
    sealedCredentials: sealProviderCredentials({ apiToken: token }, recipientKey, connectionId, 'samsara'),
  }));
  return h;
}

const running: ServiceUnderTest[] = [];

beforeAll(async () => {
  provider = createServer((req, res) => {
    seen.push({ path: req.url ?? '', auth: req.headers.authorization });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"data":[],"pagination":{"endCursor":"","hasNextPage":false}}');
  });
  await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
  providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const h of running) await h.close();
  await new Promise<void>((r) => provider.close(() => r()));
});

describe('ProviderAdapterFactory', () => {
  it('a production orchestrator refuses a loopback provider URL before any request (egress policy), with credentials opened from the seal', async () => {
    const h = await orchestrator('production');
    running.push(h);
    const built = await h.service.app.get(ProviderAdapterFactory).adapterFor({ connectionId: randomUUID() });
    expect(built).toMatchObject({ provider: 'samsara', environment: 'production', status: 'active' });
    const before = seen.length;
    const error = await built.adapter.vehicles(null).then(
      () => undefined,
      (e: unknown) => e as ProviderError,
    );
    expect(error).toMatchObject({ code: 'provider_config_invalid', detail: { message: 'egress refused: production requests use https only' } });
    expect(seen.length).toBe(before);
  });

  it('a sandbox orchestrator reaches the same loopback provider with the opened token', async () => {
    const h = await orchestrator('sandbox');
    running.push(h);
    const built = await h.service.app.get(ProviderAdapterFactory).adapterFor({ connectionId: randomUUID() });
    await built.adapter.vehicles(null);
    expect(seen.at(-1)).toEqual({ path: expect.stringMatching(/^\/fleet\/vehicles/), auth: `Bearer ${token}` });
  });
});
