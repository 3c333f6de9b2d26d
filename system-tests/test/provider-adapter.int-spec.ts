/**
 * The adapter factory end to end: a real gateway (holding the sealed credentials), a real
 * sync-orchestrator and the Samsara simulator as its own process (built `sandbox/dist`, since an
 * app never imports the sandbox), all on the real PostgreSQL and NATS. The orchestrator asks the
 * gateway for the connection's credentials over the bus, builds the Samsara adapter on the
 * simulator's base URL with the account's shared budget, and lists vehicles through it; the cached
 * adapter is replaced when the connection's configuration revision changes.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { ConnectionsAdmin, OutboxRelay, SecretBox, startGateway } from '@switchyard/gateway';
import { ALL_STREAMS, createBus, type MessageBus } from '@switchyard/messaging';
import { createLogger, type RunningService } from '@switchyard/service-kit';
import {
  deleteNamespaceStreams,
  dropSchemas,
  isolatedSchemas,
  pollUntil,
  resolveTestServices,
  spawnSimulator,
  uniqueNamespace,
  type NodeProcess,
} from '@switchyard/testing';
import { ProviderAdapterFactory, startSyncOrchestrator } from '@switchyard/sync-orchestrator';

const apiToken = `samsara_api_${randomBytes(20).toString('hex')}`;
const masterKey = SecretBox.generateKey();
const schemas = isolatedSchemas(['gateway', 'sync-orchestrator', 'directory', 'telemetry-ingest', 'fault-feed', 'enrichment']);
const namespace = uniqueNamespace('adapter');
const logLines: string[] = [];

let databaseUrl: string;
let natsUrl: string;
let simulator: NodeProcess | undefined;
const buses: MessageBus[] = [];
let gateway: RunningService | undefined;
let orchestrator: RunningService | undefined;
let connections: ConnectionsAdmin;
let factory: ProviderAdapterFactory;

async function projectionRevision(connectionId: string): Promise<number | undefined> {
  const rows = await orchestrator!.runtime.orm.em
    .fork()
    .execute<{ revision: number }[]>(`select revision from "${schemas['sync-orchestrator']}".connection_config where connection_id = ?::uuid`, [connectionId]);
  return rows[0]?.revision;
}

/** Publishes the gateway outbox and waits until the orchestrator's projection holds `revision`. */
async function projected(connectionId: string, revision: number): Promise<void> {
  await gateway!.app.get(OutboxRelay).flush();
  await pollUntil(async () => (await projectionRevision(connectionId)) === revision);
}

beforeAll(async () => {
  ({ databaseUrl, natsUrl } = await resolveTestServices());
  const started = await spawnSimulator('samsara', { SAMSARA_API_TOKENS: apiToken, SIM_VEHICLES: '4', SIM_SEED: 'adapter-factory' });
  simulator = started.process;
  const simulatorUrl = started.url;

  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => logLines.push(chunk.toString('utf8')));
  const common = { databaseUrl, environment: 'sandbox' as const, allServiceSchemas: Object.values(schemas) };
  const gatewayBus = await createBus({ kind: 'jetstream', servers: natsUrl, name: 'gateway-test', namespace });
  buses.push(gatewayBus);
  await gatewayBus.ensureStreams(ALL_STREAMS); // the provisioning step (decision 0033)
  gateway = await startGateway({
    ...common,
    bus: gatewayBus,
    schema: schemas.gateway,
    logger: createLogger({ service: 'gateway', level: 'debug', destination: sink }),
    gatewaySettings: { masterKey, cursorSecret: randomBytes(32).toString('base64url'), rpcTimeoutMs: 2_000 },
  });
  const orchestratorBus = await createBus({ kind: 'jetstream', servers: natsUrl, name: 'sync-orchestrator-test', namespace });
  buses.push(orchestratorBus);
  orchestrator = await startSyncOrchestrator({
    ...common,
    bus: orchestratorBus,
    schema: schemas['sync-orchestrator'],
    logger: createLogger({ service: 'sync-orchestrator', level: 'debug', destination: sink }),
    providerBaseUrls: { samsara: simulatorUrl },
  });
  connections = new ConnectionsAdmin(gateway.runtime.orm, new SecretBox(masterKey));
  factory = orchestrator.app.get(ProviderAdapterFactory);
});

afterAll(async () => {
  await orchestrator?.close();
  await gateway?.close();
  await Promise.allSettled(buses.map((bus) => bus.close()));
  await simulator?.kill();
  await dropSchemas(databaseUrl, Object.values(schemas));
  await deleteNamespaceStreams(natsUrl, namespace);
});

describe('ProviderAdapterFactory', () => {
  it('builds the Samsara adapter from the gateway’s credentials and lists the simulator’s vehicles through it', async () => {
    const connection = await connections.create({ customerId: 'fleet-1', provider: 'samsara', environment: 'sandbox', providerCredentials: { apiToken } });
    await projected(connection.connectionId, 1);

    const built = await factory.adapterFor({ connectionId: connection.connectionId });
    expect(built).toMatchObject({ connectionId: connection.connectionId, provider: 'samsara', environment: 'sandbox', status: 'active', revision: 1 });
    const page = await built.adapter.vehicles();
    expect(page.items).toHaveLength(4);
    for (const vehicle of page.items) expect(vehicle.sourceId).toEqual(expect.any(String));

    // The request went through the shared budget: its row exists under the hashed account key, and
    // (GET /fleet/vehicles being a Samsara tier) the tier's row under `<account key>/fleet-vehicles`.
    expect(built.budget.accountKey).toMatch(/^samsara:[0-9a-f]{16}$/);
    const rows = await orchestrator!.runtime.orm.em
      .fork()
      .execute<{ account_key: string; tokens: number; burst: number }[]>(`select account_key, tokens, burst from "${schemas['sync-orchestrator']}".provider_budget order by account_key`);
    expect(rows).toEqual([
      { account_key: built.budget.accountKey, tokens: expect.any(Number), burst: 10 },
      { account_key: `${built.budget.accountKey}/fleet-vehicles`, tokens: expect.any(Number), burst: 5 },
    ]);
    for (const row of rows) expect(row.tokens).toBeLessThan(row.burst);
  });

  it('reuses the adapter while the configuration revision stands and rebuilds it after a change', async () => {
    const connection = await connections.create({ customerId: 'fleet-2', provider: 'samsara', environment: 'sandbox', providerCredentials: { apiToken } });
    await projected(connection.connectionId, 1);
    const first = await factory.adapterFor({ connectionId: connection.connectionId });
    expect(await factory.adapterFor({ connectionId: connection.connectionId })).toBe(first);

    await connections.configure(connection.connectionId, { status: 'paused' });
    await projected(connection.connectionId, 2);
    const second = await factory.adapterFor({ connectionId: connection.connectionId });
    expect(second).not.toBe(first);
    expect(second).toMatchObject({ status: 'paused', revision: 2 });
    // Same account, same process: one budget.
    expect(second.budget).toBe(first.budget);

    factory.invalidate(connection.connectionId);
    expect(await factory.adapterFor({ connectionId: connection.connectionId })).not.toBe(second);
  });

  it('passes the gateway’s typed errors through and caches no failure', async () => {
    const bare = await connections.create({ customerId: 'fleet-3', provider: 'samsara', environment: 'sandbox' });
    await expect(factory.adapterFor({ connectionId: bare.connectionId })).rejects.toMatchObject({ code: 'provider_config_invalid' });
    await expect(factory.adapterFor({ connectionId: bare.connectionId })).rejects.toMatchObject({ code: 'provider_config_invalid' });
  });

  it('logs no provider credential in either service', () => {
    expect(logLines.join('')).not.toContain(apiToken);
  });
});
