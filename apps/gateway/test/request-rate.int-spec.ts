/**
 * The public API's request rate limit (issue 14, item 3): one token bucket per consumer key (and
 * per application) in PostgreSQL, shared by every gateway process. Two gateway processes on one
 * schema, a key with a burst of 5 and a slow refill: 24 simultaneous requests spread over both
 * processes let exactly 5 through, the others answer 429 `rate_limited` with `Retry-After`
 * (validated against the OpenAPI document); another key has its own bucket; once Retry-After has
 * passed the key is served again. The slow-client limits are the server's (HTTP_LIMITS).
 * Mutations tried: AuthService.limitRate not taking a token (24 of 24 pass); the upsert setting
 * `last_allowed = true` instead of the bucket check (24 of 24 pass).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { createBus, type MessageBus } from '@switchyard/messaging';
import { startService, type RunningService } from '@switchyard/service-kit';
import { createResponseValidator, fetchValidated, loadOpenApi } from '@switchyard/testing';
import { gatewayService, gatewayStartOptions, SecretBox } from '../src/index.js';
import { HTTP_LIMITS } from '../src/http/request-context.js';
import { bearer, startTestGateway, type TestGateway } from './support.js';

const BUCKET = { ratePerSecond: 0.2, burst: 5 };
const validator = createResponseValidator(loadOpenApi());

let gw: TestGateway;
let secondBus: MessageBus;
let second: RunningService;

beforeAll(async () => {
  gw = await startTestGateway({ requestRate: { perConsumerKey: BUCKET, perApplication: BUCKET } });
  secondBus = await createBus({ kind: 'jetstream', servers: gw.natsUrl, name: 'gateway-second', namespace: gw.namespace });
  second = await startService(
    gatewayService,
    gatewayStartOptions({
      databaseUrl: gw.databaseUrl,
      bus: secondBus,
      environment: 'sandbox',
      schema: gw.schemas.gateway,
      allServiceSchemas: Object.values(gw.schemas),
      logLevel: 'silent',
      http: { port: 0 },
      gatewaySettings: { masterKey: SecretBox.generateKey(), cursorSecret: randomBytes(32).toString('base64url'), rpcTimeoutMs: 1000, requestRate: { perConsumerKey: BUCKET, perApplication: BUCKET } },
    }),
  );
}, 60_000);

afterAll(async () => {
  await second?.close();
  await secondBus?.close();
  await gw?.close();
});

describe('request rate limit', () => {
  it('lets exactly the burst through across two gateway processes, then 429 rate_limited with Retry-After', async () => {
    const key = await gw.credentials.createConsumerKey('rate');
    const other = await gw.credentials.createConsumerKey('rate-other');
    const urls = [gw.url, second.url!];
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => fetchValidated(validator, urls[i % 2]!, 'GET', '/v1/catalog', { headers: bearer(key.token) })));
    const ok = answers.filter((a) => a.status === 200).length;
    const limited = answers.filter((a) => a.status === 429);
    process.stdout.write(`[request-rate] burst ${BUCKET.burst}, refill ${BUCKET.ratePerSecond}/s: 24 simultaneous requests over 2 gateways → ${ok}×200, ${limited.length}×429 (Retry-After ${[...new Set(limited.map((a) => a.headers.get('retry-after')))].join(', ')} s)\n`);
    expect(ok).toBe(BUCKET.burst);
    expect(limited).toHaveLength(24 - BUCKET.burst);
    for (const answer of limited) {
      expect(answer.body).toEqual({ error: 'rate_limited' });
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(answer.headers.get('retry-after'))).toBeLessThanOrEqual(Math.ceil(1 / BUCKET.ratePerSecond));
    }
    // Another key has its own bucket.
    expect((await gw.call('GET', '/v1/catalog', { headers: bearer(other.token) })).status).toBe(200);
  });

  it('serves the key again once Retry-After has passed', async () => {
    const key = await gw.credentials.createConsumerKey('rate-refill');
    // The bucket's rate is the gateway's; this one refills one token in 5 s: drain, wait, retry.
    for (let i = 0; i < BUCKET.burst; i += 1) expect((await gw.call('GET', '/v1/catalog', { headers: bearer(key.token) })).status).toBe(200);
    const refused = await gw.call('GET', '/v1/catalog', { headers: bearer(key.token) });
    expect(refused.status).toBe(429);
    const wait = Number(refused.headers.get('retry-after'));
    await new Promise((resolve) => setTimeout(resolve, wait * 1000 + 100));
    expect((await gw.call('GET', '/v1/catalog', { headers: bearer(key.token) })).status).toBe(200);
  }, 20_000);

  it('has the slow-client limits on the server: headers in 10 s, the whole request in 30 s', () => {
    const server = gw.service.app.getHttpServer() as { headersTimeout: number; requestTimeout: number; keepAliveTimeout: number };
    expect(server.headersTimeout).toBe(HTTP_LIMITS.headersTimeoutMs);
    expect(server.requestTimeout).toBe(HTTP_LIMITS.requestTimeoutMs);
    expect(server.keepAliveTimeout).toBe(HTTP_LIMITS.keepAliveTimeoutMs);
  });
});
