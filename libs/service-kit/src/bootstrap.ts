/**
 * Starting and stopping one service: connect its ORM to its own schema, apply migrations when
 * asked (under an advisory lock, so replicas may race), build the Nest app, listen when it has an
 * HTTP port, and open the internal listener when /metrics must stay off the main one. Shutdown is
 * the reverse and never drops in-flight work: readiness turns false first, Nest drains handlers
 * (each handler drains its subscription in beforeApplicationShutdown), the internal listener
 * closes, then the ORM. The bus belongs to the caller (one process may host several services).
 */
import { randomUUID } from 'node:crypto';
import { Global, Module, type DynamicModule, type Provider, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestMicroservice } from '@nestjs/microservices';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { ALL_STREAMS, type MessageBus, type StreamDefinition } from '@switchyard/messaging';
import { createOrm, migrateUp, SERVICE_SCHEMAS, traceQueries, type DatabaseTimeouts, type EntityDefinition, type MigrationClass, type Orm, type PgPool, type ServiceName } from '@switchyard/persistence';
import type { Registry } from 'prom-client';
import { loadConfig } from './config.js';
import { HealthModule, refreshMigrated } from './health.js';
import { MeasuredBus } from './metrics/bus-metrics.js';
import { poolSource } from './metrics/pool-metrics.js';
import { ServiceMetrics } from './metrics/service-metrics.js';
import { createLogger, NestPinoLogger, type Logger } from './logger.js';
import { RuntimeModule } from './runtime.module.js';
import type { ServiceRuntime } from './runtime.js';
import { BusErrorPassThrough, BusTransport, type BusTransportOptions } from './transport/bus-transport.js';
import { traceHttp } from './tracing/http-spans.js';
import { startServiceTracing } from './tracing/service-tracing.js';
import { tracedBus } from './tracing/traced-bus.js';
import { tracingConfigFrom, tracingEnvSchema, type TracingConfig } from './tracing/tracing-config.js';

export interface ServiceDefinition {
  /** e.g. `directory`; its default schema comes from SERVICE_SCHEMAS in libs/persistence. */
  service: ServiceName;
  entities: readonly EntityDefinition[];
  migrations: readonly MigrationClass[];
  /** The app's root module (imports only). */
  module: Type | DynamicModule;
  /**
   * A process role of the service beside its main one, on the same schema (the gateway's
   * `webhook-delivery`, decision 0042): named on every log line and in "<service>/<role> started".
   */
  role?: string;
}

/** How a service's process names itself in its log: `gateway`, or `gateway/webhook-delivery` for a role. */
export const processLabel = (def: Pick<ServiceDefinition, 'service' | 'role'>): string => (def.role ? `${def.service}/${def.role}` : def.service);

export interface StartOptions {
  databaseUrl: string;
  /** Connect, statement and lock deadlines of the pool (main.ts: DB_*_TIMEOUT_MS); defaults otherwise. */
  databaseTimeouts?: Partial<DatabaseTimeouts>;
  bus: MessageBus;
  /**
   * The streams verified at start (decision 0033: provisioned beforehand, never created or changed
   * here; a missing or different one stops the start with StreamConfigMismatchError): ALL_STREAMS,
   * or with the deployment's byte limits (main-runner.ts: NATS_STREAM_MAX_BYTES_*).
   */
  streams?: readonly StreamDefinition[];
  environment: 'sandbox' | 'production';
  /** Overrides the default schema (tests use isolated names). */
  schema?: string;
  /** Every service schema of this deployment, when not the production names (isolated tests). */
  allServiceSchemas?: readonly string[];
  migrateOnStart?: boolean;
  logger?: Logger;
  logLevel?: string;
  /** HTTP listener; omit for none (health is then only reachable over the bus). */
  http?: { port: number; host?: string; bodyLimit?: number };
  /**
   * Where /metrics is served. 'main' (default): on the app beside /healthz and /readyz — a
   * context, whose one port is internal. A listener: only on this second, internal app, which
   * also answers /healthz and /readyz — the gateway, whose main port is public. 'none': nowhere.
   * Either way the process keeps one registry, so the main app's counters are what is served.
   */
  metrics?: 'main' | 'none' | { port: number; host?: string };
  /** false: Nest registers no body parsers (the gateway installs its own, JSON only). */
  bodyParser?: boolean;
  /** Extra Fastify server options (e.g. the gateway's request-id generator). */
  fastify?: Record<string, unknown>;
  /** Extra global providers for the app (e.g. the gateway's settings). */
  providers?: Provider[];
  /** How this process binds its handlers to the bus (patterns left unbound, consumer tuning). */
  transport?: BusTransportOptions;
  /**
   * Traces (decision 0040): absent, from the OTEL_* variables of the process environment; null,
   * none; else this configuration (tests point it at their own OTLP receiver).
   */
  tracing?: TracingConfig | null;
  /** Gateway hook: filters, OpenAPI, parsers — runs before init. */
  configure?: (app: NestFastifyApplication, runtime: ServiceRuntime) => void | Promise<void>;
}

export interface RunningService {
  readonly runtime: ServiceRuntime;
  readonly app: NestFastifyApplication;
  /** Base URL when listening. */
  readonly url: string | undefined;
  /** Base URL of the internal listener (/healthz, /readyz, /metrics) when `metrics` named one. */
  readonly internalUrl: string | undefined;
  close(): Promise<void>;
}

export async function startService(def: ServiceDefinition, options: StartOptions): Promise<RunningService> {
  const logger = options.logger ?? createLogger({ service: def.service, ...(def.role ? { role: def.role } : {}), level: options.logLevel });
  const schema = options.schema ?? SERVICE_SCHEMAS[def.service];
  const instanceId = randomUUID();
  const tracingConfig = options.tracing === undefined ? tracingConfigFrom(loadConfig(tracingEnvSchema, process.env)) : (options.tracing ?? undefined);
  // Off (the usual test and sandbox run): nothing of tracing is built, wrapped or hooked.
  const tracing = tracingConfig && startServiceTracing(def.service, tracingConfig, { instanceId, logger });
  // One registry per service, also when one process hosts several (the launcher): each serves its own /metrics.
  const serviceMetrics = new ServiceMetrics(def.service);
  // Every service talks request/reply and may consume; the app declares its own families (catalog.ts).
  serviceMetrics.declare('rpcServerRequests', 'rpcServerDuration', 'rpcClientRequests', 'rpcClientDuration', 'collectFailures');
  const orm: Orm = await createOrm({
    clientUrl: options.databaseUrl,
    schema,
    entities: def.entities,
    migrations: def.migrations,
    allServiceSchemas: options.allServiceSchemas,
    ...(options.databaseTimeouts ? { timeouts: options.databaseTimeouts } : {}),
    logger: (message) => logger.debug({ orm: true }, message),
    // The pool's counters become the pool gauges (metrics/pool-metrics.ts); with tracing, its queries spans.
    onPool: (pool: PgPool) => {
      serviceMetrics.addSource(poolSource(pool));
      if (tracing) traceQueries(pool, tracing.tracer);
    },
  });
  const runtime: ServiceRuntime = {
    service: def.service,
    instanceId,
    environment: options.environment,
    // Measured (metrics, decision 0041) inside traced (decision 0040): the traced bus passes the rest of the port through.
    bus: tracing ? tracedBus(new MeasuredBus(options.bus, serviceMetrics), tracing) : new MeasuredBus(options.bus, serviceMetrics),
    orm,
    logger,
    metrics: serviceMetrics,
    state: { migrated: false, shuttingDown: false },
    ...(tracing ? { tracing } : {}),
  };
  const registry = serviceMetrics.registry;
  const metrics = options.metrics ?? 'main';
  let app: NestFastifyApplication | undefined;
  let internal: NestFastifyApplication | undefined;
  try {
    await options.bus.verifyStreams(options.streams ?? ALL_STREAMS);
    if (options.migrateOnStart ?? true) {
      await migrateUp(orm, { log: (line) => logger.info(line) });
      runtime.state.migrated = true;
    } else {
      // MIGRATE_ON_START=false: a release step migrates; until it has, the service is not ready
      // (readiness re-checks) and consumers of its tables wait (whenMigrated).
      await refreshMigrated(runtime);
      if (!runtime.state.migrated) logger.warn({ schema }, 'migrations pending: not ready until `npm run migrate` applies them');
    }

    const extra = options.providers ?? [];
    @Global()
    @Module({ providers: extra, exports: extra })
    class ServiceExtrasModule {}

    @Module({ imports: [RuntimeModule.forRoot(runtime), ServiceExtrasModule, HealthModule.forRoot(registry, { metrics: metrics === 'main' }), def.module] })
    class ServiceRootModule {}

    app = await NestFactory.create<NestFastifyApplication>(
      ServiceRootModule,
      new FastifyAdapter({ bodyLimit: options.http?.bodyLimit ?? 1_048_576, trustProxy: false, ...options.fastify }),
      { logger: new NestPinoLogger(logger), bufferLogs: false, abortOnError: false, bodyParser: options.bodyParser ?? true },
    );
    if (tracing) traceHttp(app.getHttpAdapter().getInstance(), tracing);
    await options.configure?.(app, runtime);
    // The app's @MessagePattern / @EventPattern handlers, bound by the bus transport. Deferred, so
    // the pass-through filter is in place before Nest builds the handlers' exception zones; the
    // app's own init runs the lifecycle hooks once.
    const transport = new BusTransport(runtime, options.transport);
    const microservice = app.connectMicroservice({ strategy: transport }, { deferInitialization: true }) as NestMicroservice;
    microservice.useGlobalFilters(new BusErrorPassThrough());
    microservice.setIsInitHookCalled(true);
    await app.init();
    await app.startAllMicroservices();
    let url: string | undefined;
    if (options.http) url = await listen(app, options.http);
    let internalUrl: string | undefined;
    if (typeof metrics === 'object') {
      internal = await startInternalApp(runtime, registry, logger);
      internalUrl = await listen(internal, metrics);
    }
    logger.info({ schema, url, internalUrl, bus: options.bus.kind }, `${processLabel(def)} started`);
    const started = { app, internal };
    return {
      runtime,
      app,
      url,
      internalUrl,
      async close() {
        runtime.state.shuttingDown = true;
        try {
          // Handlers first: in-flight messages settle while every service they use is still up.
          await transport.close();
          await started.app.close();
        } finally {
          // After the main app: metrics stay scrapable while in-flight requests finish.
          await started.internal?.close();
        }
        await orm.close(true);
        await tracing?.shutdown();
        logger.info(`${processLabel(def)} stopped`);
      },
    };
  } catch (error) {
    await internal?.close().catch(() => undefined);
    await app?.close().catch(() => undefined);
    await orm.close(true).catch(() => undefined);
    await tracing?.shutdown();
    throw error;
  }
}

async function listen(app: NestFastifyApplication, http: { port: number; host?: string }): Promise<string> {
  await app.listen(http.port, http.host ?? '127.0.0.1');
  return (await app.getUrl()).replace('[::1]', '127.0.0.1');
}

/**
 * The internal listener: the same health and metrics controllers as every service, on the same
 * runtime and registry, in an app of their own — nothing else of the service is reachable there.
 */
async function startInternalApp(runtime: ServiceRuntime, registry: Registry, logger: Logger): Promise<NestFastifyApplication> {
  @Module({ imports: [RuntimeModule.forRoot(runtime), HealthModule.forRoot(registry)] })
  class InternalRootModule {}

  return NestFactory.create<NestFastifyApplication>(InternalRootModule, new FastifyAdapter({ trustProxy: false }), {
    logger: new NestPinoLogger(logger),
    bufferLogs: false,
    abortOnError: false,
    bodyParser: false,
  });
}
