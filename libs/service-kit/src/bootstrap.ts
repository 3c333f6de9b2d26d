/**
 * Starting and stopping one service: connect its ORM to its own schema, apply migrations when
 * asked (under an advisory lock, so replicas may race), build the Nest app, listen when it has an
 * HTTP port. Shutdown is the reverse and never drops in-flight work: readiness turns false first,
 * Nest drains handlers (each handler drains its subscription in beforeApplicationShutdown), then
 * the ORM closes. The bus belongs to the caller (one process may host several services).
 */
import { randomUUID } from 'node:crypto';
import { Global, Module, type DynamicModule, type Provider, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { ALL_STREAMS, type MessageBus } from '@switchyard/messaging';
import { createOrm, migrateUp, SERVICE_SCHEMAS, type EntityDefinition, type MigrationClass, type Orm, type ServiceName } from '@switchyard/persistence';
import { createMetricsRegistry, HealthModule, refreshMigrated } from './health.js';
import { createLogger, NestPinoLogger, type Logger } from './logger.js';
import { RuntimeModule } from './runtime.module.js';
import type { ServiceRuntime } from './runtime.js';

export interface ServiceDefinition {
  /** e.g. `directory`; its default schema comes from SERVICE_SCHEMAS in libs/persistence. */
  service: ServiceName;
  entities: readonly EntityDefinition[];
  migrations: readonly MigrationClass[];
  /** The app's root module (imports only). */
  module: Type | DynamicModule;
}

export interface StartOptions {
  databaseUrl: string;
  bus: MessageBus;
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
  /** false: Nest registers no body parsers (the gateway installs its own, JSON only). */
  bodyParser?: boolean;
  /** Extra Fastify server options (e.g. the gateway's request-id generator). */
  fastify?: Record<string, unknown>;
  /** Extra global providers for the app (e.g. the gateway's settings). */
  providers?: Provider[];
  /** Gateway hook: filters, OpenAPI, parsers — runs before init. */
  configure?: (app: NestFastifyApplication, runtime: ServiceRuntime) => void | Promise<void>;
}

export interface RunningService {
  readonly runtime: ServiceRuntime;
  readonly app: NestFastifyApplication;
  /** Base URL when listening. */
  readonly url: string | undefined;
  close(): Promise<void>;
}

export async function startService(def: ServiceDefinition, options: StartOptions): Promise<RunningService> {
  const logger = options.logger ?? createLogger({ service: def.service, level: options.logLevel });
  const schema = options.schema ?? SERVICE_SCHEMAS[def.service];
  const orm: Orm = await createOrm({
    clientUrl: options.databaseUrl,
    schema,
    entities: def.entities,
    migrations: def.migrations,
    allServiceSchemas: options.allServiceSchemas,
    logger: (message) => logger.debug({ orm: true }, message),
  });
  const runtime: ServiceRuntime = {
    service: def.service,
    instanceId: randomUUID(),
    environment: options.environment,
    bus: options.bus,
    orm,
    logger,
    state: { migrated: false, shuttingDown: false },
  };
  try {
    await options.bus.ensureStreams(ALL_STREAMS);
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

    @Module({ imports: [RuntimeModule.forRoot(runtime), ServiceExtrasModule, HealthModule.forRoot(createMetricsRegistry(def.service)), def.module] })
    class ServiceRootModule {}

    const app = await NestFactory.create<NestFastifyApplication>(
      ServiceRootModule,
      new FastifyAdapter({ bodyLimit: options.http?.bodyLimit ?? 1_048_576, trustProxy: false, ...options.fastify }),
      { logger: new NestPinoLogger(logger), bufferLogs: false, abortOnError: false, bodyParser: options.bodyParser ?? true },
    );
    await options.configure?.(app, runtime);
    let url: string | undefined;
    if (options.http) {
      await app.listen(options.http.port, options.http.host ?? '127.0.0.1');
      url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    } else {
      await app.init();
    }
    logger.info({ schema, url, bus: options.bus.kind }, `${def.service} started`);
    return {
      runtime,
      app,
      url,
      async close() {
        runtime.state.shuttingDown = true;
        await app.close();
        await orm.close(true);
        logger.info(`${def.service} stopped`);
      },
    };
  } catch (error) {
    await orm.close(true).catch(() => undefined);
    throw error;
  }
}
