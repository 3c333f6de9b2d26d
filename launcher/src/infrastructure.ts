/**
 * Chooses the PostgreSQL and the message bus for `npm start`, in the documented order:
 * DATABASE_URL / NATS_URL when set; else the servers on their default local ports when they
 * answer; else an embedded PostgreSQL 15 from node_modules and the in-process bus. Each choice is
 * logged in one line so a developer knows which world they are in.
 */
import { connect } from 'node:net';
import path from 'node:path';
import { createBus, type MessageBus } from '@switchyard/messaging';
import { maskUrl, startEmbeddedPostgres } from '@switchyard/persistence';
import type { Logger } from '@switchyard/service-kit';

export function probe(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export interface Database {
  url: string;
  stop(): Promise<void>;
}

/** The sandbox keeps its data in its own database so it never mixes with test schemas. */
const SANDBOX_DATABASE = 'switchyard';

export async function chooseDatabase(env: NodeJS.ProcessEnv, dataDir: string, logger: Logger): Promise<Database> {
  if (env.DATABASE_URL) {
    logger.info({ database: maskUrl(env.DATABASE_URL) }, 'database: DATABASE_URL');
    return { url: env.DATABASE_URL, stop: async () => undefined };
  }
  if (await probe('127.0.0.1', 5432)) {
    const url = await ensureDatabase('postgres://postgres@127.0.0.1:5432', SANDBOX_DATABASE);
    logger.info({ database: maskUrl(url) }, 'database: local PostgreSQL on 127.0.0.1:5432');
    return { url, stop: async () => undefined };
  }
  const port = Number(env.EMBEDDED_PG_PORT ?? 54329);
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg'), port, onLog: (line) => logger.debug({ pg: true }, line) });
  const url = await ensureDatabase(pg.url.replace(/\/[^/]*$/, ''), SANDBOX_DATABASE);
  logger.info({ database: maskUrl(url) }, `database: embedded PostgreSQL 15 (no DATABASE_URL, nothing on 127.0.0.1:5432), data in ${path.join(dataDir, 'pg')}`);
  return { url, stop: () => pg.stop() };
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

export async function chooseBus(env: NodeJS.ProcessEnv, logger: Logger): Promise<MessageBus> {
  const namespace = env.NATS_NAMESPACE ?? '';
  if (env.NATS_URL) {
    logger.info({ nats: env.NATS_URL }, 'messaging: NATS JetStream at NATS_URL');
    return createBus({ kind: 'jetstream', servers: env.NATS_URL, name: 'switchyard-sandbox', namespace, logger });
  }
  if (await probe('127.0.0.1', 4222)) {
    logger.info('messaging: NATS JetStream on 127.0.0.1:4222');
    return createBus({ kind: 'jetstream', servers: 'nats://127.0.0.1:4222', name: 'switchyard-sandbox', namespace, logger });
  }
  logger.warn('messaging: in-process bus (no NATS_URL, nothing on 127.0.0.1:4222) — everything runs in this one process');
  return createBus({ kind: 'in-process', namespace, logger });
}
