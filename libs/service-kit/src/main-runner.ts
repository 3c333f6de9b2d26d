/**
 * The body of every app's main.ts (one service per process, as deployed): parse the environment
 * once, connect to NATS (waiting for it), start the service, and on SIGTERM/SIGINT shut down in
 * order — readiness false, handlers drained, ORM closed, bus drained — then exit. A second signal
 * exits at once, and so does passing SHUTDOWN_DEADLINE_MS (exit 1). A bad environment prints the one ConfigError message (every bad variable named,
 * the app's own `envSchema` included; no stack) and exits 1; any other start-up failure is logged
 * once and exits 1.
 */
import { createBus } from '@switchyard/messaging';
import { resolveDatabaseUrl } from '@switchyard/persistence';
import { z } from 'zod';
import type { RunningService, ServiceDefinition, StartOptions } from './bootstrap.js';
import { processLabel, startService } from './bootstrap.js';
import { baseEnvSchema, checkNatsEnv, ConfigError, loadConfig, natsAuth, streamsFromEnv } from './config.js';
import { createLogger } from './logger.js';
import type { Logger } from './logger.js';
import { tracingConfigFrom } from './tracing/tracing-config.js';

export interface MainOptions {
  /** Which variable holds the HTTP port: PORT (gateway) or HEALTH_PORT (contexts). */
  portVariable: 'PORT' | 'HEALTH_PORT';
  defaultPort: number;
  /** Interface bound when HOST is unset: the gateway's loopback, a context's every interface. */
  defaultHost?: string;
  /**
   * The gateway: /metrics (with /healthz and /readyz) on a separate internal port read from this
   * variable, never on the public one; 0 serves /metrics nowhere. Contexts omit it: their one
   * port is internal and serves /metrics itself.
   */
  metricsPort?: { variable: 'METRICS_PORT'; defaultPort: number };
  /** Defaults to startService(def, …); the gateway passes its own start function. */
  start?: (options: StartOptions) => Promise<RunningService>;
  /**
   * The app's own variables, which its start function parses (e.g. INGEST_ACK_WAIT_MS): validated
   * here too, with the shared ones, so one message names every bad variable. Its refinements run
   * too (the gateway's secrets required in production); give them `when: () => true` to have them
   * reported alongside another variable's bad value rather than after it is fixed.
   */
  envSchema?: z.ZodObject;
}

export async function runMain(def: ServiceDefinition, options: MainOptions): Promise<void> {
  try {
    await runService(def, options);
  } catch (error) {
    if (error instanceof ConfigError) process.stderr.write(`${processLabel(def)}: ${error.message}\n`);
    else createLogger({ service: def.service, ...(def.role ? { role: def.role } : {}) }).error({ err: error }, 'start failed');
    // Exit explicitly: an open bus connection would keep the process alive. pino flushes on exit.
    process.exit(1);
  }
}

export interface MainEnv {
  env: z.output<typeof baseEnvSchema> & Record<string, unknown> & { HOST: string };
  http: StartOptions['http'];
  metrics: StartOptions['metrics'];
}

type EnvOptions = Pick<MainOptions, 'portVariable' | 'defaultPort' | 'defaultHost' | 'metricsPort' | 'envSchema'>;

/**
 * Every variable a main.ts parses: the shared ones, the app's own `envSchema` (its refinements
 * kept: `safeExtend`, where spreading its shape would drop them) and the listeners' ports and HOST,
 * checked together with the rules between the NATS_* variables.
 */
export function mainEnvSchema(options: EnvOptions): z.ZodObject {
  const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
  const app = options.envSchema ?? z.object({});
  return app.safeExtend({
    ...baseEnvSchema.shape,
    ...app.shape,
    [options.portVariable]: port(options.defaultPort),
    ...(options.metricsPort ? { [options.metricsPort.variable]: port(options.metricsPort.defaultPort) } : {}),
    HOST: z.string().default(options.defaultHost ?? '0.0.0.0'),
  }).superRefine(checkNatsEnv, { when: () => true });
}

/** The process environment and its listeners: the HTTP port (0: none) and where /metrics goes. */
export function parseMainEnv(options: EnvOptions, source: NodeJS.ProcessEnv = process.env): MainEnv {
  const env = loadConfig(mainEnvSchema(options), source) as MainEnv['env'];
  const httpPort = env[options.portVariable] as number;
  const http = httpPort > 0 ? { port: httpPort, host: env.HOST } : undefined;
  if (!options.metricsPort) return { env, http, metrics: undefined };
  const { variable } = options.metricsPort;
  const metricsPort = env[variable] as number;
  if (metricsPort > 0 && metricsPort === httpPort) throw new ConfigError([`${variable}: must differ from ${options.portVariable} (${httpPort})`]);
  return { env, http, metrics: metricsPort > 0 ? { port: metricsPort, host: env.HOST } : 'none' };
}

async function runService(def: ServiceDefinition, options: MainOptions): Promise<void> {
  const { env, http, metrics } = parseMainEnv(options);
  const logger = createLogger({ service: def.service, ...(def.role ? { role: def.role } : {}), level: env.LOG_LEVEL });
  // Waits for NATS, logging "waiting for NATS at <servers>" with backoff; refused credentials exit.
  const bus = await createBus({ kind: 'jetstream', servers: env.NATS_URL, name: processLabel(def), namespace: env.NATS_NAMESPACE, logger, waitOnFirstConnect: true, auth: natsAuth(env) });
  const start = options.start ?? ((o: StartOptions) => startService(def, o));
  const running = await start({
    databaseUrl: env.DATABASE_URL ?? resolveDatabaseUrl(process.env),
    databaseTimeouts: { connectMs: env.DB_CONNECT_TIMEOUT_MS, statementMs: env.DB_STATEMENT_TIMEOUT_MS, lockMs: env.DB_LOCK_TIMEOUT_MS },
    schema: env.DB_SCHEMA,
    bus,
    streams: streamsFromEnv(env),
    environment: env.SWITCHYARD_ENV,
    migrateOnStart: env.MIGRATE_ON_START,
    logger,
    http,
    metrics,
    tracing: tracingConfigFrom(env) ?? null,
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal, deadlineMs: env.SHUTDOWN_DEADLINE_MS }, 'shutting down');
    process.exit(await shutdownWithin(env.SHUTDOWN_DEADLINE_MS, async () => {
      await running.close();
      await bus.close();
    }, logger));
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

/**
 * Runs an orderly shutdown and returns the exit code: 0 when `close` finished, 1 when it failed or
 * did not finish within `deadlineMs` (a drain stuck on a dead dependency must not keep the process:
 * unsettled messages are redelivered after their ack wait).
 */
export async function shutdownWithin(deadlineMs: number, close: () => Promise<void>, logger: Pick<Logger, 'error'>): Promise<0 | 1> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'deadline'>((resolve) => {
    timer = setTimeout(() => resolve('deadline'), deadlineMs);
    timer.unref();
  });
  try {
    const outcome = await Promise.race([close().then(() => 'closed' as const), deadline]);
    if (outcome === 'deadline') {
      logger.error({ deadlineMs }, 'shutdown deadline passed: exiting');
      return 1;
    }
    return 0;
  } catch (error) {
    logger.error({ err: error }, 'shutdown failed');
    return 1;
  } finally {
    clearTimeout(timer);
  }
}
