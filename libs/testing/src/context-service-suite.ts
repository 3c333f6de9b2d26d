/**
 * The assertions every context app must pass on the real PostgreSQL and NATS, written once and
 * run from each app's `test/<app>.int-spec.ts`: migrations applied to its isolated schema with no
 * drift from its entities, /healthz /readyz /metrics over HTTP, `<ctx>.ping` over the bus, readiness
 * that really follows the service's state, and a close() after which nothing answers any more.
 * Invariant: each check can fail — readiness is flipped and observed both ways, and the ping after
 * close must be refused, not merely slow.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BusTimeoutError, BusUnavailableError, type RpcDefinition, type pingRequestV1, type pingResponseV1 } from '@switchyard/messaging';
import { MIGRATIONS_TABLE, schemaDrift } from '@switchyard/persistence';
import type { RunningService, ServiceDefinition, StartOptions } from '@switchyard/service-kit';
import { startServiceForTest, type ServiceUnderTest } from './service-harness.js';

export interface ContextServiceSuiteOptions {
  definition: ServiceDefinition;
  /** The app's exported start function, so the suite covers what main.ts and the launcher run. */
  start: (options: StartOptions) => Promise<RunningService>;
  ping: RpcDefinition<typeof pingRequestV1, typeof pingResponseV1>;
  /** Tables the app's migrations must have created in its schema (e.g. `connection_config`). */
  tables: readonly string[];
}


async function getJson(url: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
}

export function runContextServiceSuite({ definition, start, ping, tables }: ContextServiceSuiteOptions): void {
  describe(`${definition.service} on PostgreSQL and NATS`, () => {
    let h: ServiceUnderTest;

    beforeAll(async () => {
      h = await startServiceForTest(definition, { start, http: true });
    });
    afterAll(() => h?.close());

    it('applies every migration to its isolated schema and leaves no drift from its entities', async () => {
      const em = h.service.runtime.orm.em.fork();
      const applied = await em.execute<{ name: string }[]>(`select name from "${h.schema}"."${MIGRATIONS_TABLE}" order by id`);
      expect(applied.map((row) => row.name)).toEqual(definition.migrations.map((migration) => migration.name));
      const found = await em.execute<{ table_name: string }[]>(
        `select table_name from information_schema.tables where table_schema = ? and table_name <> ? order by table_name`,
        [h.schema, MIGRATIONS_TABLE],
      );
      expect(found.map((row) => row.table_name)).toEqual([...tables].sort());
      expect(await schemaDrift(h.service.runtime.orm)).toBe('');
    });

    it('serves /healthz, /readyz and /metrics over HTTP', async () => {
      const instanceId = h.service.runtime.instanceId;
      expect(await getJson(`${h.url}/healthz`)).toEqual({ status: 200, body: { status: 'ok', service: definition.service, instanceId } });
      expect(await getJson(`${h.url}/readyz`)).toEqual({
        status: 200,
        body: { status: 'ready', ready: true, checks: { database: true, bus: true, migrations: true, shuttingDown: false } },
      });
      const metrics = await fetch(`${h.url}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain(`service="${definition.service}"`);
    });

    it(`answers ${ping.subject} over the bus with its name and ready: true`, async () => {
      const reply = await h.client.request(ping, {}, { timeoutMs: 2_000 });
      expect(reply).toEqual({ service: definition.service, instanceId: h.service.runtime.instanceId, ready: true, version: expect.any(String) });
    });

    it('reports not ready, over HTTP and the bus, while it is shutting down', async () => {
      const state = h.service.runtime.state;
      state.shuttingDown = true;
      try {
        const ready = await getJson(`${h.url}/readyz`);
        expect(ready.status).toBe(503);
        expect(ready.body).toMatchObject({ status: 'not_ready', ready: false, checks: { shuttingDown: true } });
        expect(await h.client.request(ping, {}, { timeoutMs: 2_000 })).toMatchObject({ ready: false });
      } finally {
        state.shuttingDown = false;
      }
      expect((await getJson(`${h.url}/readyz`)).status).toBe(200);
    });

    it('close() drains: afterwards the ping has no responder and the HTTP port is closed', async () => {
      await h.stopService();
      const error = await h.client.request(ping, {}, { timeoutMs: 1_000 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error instanceof BusUnavailableError || error instanceof BusTimeoutError).toBe(true);
      await expect(fetch(`${h.url}/healthz`)).rejects.toThrow();
      expect(h.logText()).toContain(`${definition.service} stopped`);
    });
  });
}
