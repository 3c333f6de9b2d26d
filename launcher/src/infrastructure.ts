/**
 * Chooses the PostgreSQL and the message bus for `npm start`, in the documented order:
 * DATABASE_URL / NATS_URL when set; else the servers on their default local ports when they
 * answer; else an embedded PostgreSQL 15 from node_modules and the in-process bus.
 * SWITCHYARD_EMBEDDED=true skips the probes and forces the embedded pair (DATABASE_URL and
 * NATS_URL are then ignored). Each choice carries a description; the launcher logs both in one
 * line so a developer knows which world they are in. Passwords never reach that line (maskUrl).
 */
import path from 'node:path';
import { createBus, type MessageBus } from '@switchyard/messaging';
import { maskUrl } from '@switchyard/persistence';
import { loadConfig, natsAuth, natsEnvSchema, probe, type Logger } from '@switchyard/service-kit';
import { startEmbeddedPostgres } from './embedded-postgres.js';

export interface Database {
  url: string;
  /** For the start-up line, e.g. `local PostgreSQL on 127.0.0.1:5432, database switchyard`. */
  description: string;
  /** The launcher's own PostgreSQL (stops with it), as recorded for the CLIs (local-stack.json). */
  embedded: boolean;
  stop(): Promise<void>;
}

export interface Bus {
  bus: MessageBus;
  /** For the start-up line, e.g. `NATS JetStream at nats://127.0.0.1:4222, namespace ""`. */
  description: string;
  /** The JetStream server, or null for the in-process bus. */
  natsUrl: string | null;
}

/** SWITCHYARD_EMBEDDED: unset, '' or `false` → probe as documented; `true` → embedded PostgreSQL and in-process bus. */
export function embeddedSwitch(env: NodeJS.ProcessEnv): boolean {
  const value = env.SWITCHYARD_EMBEDDED?.trim() ?? '';
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw new Error(`SWITCHYARD_EMBEDDED must be true or false, got "${value}"`);
}

/** The sandbox keeps its data in its own database so it never mixes with test schemas. */
const SANDBOX_DATABASE = 'switchyard';

export async function chooseDatabase(env: NodeJS.ProcessEnv, dataDir: string, logger: Logger, embedded: boolean): Promise<Database> {
  if (!embedded && env.DATABASE_URL) {
    return { url: env.DATABASE_URL, description: `PostgreSQL at DATABASE_URL ${maskUrl(env.DATABASE_URL)}`, embedded: false, stop: async () => undefined };
  }
  if (!embedded && (await probe('127.0.0.1', 5432))) {
    const url = await ensureDatabase('postgres://postgres@127.0.0.1:5432', SANDBOX_DATABASE);
    return { url, description: `local PostgreSQL on 127.0.0.1:5432, database ${SANDBOX_DATABASE}`, embedded: false, stop: async () => undefined };
  }
  const port = Number(env.EMBEDDED_PG_PORT ?? 54329);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`EMBEDDED_PG_PORT must be a port number, got "${env.EMBEDDED_PG_PORT}"`);
  const pgDir = path.join(dataDir, 'pg');
  const pg = await startEmbeddedPostgres({ dataDir: pgDir, port, onLog: (line) => logger.debug({ pg: true }, line) });
  try {
    const url = await ensureDatabase(pg.url.replace(/\/[^/]*$/, ''), SANDBOX_DATABASE);
    const why = embedded ? 'SWITCHYARD_EMBEDDED=true' : 'no DATABASE_URL, nothing on 127.0.0.1:5432';
    return { url, description: `embedded PostgreSQL 15 on 127.0.0.1:${port} (${why}), data in ${pgDir}`, embedded: true, stop: () => pg.stop() };
  } catch (error) {
    await pg.stop().catch(() => undefined);
    throw error;
  }
}

async function ensureDatabase(serverUrl: string, name: string): Promise<string> {
  const { default: pg } = (await import('pg')) as { default: { Client: new (o: { connectionString: string }) => PgClient } };
  const client = new pg.Client({ connectionString: `${serverUrl}/postgres` });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
  return `${serverUrl}/${name}`;
}

interface PgClient {
  connect(): Promise<void>;
  query(sql: string, params?: unknown[]): Promise<{ rowCount: number | null }>;
  end(): Promise<void>;
}

export async function chooseBus(env: NodeJS.ProcessEnv, logger: Logger, embedded: boolean): Promise<Bus> {
  const namespace = env.NATS_NAMESPACE ?? '';
  const where = `namespace "${namespace}"`;
  if (!embedded && env.NATS_URL) {
    // NATS_CREDS_FILE, NATS_USER/NATS_PASSWORD, NATS_TOKEN, NATS_TLS_* and NATS_INBOX_PREFIX, as a service's main.ts reads them.
    const auth = natsAuth(loadConfig(natsEnvSchema, env));
    const bus = await createBus({ kind: 'jetstream', servers: env.NATS_URL, name: 'switchyard-sandbox', namespace, logger, auth });
    return { bus, description: `NATS JetStream at NATS_URL ${maskUrl(env.NATS_URL)}, ${where}`, natsUrl: env.NATS_URL };
  }
  if (!embedded && (await probe('127.0.0.1', 4222))) {
    const bus = await createBus({ kind: 'jetstream', servers: 'nats://127.0.0.1:4222', name: 'switchyard-sandbox', namespace, logger });
    return { bus, description: `NATS JetStream on 127.0.0.1:4222, ${where}`, natsUrl: 'nats://127.0.0.1:4222' };
  }
  const why = embedded ? 'SWITCHYARD_EMBEDDED=true' : 'no NATS_URL, nothing on 127.0.0.1:4222';
  const bus = await createBus({ kind: 'in-process', namespace, logger });
  return { bus, description: `in-process bus (${why}; every service runs in this one process)`, natsUrl: null };
}
