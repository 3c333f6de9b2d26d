/**
 * MIGRATE_ON_START=false (docs/configuration.md): the service starts with its migrations pending
 * and stays unready — /readyz 503 and ping `ready: false` — until a separate step applies them;
 * then it turns ready by itself, and its projection consumer, which waited instead of failing on
 * the missing table, applies what was published meanwhile (nothing dead-lettered).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { createBus, EVENTS, Namespace, RPCS, subjectFor, type ConnectionConfigV1, type MessageBus } from '@switchyard/messaging';
import { createOrm, migrateUp } from '@switchyard/persistence';
import { randomUUID } from 'node:crypto';
import { Migration0001ConnectionConfigProjection } from './connection-config.migration.js';
import { ConnectionConfigStore } from '../src/context/db/connection-config.repository.js';
import { cleanup, databaseUrl, eventually, natsUrl, startInstance, uniqueSuffix, type ContextInstance } from './support.js';

const suffix = uniqueSuffix();
const schema = `directory_${suffix}`;
const namespace = `mig-${suffix}`;

let instance: ContextInstance;
let client: MessageBus;
let nc: NatsConnection;

beforeAll(async () => {
  instance = await startInstance(schema, namespace, { migrateOnStart: false, http: true });
  client = await createBus({ kind: 'jetstream', servers: natsUrl, name: 'migrate-test-client', namespace });
  nc = await connect({ servers: natsUrl, name: 'migrate-test-raw' });
});

afterAll(async () => {
  await instance?.close();
  await client?.close();
  await nc?.close();
  await cleanup(schema, namespace);
});

const readyz = async () => {
  const response = await fetch(`${instance.service.url}/readyz`);
  return { status: response.status, body: (await response.json()) as { checks: { migrations: boolean } } };
};

describe('MIGRATE_ON_START=false', () => {
  it('is not ready while migrations are pending, turns ready once they are applied, and its consumer catches up', async () => {
    const first = await readyz();
    expect(first.status).toBe(503);
    expect(first.body.checks.migrations).toBe(false);
    expect(await client.request(RPCS.ping.directory, {}, { timeoutMs: 2_000 })).toMatchObject({ ready: false });

    const id = randomUUID();
    const config: ConnectionConfigV1 = {
      connectionId: id,
      provider: 'geotab',
      environment: 'sandbox',
      status: 'active',
      unifiedCollection: false,
      purposes: { vehicles: true, groupMemberships: true, trips: false },
      approvedVehicleIds: [],
      includeVehicleIds: [],
      excludeVehicleIds: [],
      includeStatuses: [],
      optIns: { groupInventory: false, vehicleMetadata: false, extendedTelemetry: false },
      approvedGroupIds: [],
      selectedSignals: [],
      revision: 1,
      updatedAt: '2026-01-01T00:00:00Z',
    };
    await client.publish(EVENTS.connectionConfigChanged, subjectFor(EVENTS.connectionConfigChanged.subject, id), config, { msgId: `${id}:1` });

    // The release step (`npm run migrate`): another process, another ORM.
    const orm = await createOrm({ clientUrl: databaseUrl, schema, entities: [], migrations: [Migration0001ConnectionConfigProjection], allServiceSchemas: [schema], logger: () => undefined });
    try {
      await migrateUp(orm, { log: () => undefined });
    } finally {
      await orm.close(true);
    }

    await eventually(async () => expect((await readyz()).status).toBe(200), 5_000);
    expect(await client.request(RPCS.ping.directory, {}, { timeoutMs: 2_000 })).toMatchObject({ ready: true });
    const store = new ConnectionConfigStore(instance.service.runtime.orm);
    await eventually(async () => expect(await store.get(id)).toEqual(config), 5_000);
    const dlq = await (await jetstreamManager(nc)).streams.info(new Namespace(namespace).stream('DLQ'));
    expect(dlq.state.messages).toBe(0);
  });
});
