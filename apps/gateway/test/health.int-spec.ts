/**
 * Operational endpoints of the gateway: liveness, readiness (database, bus, migrations, not
 * shutting down) and Prometheus metrics. They are outside the public contract (not in the OpenAPI
 * document) but load balancers and scrapers depend on their exact shapes. /healthz and /readyz
 * answer on the public port and on the internal one (METRICS_PORT); /metrics only on the internal
 * one — on the public port it is an unknown route like any other.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bearer, expectError, startTestGateway, type TestGateway } from './support.js';

let gw: TestGateway;
let key: string;
let closed = false;

beforeAll(async () => {
  gw = await startTestGateway();
  key = (await gw.credentials.createConsumerKey('health')).token;
});

afterAll(async () => {
  if (!closed) await gw?.close();
});

const get = (path: string) => gw.call('GET', path, { validate: false });
/** A request to the internal listener, as a scraper or the pod's probes make it. */
async function internal(path: string): Promise<{ status: number; headers: Headers; body: unknown; text: string }> {
  const response = await fetch(`${gw.internalUrl}${path}`);
  const text = await response.text();
  const body: unknown = (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
  return { status: response.status, headers: response.headers, body, text };
}

describe('health endpoints', () => {
  it('/healthz is 200 with the service name, without credentials, on both ports', async () => {
    for (const res of [await get('/healthz'), await internal('/healthz')]) {
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ok', service: 'gateway', instanceId: gw.service.runtime.instanceId });
    }
  });

  it('/readyz is 200 with every check passing, on both ports', async () => {
    for (const res of [await get('/readyz'), await internal('/readyz')]) {
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ready', ready: true, checks: { database: true, bus: true, migrations: true, shuttingDown: false } });
    }
  });

  it('/metrics on the public port is an unknown route: 404 not_found in the one error shape', async () => {
    expectError(await get('/metrics'), 404, 'not_found');
    expectError(await gw.call('GET', '/metrics', { headers: bearer(key), validate: false }), 404, 'not_found');
  });

  it('the internal port serves nothing of the API', async () => {
    expect(gw.internalUrl).not.toBe(gw.url);
    for (const path of ['/v1/catalog', '/openapi.json', '/docs']) expect((await internal(path)).status).toBe(404);
  });

  it('/metrics on the internal port is Prometheus text with the request counters of public requests just made', async () => {
    await gw.call('GET', '/v1/catalog', { headers: bearer(key) });
    await gw.call('GET', '/v1/catalog', {});
    const res = await internal('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.text;
    expect(text).toContain('# TYPE http_requests_total counter');
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    const line = (status: number) => new RegExp(`^http_requests_total\\{[^}]*method="GET"[^}]*route="/v1/catalog"[^}]*status="${status}"[^}]*\\} (\\d+)$`, 'm');
    expect(Number(line(200).exec(text)?.[1])).toBeGreaterThanOrEqual(1);
    expect(Number(line(401).exec(text)?.[1])).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/service="gateway"/);
    // Every non-comment line is `name{labels} value` or `name value`.
    for (const sample of text.split('\n').filter((l) => l && !l.startsWith('#'))) expect(sample).toMatch(/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? [-+0-9.eEinfNa]+$/);
  });

  it('unmatched paths are counted under one label, so random URLs cannot grow the series without bound', async () => {
    for (const n of [1, 2, 3]) await get(`/v1/random-${n}-${Date.now()}`);
    const text = (await internal('/metrics')).text;
    expect(text).not.toMatch(/route="\/v1\/random-/);
    expect(text).toMatch(/http_requests_total\{[^}]*route="unmatched"[^}]*status="404"/);
  });

  it('/readyz turns 503 while the runtime is shutting down, and back', async () => {
    gw.service.runtime.state.shuttingDown = true;
    try {
      for (const res of [await get('/readyz'), await internal('/readyz')]) {
        expect(res.status).toBe(503);
        expect(res.body).toMatchObject({ status: 'not_ready', ready: false, checks: { shuttingDown: true, database: true } });
      }
      expect((await get('/healthz')).status).toBe(200);
    } finally {
      gw.service.runtime.state.shuttingDown = false;
    }
    expect((await get('/readyz')).status).toBe(200);
    expect((await internal('/readyz')).status).toBe(200);
  });

  it('health requests stay out of the access log', async () => {
    const before = gw.logText().length;
    await get('/healthz');
    await get('/readyz');
    expect(gw.logText().slice(before)).not.toMatch(/"route":"\/(healthz|readyz)"/);
  });

  // Last: it stops the gateway.
  it('close() stops the internal listener with the public one', async () => {
    const urls = [gw.url, gw.internalUrl];
    closed = true;
    await gw.close();
    for (const url of urls) await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
