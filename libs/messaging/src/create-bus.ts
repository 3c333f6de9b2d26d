/**
 * The one factory services call: JetStream when NATS exists, in-process otherwise (the launcher
 * decides which). Invariant: the caller gets a `MessageBus` and never learns which one, beyond
 * `bus.kind` for the start-up log line.
 */
import { InProcessBus } from './in-process/in-process-bus.js';
import { JetStreamBus } from './jetstream/jetstream-bus.js';
import type { NatsAuth } from './jetstream/nats-auth.js';
import { stderrLogger, type BusLogger } from './logger.js';
import type { MessageBus } from './port.js';

export interface JetStreamBusConfig {
  kind: 'jetstream';
  /** `NATS_URL`: one URL, a comma-separated list, or an array. */
  servers: string | readonly string[];
  /** Connection name, e.g. `directory`. */
  name: string;
  /** Prefix for every subject/stream/durable; '' in production, unique per test run. */
  namespace: string;
  logger?: BusLogger;
  /** Default request deadline, ms (5000). */
  requestTimeoutMs?: number;
  /** Retry the first connect forever instead of failing fast (default false). */
  waitOnFirstConnect?: boolean;
  /** Credentials file, user/password or token, TLS files, inbox prefix (service-kit `natsAuth` reads them from NATS_*). */
  auth?: NatsAuth;
}

export interface InProcessBusConfig {
  kind: 'in-process';
  namespace: string;
  logger?: BusLogger;
  requestTimeoutMs?: number;
}

export type BusConfig = JetStreamBusConfig | InProcessBusConfig;

export async function createBus(config: BusConfig): Promise<MessageBus> {
  const logger = config.logger ?? stderrLogger;
  if (config.kind === 'in-process') return new InProcessBus({ namespace: config.namespace, logger, requestTimeoutMs: config.requestTimeoutMs });
  return JetStreamBus.connect({
    servers: config.servers,
    name: config.name,
    namespace: config.namespace,
    logger,
    requestTimeoutMs: config.requestTimeoutMs,
    waitOnFirstConnect: config.waitOnFirstConnect,
    auth: config.auth,
  });
}
