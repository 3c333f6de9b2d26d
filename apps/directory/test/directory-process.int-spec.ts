/**
 * The directory context as deployed: the built `apps/directory/dist/main.js` in its own process on
 * the pinned Node, configured by environment only. It must honour DATABASE_URL, DB_SCHEMA,
 * NATS_URL, NATS_NAMESPACE and HEALTH_PORT, report ready, and exit 0 within 10 s of SIGTERM; a bad
 * environment must stop it with one message naming every bad variable. Needs `npm run build`
 * (npm test builds first); a missing or stale dist fails the suite with that advice.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ALL_STREAMS, createBus, RPCS } from '@switchyard/messaging';
import { createOrm } from '@switchyard/persistence';
import {
  assertBuilt,
  deleteNamespaceStreams,
  dropSchemas,
  freePort,
  isolatedSchemas,
  pollUntil,
  resolveTestServices,
  spawnNode,
  uniqueSuffix,
  type NodeProcess,
} from '@switchyard/testing';

const RUNTIME_PROJECTS = ['apps/directory', 'libs/service-kit', 'libs/messaging', 'libs/persistence', 'libs/domain', 'libs/contracts'];
let main: string;
const running: NodeProcess[] = [];

beforeAll(() => {
  main = assertBuilt('apps/directory/dist/main.js', RUNTIME_PROJECTS);
});
afterAll(async () => {
  await Promise.all(running.map((p) => p.kill()));
});

describe('directory as its own process', () => {
  it('starts on its isolated schema and namespace, reports ready, and exits 0 within 10 s of SIGTERM', async () => {
    const { databaseUrl, natsUrl } = await resolveTestServices();
    const schema = isolatedSchemas(['directory']).directory;
    // Service configuration accepts lower-case letters and digits only (docs/configuration.md).
    const namespace = `proc${uniqueSuffix()}`;
    const port = await freePort();
    // The provisioning step (decision 0033) before the service starts: it only verifies the streams.
    const provisioner = await createBus({ kind: 'jetstream', servers: natsUrl, name: 'directory-process-provision', namespace });
    await provisioner.ensureStreams(ALL_STREAMS).finally(() => provisioner.close());
    const child = spawnNode(main, {
      env: { DATABASE_URL: databaseUrl, NATS_URL: natsUrl, NATS_NAMESPACE: namespace, DB_SCHEMA: schema, HEALTH_PORT: String(port), HOST: '127.0.0.1' },
    });
    running.push(child);
    const client = await createBus({ kind: 'jetstream', servers: natsUrl, name: 'directory-process-test', namespace });
    try {
      const ready = await pollUntil(
        async () => {
          if (child.child.exitCode !== null) throw new Error(`exited ${child.child.exitCode}:\n${child.output()}`);
          const response = await fetch(`http://127.0.0.1:${port}/readyz`);
          return response.status === 200 && ((await response.json()) as { ready: boolean });
        },
        { timeoutMs: 60_000, intervalMs: 100, description: 'directory /readyz 200' },
      );
      expect(ready).toMatchObject({ ready: true });
      // The namespace and the schema really are the ones passed in.
      expect(await client.request(RPCS.ping.directory, {}, { timeoutMs: 2_000 })).toMatchObject({ service: 'directory', ready: true });
      const orm = await createOrm({ clientUrl: databaseUrl, schema, entities: [], migrations: [], allServiceSchemas: [schema], logger: () => undefined });
      try {
        const tables = await orm.em.fork().execute<{ table_name: string }[]>('select table_name from information_schema.tables where table_schema = ? order by 1', [schema]);
        expect(tables.map((t) => t.table_name)).toEqual(['connection_config', 'connection_publication', 'dataset_health', 'driver', 'driver_pass', 'driver_pass_unit', 'driver_roster', 'driver_sighting', 'group', 'ingest_batch', 'mikro_orm_migrations', 'provider_cursor', 'trip', 'vehicle', 'vehicle_pass', 'vehicle_pass_unit', 'vehicle_roster', 'vehicle_sighting', 'vehicle_vin', 'vehicle_visibility']);
      } finally {
        await orm.close(true);
      }

      child.child.kill('SIGTERM');
      expect(await child.waitForExit(10_000)).toEqual({ code: 0, signal: null });
      expect(child.stdout()).toContain('"msg":"directory stopped"');
    } finally {
      await client.close();
      await child.kill();
      await dropSchemas(databaseUrl, [schema]);
      await deleteNamespaceStreams(natsUrl, namespace);
    }
  }, 120_000);

  it('refuses a bad environment with one message that names every bad variable', async () => {
    const child = spawnNode(main, { env: { MIGRATE_ON_START: 'maybe', DB_SCHEMA: 'Not-A-Schema', INGEST_ACK_WAIT_MS: '100', HEALTH_PORT: '0', NATS_URL: 'nats://127.0.0.1:1' } });
    running.push(child);
    const exit = await child.waitForExit(45_000);
    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBeNull();
    const stderr = child.stderr();
    expect(stderr.match(/Invalid configuration/g)).toHaveLength(1);
    expect(stderr).toContain('MIGRATE_ON_START');
    expect(stderr).toContain('DB_SCHEMA');
    expect(stderr).toContain('INGEST_ACK_WAIT_MS');
    expect(stderr).not.toContain('HEALTH_PORT');
    // One message, not a stack trace.
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(child.stdout()).toBe('');
  }, 60_000);
});
