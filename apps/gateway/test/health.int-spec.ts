/**
 * Operational endpoints of the gateway: liveness, readiness (database, bus, migrations, not
 * shutting down) and Prometheus metrics. They are outside the public contract (not in the OpenAPI
 * document) but load balancers and scrapers depend on their exact shapes.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bearer, startTestGateway, type TestGateway } from './support.js';

let gw: TestGateway;
let key: string;

beforeAll(async () => {
  gw = await startTestGateway();
  key = (await gw.credentials.createConsumerKey('health')).token;
});

afterAll(async () => {
  await gw?.close();
});

const get = (path: string) => gw.call('GET', path, { validate: false });

describe('health endpoints', () => {
  it('/healthz is 200 with the service name, without credentials', async () => {
    const res = await get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', service: 'gateway', instanceId: gw.service.runtime.instanceId });
  });

  it('/readyz is 200 with every check passing', async () => {
    const res = await get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', ready: true, checks: { database: true, bus: true, migrations: true, shuttingDown: false } });
  });

  it('/metrics is Prometheus text with the request counter of a request just made', async () => {
    await gw.call('GET', '/v1/catalog', { headers: bearer(key) });
    await gw.call('GET', '/v1/catalog', {});
    const res = await get('/metrics');
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
    const text = (await get('/metrics')).text;
    expect(text).not.toMatch(/route="\/v1\/random-/);
    expect(text).toMatch(/http_requests_total\{[^}]*route="unmatched"[^}]*status="404"/);
  });

  it('/readyz turns 503 while the runtime is shutting down, and back', async () => {
    gw.service.runtime.state.shuttingDown = true;
    try {
      const res = await get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: 'not_ready', ready: false, checks: { shuttingDown: true, database: true } });
      expect((await get('/healthz')).status).toBe(200);
    } finally {
      gw.service.runtime.state.shuttingDown = false;
    }
    expect((await get('/readyz')).status).toBe(200);
  });

  it('health requests stay out of the access log', async () => {
    const before = gw.logText().length;
    await get('/healthz');
    await get('/readyz');
    expect(gw.logText().slice(before)).not.toMatch(/"route":"\/(healthz|readyz)"/);
  });
});
