/**
 * The NATS connection behind the JetStream bus: named (visible in `nats server report connections`),
 * reconnecting forever with exponential backoff, its status tracked for readiness, drained on close.
 * Invariant: `isHealthy()` is true only between a (re)connect and the next disconnect/close, so a
 * readiness probe never reports a bus that cannot send.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { BusUnavailableError } from '../errors.js';
import { describeError, type BusLogger } from '../logger.js';

export interface NatsConnectionOptions {
  /** `nats://host:port`, one or several (the `NATS_URL` value may be comma-separated). */
  servers: string | readonly string[];
  /** Client name, e.g. `directory@<hostname>`. */
  name: string;
  /** Keep retrying the first connect instead of failing fast (default false: fail fast). */
  waitOnFirstConnect?: boolean;
  logger: BusLogger;
}

/** 250 ms doubling to 10 s, plus up to 20 % jitter so restarted fleets do not reconnect in lockstep. */
const RECONNECT_BASE_MS = 250;
const RECONNECT_MAX_MS = 10_000;

export interface TrackedConnection {
  readonly nc: NatsConnection;
  isHealthy(): boolean;
  /** Drains subscriptions, flushes pending publishes, closes. Idempotent. */
  close(): Promise<void>;
}

export function splitServers(servers: string | readonly string[]): string[] {
  const list = typeof servers === 'string' ? servers.split(',') : [...servers];
  return list.map((s) => s.trim()).filter((s) => s.length > 0);
}

export async function openConnection(options: NatsConnectionOptions): Promise<TrackedConnection> {
  const servers = splitServers(options.servers);
  let attempt = 0;
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers,
      name: options.name,
      maxReconnectAttempts: -1,
      waitOnFirstConnect: options.waitOnFirstConnect ?? false,
      reconnectDelayHandler: () => {
        const base = Math.min(RECONNECT_MAX_MS, RECONNECT_BASE_MS * 2 ** Math.min(attempt++, 16));
        return base + Math.floor(Math.random() * base * 0.2);
      },
    });
  } catch (error) {
    throw new BusUnavailableError(servers.join(','), 'connection_error', { cause: error });
  }

  let connected = true;
  let closing: Promise<void> | undefined;
  const log = { name: options.name };
  void (async () => {
    for await (const status of nc.status()) {
      switch (status.type) {
        case 'disconnect':
          connected = false;
          options.logger.warn({ ...log, server: status.server }, 'nats disconnected');
          break;
        case 'reconnect':
          connected = true;
          attempt = 0;
          options.logger.info({ ...log, server: status.server }, 'nats reconnected');
          break;
        case 'error':
          options.logger.error({ ...log, ...describeError(status.error) }, 'nats error');
          break;
        case 'close':
          connected = false;
          break;
        default:
          break;
      }
    }
  })();
  void nc.closed().then((error) => {
    connected = false;
    if (error) options.logger.error({ ...log, ...describeError(error) }, 'nats connection closed with error');
  });

  return {
    nc,
    isHealthy: () => connected && !nc.isClosed() && !nc.isDraining(),
    close: () => {
      closing ??= nc.isClosed() ? Promise.resolve() : nc.drain();
      return closing;
    },
  };
}
