/**
 * The NATS connection behind the JetStream bus: named (visible in `nats server report connections`),
 * reconnecting forever with exponential backoff, its status tracked for readiness, drained on close.
 * Authentication, TLS and the inbox prefix come from `auth` (nats-auth.ts). With
 * `waitOnFirstConnect`, an unreachable server is retried with the same backoff and every attempt
 * logs "waiting for NATS at <servers>", so a service never hangs silently; refused credentials and
 * certificate errors fail at once, since retrying cannot fix them.
 * Invariant: `isHealthy()` is true only between a (re)connect and the next disconnect/close, so a
 * readiness probe never reports a bus that cannot send; servers in logs and errors carry no credentials.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { AuthorizationError, connect, UserAuthenticationExpiredError, type NatsConnection } from '@nats-io/transport-node';
import { BusUnavailableError } from '../errors.js';
import { describeError, type BusLogger } from '../logger.js';
import { natsClientAuthOptions, type NatsAuth } from './nats-auth.js';

export interface NatsConnectionOptions {
  /** `nats://host:port`, one or several (the `NATS_URL` value may be comma-separated). */
  servers: string | readonly string[];
  /** Client name, e.g. `directory@<hostname>`. */
  name: string;
  /** Keep retrying the first connect instead of failing fast (default false: fail fast). */
  waitOnFirstConnect?: boolean;
  /** Credentials, TLS and inbox prefix; credentials inside a server URL are used when this has none. */
  auth?: NatsAuth;
  logger: BusLogger;
}

/**
 * 250 ms doubling, plus up to 20 % jitter so restarted fleets do not reconnect in lockstep: up to
 * 10 s between attempts while waiting for the first connect, up to 2 s between reconnects, so a
 * service is back within about 2.4 s of NATS's return however long the outage was (issue 14:
 * recovery within 10 s; docs/reliability.md).
 */
const RECONNECT_BASE_MS = 250;
const FIRST_CONNECT_MAX_MS = 10_000;
export const RECONNECT_MAX_MS = 2_000;

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

const backoffMs = (attempt: number, maxMs = FIRST_CONNECT_MAX_MS): number => {
  const base = Math.min(maxMs, RECONNECT_BASE_MS * 2 ** Math.min(attempt, 16));
  return base + Math.floor(Math.random() * base * 0.2);
};

/** Node's certificate and handshake error codes: a wrong CA, certificate or name, which no retry fixes. */
const TLS_ERROR_CODE = /^(ERR_TLS_|ERR_SSL_|ERR_OSSL_|CERT_|UNABLE_TO_|SELF_SIGNED_|DEPTH_ZERO_)/;

/** Why the first connect can never succeed as configured, or undefined when the server may just not be up yet. */
function fatalReason(error: unknown): 'authorization_error' | 'tls_error' | undefined {
  if (error instanceof AuthorizationError || error instanceof UserAuthenticationExpiredError) return 'authorization_error';
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && TLS_ERROR_CODE.test(code) ? 'tls_error' : undefined;
}

export async function openConnection(options: NatsConnectionOptions): Promise<TrackedConnection> {
  const clientAuth = natsClientAuthOptions(splitServers(options.servers), options.auth);
  const where = clientAuth.servers.join(',');
  let attempt = 0;
  let nc: NatsConnection | undefined;
  for (let waited = 0; nc === undefined; waited++) {
    try {
      nc = await connect({
        ...clientAuth,
        name: options.name,
        maxReconnectAttempts: -1,
        reconnectDelayHandler: () => backoffMs(attempt++, RECONNECT_MAX_MS),
        // Without it the client builds a RequestError and a TimeoutError, stacks captured, for
        // every request that succeeds (to have the caller's stack ready should it fail): ~2-4 %
        // of the gateway's CPU on a stored read (issue 24 profiles). A failed request still
        // carries its cause; the bus maps it to BusTimeoutError / BusUnavailableError anyway.
        noAsyncTraces: true,
      });
    } catch (error) {
      const fatal = fatalReason(error);
      if (!options.waitOnFirstConnect || fatal) throw new BusUnavailableError(where, fatal ?? 'connection_error', { cause: error });
      const retryInMs = backoffMs(waited);
      options.logger.warn({ name: options.name, servers: where, retryInMs, ...describeError(error) }, `waiting for NATS at ${where}`);
      await sleep(retryInMs);
    }
  }

  let connected = true;
  let closing: Promise<void> | undefined;
  const log = { name: options.name };
  void (async () => {
    for await (const status of nc.status()) {
      // Only these four change the state; reconnect attempts, pings, cluster updates, lame-duck
      // notices and slow consumers do not.
      if (status.type === 'disconnect') {
        connected = false;
        options.logger.warn({ ...log, server: status.server }, 'nats disconnected');
      } else if (status.type === 'reconnect') {
        connected = true;
        attempt = 0;
        options.logger.info({ ...log, server: status.server }, 'nats reconnected');
      } else if (status.type === 'error') {
        options.logger.error({ ...log, ...describeError(status.error) }, 'nats error');
      } else if (status.type === 'close') {
        connected = false;
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
