/**
 * A migrated, empty gateway database for benchmark scenarios, isolated like the integration
 * tests (apps/gateway/test/support.ts; helpers in isolation.mjs): one random suffix for every
 * service schema on the local PostgreSQL, a unique NATS namespace, fresh key material.
 * `withGatewayOrm` opens a short-lived ORM on the gateway schema for seeding through the same admin
 * services the operator CLI uses; `dropGatewayFixture` removes the schemas and the namespace's streams (teardown).
 * Invariant: every name created carries the suffix, so concurrent test runs are never touched.
 */
import { randomBytes } from 'node:crypto';
import { createOrm, migrateUp } from '@switchyard/persistence';
import { ConnectionsAdmin, CredentialsAdmin, gatewayService, SecretBox } from '@switchyard/gateway';
import { benchServices, deleteNamespaceStreams, dropSchemas, isolatedSchemas, uniqueNamespace } from './isolation.mjs';

const SERVICES = ['gateway', 'sync-orchestrator', 'directory', 'telemetry-ingest', 'fault-feed', 'enrichment'];

/** The fixture every gateway-based server module understands (servers/gateway.mjs). */
export async function createGatewayFixture() {
  const { databaseUrl, natsUrl } = benchServices();
  const fixture = {
    databaseUrl,
    natsUrl,
    schemas: isolatedSchemas(SERVICES),
    namespace: uniqueNamespace('bench'),
    masterKey: SecretBox.generateKey(),
    cursorSecret: randomBytes(32).toString('base64url'),
  };
  try {
    await withGatewayOrm(fixture, (orm) => migrateUp(orm, { log: () => undefined }));
  } catch (error) {
    await dropGatewayFixture(fixture).catch(() => undefined);
    throw error;
  }
  return fixture;
}

/** Runs `fn(orm, { credentials, connections })` on a short-lived ORM bound to the gateway schema. */
export async function withGatewayOrm(fixture, fn) {
  const orm = await createOrm({
    clientUrl: fixture.databaseUrl,
    schema: fixture.schemas.gateway,
    entities: gatewayService.entities,
    migrations: gatewayService.migrations,
    allServiceSchemas: Object.values(fixture.schemas),
    poolMax: 2,
    logger: () => undefined,
  });
  try {
    return await fn(orm, { credentials: new CredentialsAdmin(orm), connections: new ConnectionsAdmin(orm, new SecretBox(fixture.masterKey)) });
  } finally {
    await orm.close(true);
  }
}

/** The start options of one service on the fixture: its isolated schema, `bus`, sandbox, migrating on start, health port on loopback. */
export function serviceStartOptions(fixture, service, bus, logLevel) {
  return {
    databaseUrl: fixture.databaseUrl,
    bus,
    environment: 'sandbox',
    schema: fixture.schemas[service],
    allServiceSchemas: Object.values(fixture.schemas),
    migrateOnStart: true,
    logLevel,
    http: { port: 0, host: '127.0.0.1' },
  };
}

/** Drops every schema of the fixture and deletes its namespace's JetStream streams. */
export async function dropGatewayFixture(fixture) {
  const failures = [];
  await dropSchemas(fixture.databaseUrl, Object.values(fixture.schemas)).catch((error) => failures.push(`schemas: ${error.message}`));
  await deleteNamespaceStreams(fixture.natsUrl, fixture.namespace).catch((error) => failures.push(`streams: ${error.message}`));
  if (failures.length) throw new Error(`cleanup failed (${failures.join('; ')})`);
}
