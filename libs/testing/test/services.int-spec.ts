/**
 * The harness against this machine: the real resolution order, schema clean-up on the real
 * PostgreSQL, and the real testcontainers fallback failing cleanly where no container runtime exists.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { createOrm } from '@switchyard/persistence';
import { dropSchemas, isolatedSchemas } from '../src/isolation.js';
import { resolveTestServices, resolveTestServicesWith, startContainer, stopTestServices, tcpProbe } from '../src/services.js';

afterAll(() => stopTestServices());

describe('resolveTestServices', () => {
  it('finds a PostgreSQL and a NATS that accept connections, once per process', async () => {
    const first = resolveTestServices();
    expect(resolveTestServices()).toBe(first);
    const { databaseUrl, natsUrl } = await first;
    const db = new URL(databaseUrl);
    const nats = new URL(natsUrl);
    await tcpProbe(db.hostname, Number(db.port || 5432));
    await tcpProbe(nats.hostname, Number(nats.port || 4222));
  });

  it('reports the testcontainers step with the runtime error when nothing else is available', async () => {
    const probes = { env: {}, probe: () => Promise.reject(new Error('probe disabled by the test')), startContainer };
    const error = await resolveTestServicesWith(probes).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    // On a machine with Docker the containers start instead; then there is nothing to report.
    if (error) expect(error.message).toMatch(/PostgreSQL: testcontainers could not start postgres:15 \(.+\)/);
  }, 60_000);
});

describe('dropSchemas', () => {
  it('drops isolated schemas with their contents and refuses production names', async () => {
    const { databaseUrl } = await resolveTestServices();
    const { gateway, directory } = isolatedSchemas(['gateway', 'directory']);
    const orm = await createOrm({ clientUrl: databaseUrl, schema: gateway, entities: [], migrations: [], allServiceSchemas: [], logger: () => undefined });
    try {
      await orm.em.fork().execute(`create schema "${gateway}"; create table "${gateway}".t (id int); create schema "${directory}"`);
      await dropSchemas(databaseUrl, [gateway, directory]);
      const left = await orm.em.fork().execute<{ nspname: string }[]>('select nspname from pg_namespace where nspname in (?, ?)', [gateway, directory]);
      expect(left).toEqual([]);
      await expect(dropSchemas(databaseUrl, ['gateway'])).rejects.toThrow('refusing to drop non-isolated schema "gateway"');
    } finally {
      await orm.close(true);
    }
  });
});
