/**
 * The provider client's spans, through the real HTTP client against a loopback server and the
 * OpenTelemetry SDK (in-memory exporter): one client span per attempt with the provider, endpoint,
 * status and reason code — and no credential in any attribute, although the request carries a key
 * in its query string and a token in its Authorization header.
 * Mutation tried: `observed()` given the path with its query (`pathname + search`: the query
 * string kept on the provider span) → the secret-in-query assertion fails.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProviderHttpClient } from './provider-http-client.js';
import { PROVIDER_ATTRIBUTE, providerCallSpans } from './provider-call-spans.js';
import type { Clock } from './request-budget.js';

const QUERY_SECRET = 'query-secret-5f1c9e';
const HEADER_SECRET = 'header-secret-0b7d2a';

let server: Server;
let baseUrl: string;
const statuses: number[] = [];

beforeAll(async () => {
  server = createServer((_req, res) => {
    const status = statuses.shift() ?? 200;
    res.writeHead(status, { 'content-type': 'application/json', ...(status === 429 ? { 'retry-after': '0' } : {}) });
    res.end(status === 200 ? '{"data":[]}' : '{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const instantClock: Clock = { now: () => Date.now(), sleep: async () => undefined };

function traced() {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const client = new ProviderHttpClient({
    baseUrl,
    clock: instantClock,
    random: () => 0,
    provider: 'samsara',
    observer: providerCallSpans(provider.getTracer('test')),
    headers: () => ({ authorization: `Bearer ${HEADER_SECRET}` }),
  });
  return { exporter, client };
}

describe('provider call spans', () => {
  it('records one client span per attempt with provider, endpoint and status, and no credential anywhere', async () => {
    const { exporter, client } = traced();
    statuses.push(429, 200);
    await client.request({ path: '/fleet/vehicles/stats', query: { types: 'gps', access_token: QUERY_SECRET }, endpoint: '/fleet/vehicles/stats' });
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => [s.name, s.kind, s.attributes['http.response.status_code'], s.attributes['http.request.resend_count']])).toEqual([
      ['GET /fleet/vehicles/stats', SpanKind.CLIENT, 429, undefined],
      ['GET /fleet/vehicles/stats', SpanKind.CLIENT, 200, 1],
    ]);
    expect(spans[0]!.attributes).toMatchObject({ [PROVIDER_ATTRIBUTE]: 'samsara', 'error.type': 'provider_throttled', 'url.full': `${baseUrl}/fleet/vehicles/stats`, 'server.address': '127.0.0.1' });
    expect(spans[0]!.status.code).toBe(SpanStatusCode.ERROR);
    expect(spans[1]!.status.code).toBe(SpanStatusCode.UNSET);
    const values = JSON.stringify(spans.map((s) => [s.name, s.attributes, s.events]));
    expect(values).not.toContain(QUERY_SECRET);
    expect(values).not.toContain(HEADER_SECRET);
    expect(values).not.toContain('access_token');
  });

  it('ends the span of a failed attempt with the reason code', async () => {
    const { exporter, client } = traced();
    statuses.push(401);
    await expect(client.request({ path: '/fleet/drivers' })).rejects.toMatchObject({ code: 'provider_auth_required' });
    const [span] = exporter.getFinishedSpans();
    expect(span?.attributes).toMatchObject({ 'http.response.status_code': 401, 'error.type': 'provider_auth_required', 'url.template': '/fleet/drivers' });
  });
});
