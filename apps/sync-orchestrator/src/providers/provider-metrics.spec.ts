/**
 * The provider metrics the adapter factory hands every adapter (service-kit provider-metrics.ts on
 * libs/providers' call hook): each attempt counted by provider, endpoint template and outcome class —
 * a 429 and Geotab's in-body OverLimitException both `throttled` — and timed.
 * Mutation tried: the Geotab client without its `judge` (in-body errors not told) → the
 * OverLimitException attempt counts as `ok`, and this fails.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allObservers, GeotabClient, MotiveClient, ProviderError } from '@switchyard/providers';
import { providerCallMetrics, ServiceMetrics } from '@switchyard/service-kit';
import { z } from 'zod';

let server: Server;
let baseUrl: string;
const motive: { status: number; body: string }[] = [];
let geotabOverLimit = 1;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.url?.startsWith('/apiv1')) {
        const { method } = JSON.parse(body) as { method: string };
        res.writeHead(200, { 'content-type': 'application/json' });
        if (method === 'Authenticate') return res.end(JSON.stringify({ result: { credentials: { database: 'd', sessionId: 's', userName: 'u' }, path: 'ThisServer' } }));
        if (geotabOverLimit-- > 0) return res.end(JSON.stringify({ error: { name: 'JSONRPCError', message: 'limit', errors: [{ name: 'OverLimitException' }] } }));
        return res.end(JSON.stringify({ result: [] }));
      }
      const next = motive.shift() ?? { status: 200, body: '{"vehicles":[]}' };
      res.writeHead(next.status, { 'content-type': 'application/json', ...(next.status === 429 ? { 'retry-after': '0' } : {}) });
      res.end(next.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Samples of `name` with their labels sorted. */
const samples = async (metrics: ServiceMetrics, name: string) =>
  (await metrics.text())
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`))
    .map((l) => {
      const [, labels = '', value] = /^[^{]+\{(.*)\} (.*)$/.exec(l) ?? [];
      return `${labels.split(',').filter((x) => !x.startsWith('service=')).sort().join(',')} ${value}`;
    })
    .sort();

describe('provider call metrics', () => {
  it('counts every attempt by provider, endpoint template and outcome: 429, 5xx, 4xx, a body that is not JSON, Geotab OverLimitException; and times them', async () => {
    const metrics = new ServiceMetrics('sync-orchestrator', { defaultMetrics: false });
    const observer = allObservers(providerCallMetrics(metrics));
    const retry = { baseDelayMs: 1, maxDelayMs: 2 };
    const client = new MotiveClient({ provider: 'motive', baseUrl, credentials: { apiKey: 'k' }, observer, retry });
    const users = { plural: 'users', singular: 'user', item: z.unknown(), paginated: false };
    motive.push({ status: 429, body: '{}' }, { status: 503, body: '{}' }, { status: 200, body: '{"users":[]}' });
    await client.listPage('/v1/groups/77/users', users, 1);
    motive.push({ status: 401, body: '{}' });
    await expect(client.listPage('/v1/vehicles', users, 1)).rejects.toBeInstanceOf(ProviderError);
    motive.push({ status: 200, body: 'not json' });
    await expect(client.listPage('/v1/vehicles', users, 1)).rejects.toBeInstanceOf(ProviderError);
    const geotab = new GeotabClient({ baseUrl, credentials: { database: 'd', userName: 'u', password: 'p' }, retry, observer });
    await geotab.call('GetFeed', { typeName: 'LogRecord' }, z.unknown());

    expect(await samples(metrics, 'switchyard_provider_requests_total')).toEqual([
      'endpoint="/v1/groups/{id}/users",outcome="ok",provider="motive" 1',
      'endpoint="/v1/groups/{id}/users",outcome="server_error",provider="motive" 1',
      'endpoint="/v1/groups/{id}/users",outcome="throttled",provider="motive" 1',
      'endpoint="/v1/vehicles",outcome="client_error",provider="motive" 1',
      'endpoint="/v1/vehicles",outcome="invalid_response",provider="motive" 1',
      'endpoint="Authenticate",outcome="ok",provider="geotab" 1',
      'endpoint="GetFeed",outcome="ok",provider="geotab" 1',
      'endpoint="GetFeed",outcome="throttled",provider="geotab" 1',
    ]);
    expect(await samples(metrics, 'switchyard_provider_request_duration_seconds_count')).toContain('endpoint="/v1/groups/{id}/users",provider="motive" 3');
  });
});
