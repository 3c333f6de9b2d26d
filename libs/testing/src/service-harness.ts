/**
 * One service under test on the real PostgreSQL and NATS, isolated from every other run: its own
 * schema (`<schema>_<suffix>`, with the other five services' isolated names in the ignore list), its
 * own bus namespace (streams `<NS>_…`), a bus connection of its own and a separate client
 * connection for the test (so every call crosses the NATS server, as the gateway's would).
 * Invariant: close() leaves the shared servers as it found them — the schemas are dropped and the
 * namespace's streams deleted even when the service failed to start or was already stopped.
 */
import { PassThrough } from 'node:stream';
import { ALL_STREAMS, createBus, type MessageBus } from '@switchyard/messaging';
import { SERVICE_SCHEMAS, type ServiceName } from '@switchyard/persistence';
import { createLogger, startService, type RunningService, type ServiceDefinition, type StartOptions } from '@switchyard/service-kit';
import { dropSchemas, isolatedSchemas, uniqueNamespace } from './isolation.js';
import { deleteNamespaceStreams } from './nats-cleanup.js';
import { resolveTestServices } from './services.js';

export interface StartServiceForTestOptions {
  /** The app's own start function (e.g. `startDirectory`); default `startService(def, …)`. */
  start?: (options: StartOptions) => Promise<RunningService>;
  /** Listen on a free port (port 0) so /healthz, /readyz and /metrics are reachable. Default false. */
  http?: boolean;
  /** Captured log level; default `info`. */
  logLevel?: string;
  /** Namespace prefix (lower-case, digits, '-'); default the service name. */
  namespacePrefix?: string;
}

export interface ServiceUnderTest {
  readonly definition: ServiceDefinition;
  readonly service: RunningService;
  /** Base URL when started with `http: true`. */
  readonly url: string | undefined;
  /** The service's own bus connection (the caller owns it, as in production). */
  readonly bus: MessageBus;
  /** A second connection in the same namespace for the test to call the service with. */
  readonly client: MessageBus;
  readonly databaseUrl: string;
  readonly natsUrl: string;
  readonly namespace: string;
  /** This service's isolated schema. */
  readonly schema: string;
  /** Every service's isolated schema of this run (the schema generator ignores all but `schema`). */
  readonly schemas: Readonly<Record<ServiceName, string>>;
  /** Every log line the service wrote so far (pino JSON lines). */
  logText(): string;
  /** Closes the service and its bus connection, once; the client and the isolation stay. */
  stopService(): Promise<void>;
  /** stopService(), then closes the client, drops the schemas and deletes the streams. Idempotent. */
  close(): Promise<void>;
}

const ALL_SERVICES = Object.keys(SERVICE_SCHEMAS) as ServiceName[];

export async function startServiceForTest(definition: ServiceDefinition, options: StartServiceForTestOptions = {}): Promise<ServiceUnderTest> {
  const { databaseUrl, natsUrl } = await resolveTestServices();
  const schemas = isolatedSchemas(ALL_SERVICES);
  const schema = schemas[definition.service];
  const namespace = uniqueNamespace(options.namespacePrefix ?? definition.service);
  const sink = new PassThrough();
  const lines: string[] = [];
  sink.on('data', (chunk: Buffer) => lines.push(chunk.toString('utf8')));
  const logger = createLogger({ service: definition.service, level: options.logLevel ?? 'info', destination: sink });

  const opened: MessageBus[] = [];
  const cleanup = async () => {
    await Promise.allSettled(opened.map((bus) => bus.close()));
    await dropSchemas(databaseUrl, Object.values(schemas));
    await deleteNamespaceStreams(natsUrl, namespace);
  };

  let service: RunningService;
  let bus: MessageBus;
  let client: MessageBus;
  try {
    bus = await createBus({ kind: 'jetstream', servers: natsUrl, name: `${definition.service}-under-test`, namespace, logger });
    opened.push(bus);
    // The provisioning step (decision 0033): the service only verifies the streams.
    await bus.ensureStreams(ALL_STREAMS);
    client = await createBus({ kind: 'jetstream', servers: natsUrl, name: `${definition.service}-test-client`, namespace, requestTimeoutMs: 2_000 });
    opened.push(client);
    const start = options.start ?? ((o: StartOptions) => startService(definition, o));
    service = await start({
      databaseUrl,
      bus,
      environment: 'sandbox',
      schema,
      allServiceSchemas: Object.values(schemas),
      migrateOnStart: true,
      logger,
      http: options.http ? { port: 0 } : undefined,
    });
  } catch (error) {
    await cleanup().catch(() => undefined);
    throw new Error(`${definition.service} did not start for the test: ${error instanceof Error ? error.message : String(error)}\n${lines.join('')}`, { cause: error });
  }

  let stopping: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  const stopService = () => {
    stopping ??= service.close().finally(() => bus.close());
    return stopping;
  };
  return {
    definition,
    service,
    url: service.url,
    bus,
    client,
    databaseUrl,
    natsUrl,
    namespace,
    schema,
    schemas,
    logText: () => lines.join(''),
    stopService,
    close() {
      closing ??= stopService()
        .catch(() => undefined)
        .then(cleanup);
      return closing;
    },
  };
}
