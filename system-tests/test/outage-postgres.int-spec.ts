/**
 * A PostgreSQL outage, as an operator sees it (issue 14, item 1), on a cluster this test owns
 * (startOwnedPostgres: its own port and data; the shared server is never touched) with the gateway
 * and a directory on it and the shared NATS:
 * - while the database is down every documented operation answers, never 500: the ones that need
 *   the database 503 `service_unavailable` with `Retry-After` (validated against the OpenAPI
 *   document), and /readyz on the internal port is 503 with `database: false`;
 * - a connection configuration published during the outage is not dead-lettered although the
 *   outage lasts far longer than its consumer's delivery budget (tuned here to maxDeliver 2 with a
 *   100 ms backoff: without the hold it would be in the DLQ after about 0.1 s); it is applied once
 *   the database is back;
 * - after the database returns, the API, readiness and the held message recover within 10 s.
 * Mutations tried: classify() without the database rule (every operation needing the database
 * answers 500 internal_error); holdThroughOutages rethrowing at once (the configuration is
 * dead-lettered `max_deliveries` and never applied). Figures are printed (docs/reliability.md).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startDirectory } from '@switchyard/directory';
import { startTestGateway, type TestGateway } from '@switchyard/gateway/testing';
import { EVENTS, subjectFor, type DeadLetterV1, type Subscription } from '@switchyard/messaging';
import { connectionConfig, loadOpenApi, pollUntil, sleep, startOwnedPostgres, type OwnedPostgres } from '@switchyard/testing';
import { execute } from './gateway-client.js';
import { bearer } from './support.js';

const RECOVERY_BOUND_MS = 10_000;

let pg: OwnedPostgres;
let gw: TestGateway;
let key: string;
let dlqSub: Subscription | undefined;
const deadLetters: DeadLetterV1[] = [];

beforeAll(async () => {
  pg = await startOwnedPostgres();
  // resolveTestServices reads the environment first: this file's gateway and contexts use the owned cluster.
  process.env.DATABASE_URL = pg.url;
  gw = await startTestGateway({
    rpcTimeoutMs: 2000,
    beside: [
      {
        name: 'directory',
        start: (o) =>
          startDirectory({
            ...o,
            transport: { tuneConsumer: (c) => ({ ...c, maxDeliver: 2, backoff: { initialMs: 100, maxMs: 100 } }) },
          }),
      },
    ],
  });
  key = (await gw.credentials.createConsumerKey('outage')).token;
  dlqSub = await gw.bus.consume({ durable: 'test-outage-dlq', event: EVENTS.deadLetter, ackWaitMs: 30_000, maxDeliver: 3, maxAckPending: 64 }, async ({ payload }) => {
    deadLetters.push(payload);
  });
}, 120_000);

afterAll(async () => {
  try {
    await dlqSub?.drain().catch(() => undefined);
    await gw?.close().catch(() => undefined);
  } finally {
    await pg?.destroy();
  }
}, 120_000);

/** Every documented operation, path parameters filled with a placeholder. */
function operations(): { method: string; path: string }[] {
  const doc = loadOpenApi() as { paths: Record<string, Record<string, unknown>> };
  const out: { method: string; path: string }[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of Object.keys(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      out.push({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, '01J00000000000000000000000') });
    }
  }
  return out;
}

async function readyz(): Promise<{ status: number; body: { checks?: { database?: boolean } } }> {
  const response = await fetch(`${gw.internalUrl}/readyz`);
  return { status: response.status, body: (await response.json()) as { checks?: { database?: boolean } } };
}

describe('PostgreSQL outage', () => {
  it('answers 503 with Retry-After (never 500), holds a good message without dead-lettering it, and heals within 10 s', async () => {
    const directorySchema = gw.schemas.directory;
    expect((await readyz()).status).toBe(200);
    expect((await gw.call('GET', '/v1/catalog', { headers: bearer(key) })).status).toBe(200);

    await pg.stop('immediate');
    const downAt = Date.now();

    const statuses = new Map<number, number>();
    for (const { method, path } of operations()) {
      const res = await gw.call(method, path, { headers: { ...bearer(key), ...(method === 'GET' || method === 'DELETE' ? {} : { 'content-type': 'application/json' }) }, ...(method === 'GET' || method === 'DELETE' ? {} : { body: '{}' }) });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      expect({ method, path, status: res.status }).not.toEqual({ method, path, status: 500 });
      if (res.status === 503) {
        expect(res.body).toEqual({ error: 'service_unavailable' });
        expect(res.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
      }
    }
    // Authentication reads the database: every authenticated operation is a 503.
    expect(statuses.get(503) ?? 0).toBeGreaterThan(0);
    const ready = await readyz();
    expect(ready.status).toBe(503);
    expect(ready.body.checks?.database).toBe(false);

    // A configuration change published while the directory's database is down.
    const config = connectionConfig();
    await gw.bus.publish(EVENTS.connectionConfigChanged, subjectFor(EVENTS.connectionConfigChanged.subject, config.connectionId), config, { msgId: `${config.connectionId}:${config.revision}` });
    // Outage of 3 s: 30 times the consumer's whole budget (2 deliveries, 100 ms apart).
    await sleep(Math.max(0, 3_000 - (Date.now() - downAt)));
    const outageMs = Date.now() - downAt;
    expect(deadLetters).toEqual([]);

    await pg.start();
    const upAt = Date.now();
    await pollUntil(async () => (await readyz()).status === 200, { timeoutMs: RECOVERY_BOUND_MS, intervalMs: 100 });
    const readyAfterMs = Date.now() - upAt;
    await pollUntil(async () => (await gw.call('GET', '/v1/catalog', { headers: bearer(key) })).status === 200, { timeoutMs: RECOVERY_BOUND_MS, intervalMs: 100 });
    const apiAfterMs = Date.now() - upAt;
    await pollUntil(
      async () => {
        const rows = await execute<{ revision: number }>(gw.beside.directory!, `select revision from "${directorySchema}"."connection_config" where connection_id = ?`, [config.connectionId]);
        return rows[0]?.revision === config.revision;
      },
      { timeoutMs: RECOVERY_BOUND_MS, intervalMs: 100 },
    );
    const messageAfterMs = Date.now() - upAt;
    expect(deadLetters).toEqual([]);
    process.stdout.write(
      `[outage-postgres] outage ${outageMs} ms; during it ${[...statuses].map(([s, n]) => `${n}×${s}`).join(', ')}; after the database returned: /readyz 200 in ${readyAfterMs} ms, API 200 in ${apiAfterMs} ms, held configuration applied in ${messageAfterMs} ms (bound ${RECOVERY_BOUND_MS} ms); dead letters: ${deadLetters.length}\n`,
    );
    expect(Math.max(readyAfterMs, apiAfterMs, messageAfterMs)).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
  }, 120_000);
});
