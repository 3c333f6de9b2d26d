/**
 * The one collection pipeline the orchestrator's end-to-end suites start, as the launcher does:
 * a gateway (connection configs, provider credentials, the public API over HTTP on a free port),
 * the ingesting contexts a suite asks for (directory, telemetry-ingest, fault-feed), and one or more
 * sync-orchestrator instances on ONE schema (several processes' worth of collectors, receipt
 * consumers and, when asked, schedulers), on the machine's PostgreSQL and NATS in isolated schemas
 * and a unique stream namespace. A suite either passes the base URLs of simulators it spawned
 * itself (`providerBaseUrls`) or asks for a Samsara simulator (`samsaraSimulator`, seeded with the
 * namespace, its token in `apiToken`). Every service logs into `logLines` (debug by default: suites
 * assert on what is, and is never, logged). `close()` stops the services newest first, closes the
 * buses, kills the simulator, drops the schemas and deletes the namespace's streams.
 */
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
// The orchestrator never imports other apps; its tests start them beside it, as the launcher does.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startDirectory } from '@switchyard/directory';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startFaultFeed } from '@switchyard/fault-feed';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ConnectionsAdmin, CredentialsAdmin, OutboxRelay, SecretBox, startGateway } from '@switchyard/gateway';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startTelemetryIngest } from '@switchyard/telemetry-ingest';
import type { Provider } from '@switchyard/domain';
import { createBus, type MessageBus } from '@switchyard/messaging';
import { createLogger, type RunningService, type StartOptions } from '@switchyard/service-kit';
import { deleteNamespaceStreams, dropSchemas, isolatedSchemas, pollUntil, resolveTestServices, spawnSimulator, uniqueNamespace, type NodeProcess } from '@switchyard/testing';
import { startSyncOrchestrator } from '../src/index.js';

export type IngestContext = 'directory' | 'telemetry-ingest' | 'fault-feed';

const STARTERS: Record<IngestContext, (options: StartOptions) => Promise<RunningService>> = {
  directory: startDirectory,
  'telemetry-ingest': startTelemetryIngest,
  'fault-feed': startFaultFeed,
};

export interface PipelineOptions {
  /** Namespace prefix (and the Samsara simulator's seed). */
  readonly namespace: string;
  readonly contexts: readonly IngestContext[];
  /** Base URLs of simulators the suite spawned itself. */
  readonly providerBaseUrls?: Partial<Record<Provider, string>>;
  /** Spawn a Samsara simulator with these extra variables (fleet size, clock); it serves `apiToken`. */
  readonly samsaraSimulator?: Record<string, string>;
  /** One entry per orchestrator instance on the one schema (default: one, no scheduler); env adds to POLL_MS=100, LEASE_MS=10000. */
  readonly orchestrators?: readonly { env?: Record<string, string>; scheduler?: boolean }[];
  /** Level of every service's log into `logLines`; default debug. */
  readonly logLevel?: 'debug' | 'info' | 'warn';
}

export interface Pipeline {
  readonly schemas: Record<string, string>;
  readonly masterKey: string;
  readonly logLines: string[];
  readonly gateway: RunningService;
  /** The first orchestrator. */
  readonly orchestrator: RunningService;
  readonly orchestrators: RunningService[];
  readonly contexts: Partial<Record<IngestContext, RunningService>>;
  readonly connections: ConnectionsAdmin;
  readonly credentials: CredentialsAdmin;
  /** The spawned Samsara simulator's token and URL (empty without `samsaraSimulator`). */
  readonly apiToken: string;
  readonly simulatorUrl: string;
  /** A bus in the pipeline's namespace (closed by `close`). */
  bus(name: string): Promise<MessageBus>;
  /** Publishes the gateway outbox and waits until the orchestrators and every started context hold `revision` of the connection. */
  projected(connectionId: string, revision: number): Promise<void>;
  /** An application with every sync operation (and history) on the connection; its HTTP headers once the orchestrator holds the grant at the gateway's current version. */
  syncApplication(connectionId: string, name: string): Promise<{ applicationId: string; headers: Record<string, string> }>;
  close(): Promise<void>;
}

/** Raw SQL on a service's own connection pool (schema-qualify the tables). */
export async function sql<T>(service: RunningService, text: string, params: unknown[] = []): Promise<T[]> {
  return service.runtime.orm.em.fork().execute<T[]>(text, params);
}

export async function startPipeline(options: PipelineOptions): Promise<Pipeline> {
  const { databaseUrl, natsUrl } = await resolveTestServices();
  const schemas: Record<string, string> = isolatedSchemas(['gateway', 'sync-orchestrator', 'directory', 'telemetry-ingest', 'fault-feed', 'enrichment']);
  const namespace = uniqueNamespace(options.namespace);
  const masterKey = SecretBox.generateKey();
  const logLines: string[] = [];
  const buses: MessageBus[] = [];
  const services: RunningService[] = [];
  let simulator: NodeProcess | undefined;
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => logLines.push(chunk.toString('utf8')));
  const bus = async (name: string) => {
    const created = await createBus({ kind: 'jetstream', servers: natsUrl, name, namespace });
    buses.push(created);
    return created;
  };
  const common = { databaseUrl, environment: 'sandbox' as const, allServiceSchemas: Object.values(schemas) };
  const start = async (service: string, busName: string, starter: (o: StartOptions) => Promise<RunningService>, extra: Partial<StartOptions> = {}) => {
    const running = await starter({ ...common, bus: await bus(busName), schema: schemas[service]!, logger: createLogger({ service, level: options.logLevel ?? 'debug', destination: sink }), ...extra });
    services.push(running);
    return running;
  };
  const close = async () => {
    for (const service of services.reverse()) await service.close().catch(() => undefined);
    await Promise.allSettled(buses.map((b) => b.close()));
    await simulator?.kill();
    await dropSchemas(databaseUrl, Object.values(schemas));
    await deleteNamespaceStreams(natsUrl, namespace);
  };
  try {
    let apiToken = '';
    let simulatorUrl = '';
    if (options.samsaraSimulator) {
      apiToken = `samsara_api_${randomBytes(20).toString('hex')}`;
      const spawned = await spawnSimulator('samsara', { SAMSARA_API_TOKENS: apiToken, SIM_SEED: options.namespace, ...options.samsaraSimulator });
      simulator = spawned.process;
      simulatorUrl = spawned.url;
    }
    const providerBaseUrls = { ...options.providerBaseUrls, ...(simulatorUrl ? { samsara: simulatorUrl } : {}) };
    const gateway = await start('gateway', 'gateway-test', startGateway, {
      http: { port: 0 },
      gatewaySettings: { masterKey, cursorSecret: randomBytes(32).toString('base64url'), rpcTimeoutMs: 10_000 },
    } as Partial<StartOptions>);
    const contexts: Partial<Record<IngestContext, RunningService>> = {};
    for (const context of options.contexts) contexts[context] = await start(context, `${context}-test`, STARTERS[context]);
    const orchestrators: RunningService[] = [];
    for (const [i, o] of (options.orchestrators ?? [{}]).entries()) {
      orchestrators.push(
        await start('sync-orchestrator', `sync-orchestrator-test-${i}`, startSyncOrchestrator, {
          providerBaseUrls,
          collectors: true,
          scheduler: o.scheduler ?? false,
          env: { ...process.env, POLL_MS: '100', LEASE_MS: '10000', ...o.env },
        } as Partial<StartOptions>),
      );
    }
    const orchestrator = orchestrators[0]!;
    const credentials = new CredentialsAdmin(gateway.runtime.orm);

    const projected = async (connectionId: string, revision: number) => {
      await gateway.app.get(OutboxRelay).flush();
      // The orchestrators share one schema: one of them holding the revision is all of them.
      const holders: [RunningService, string][] = [[orchestrator, schemas['sync-orchestrator']!], ...options.contexts.map((c): [RunningService, string] => [contexts[c]!, schemas[c]!])];
      for (const [service, schema] of holders) {
        await pollUntil(async () => (await sql<{ revision: number }>(service, `select revision from "${schema}".connection_config where connection_id = ?::uuid`, [connectionId]))[0]?.revision === revision, {
          timeoutMs: 20_000,
          description: `config revision ${revision} in ${schema}`,
        });
      }
    };

    const syncApplication = async (connectionId: string, name: string) => {
      const app = await credentials.createApplication(name, 'sandbox');
      await credentials.grantApplication(app.id, connectionId, ['sync.create', 'sync.read', 'sync.retry', 'sync.cancel'], true);
      const token = (await credentials.issueConnectionToken(app.id, connectionId)).token;
      // The orchestrator must hold the grant snapshot at the version the gateway now authenticates with (else 503).
      const [current] = await sql<{ version: number }>(gateway, `select credential_version as version from "${schemas.gateway}".application where id = ?::uuid`, [app.id]);
      await gateway.app.get(OutboxRelay).flush();
      await pollUntil(
        async () =>
          ((await sql<{ version: number }>(orchestrator, `select credential_version as version from "${schemas['sync-orchestrator']}".application_credential where application_id = ?::uuid`, [app.id]))[0]?.version ?? 0) >=
          current!.version,
        { timeoutMs: 20_000, description: `application grant version ${current!.version} in the orchestrator` },
      );
      return { applicationId: app.id, headers: { authorization: `Bearer ${app.token}`, 'connection-token': token } };
    };

    return {
      schemas,
      masterKey,
      logLines,
      gateway,
      orchestrator,
      orchestrators,
      contexts,
      connections: new ConnectionsAdmin(gateway.runtime.orm, new SecretBox(masterKey)),
      credentials,
      apiToken,
      simulatorUrl,
      bus,
      projected,
      syncApplication,
      close,
    };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}
