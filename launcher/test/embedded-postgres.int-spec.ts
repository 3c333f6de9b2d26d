/**
 * Starts a real embedded PostgreSQL in a temp dir on a free port, queries it through createOrm,
 * stops it, starts it again on the same data (initdb skipped: the table survives) and stops it.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createOrm } from '@switchyard/persistence';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../src/embedded-postgres.js';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

let root: string | undefined;
let running: EmbeddedPostgres | undefined;

afterAll(async () => {
  await running?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

async function query<T>(url: string, sql: string): Promise<T[]> {
  const orm = await createOrm({ clientUrl: url, schema: 'embedded_check', entities: [], migrations: [], allServiceSchemas: [], poolMax: 2, logger: () => undefined });
  try {
    return await orm.em.fork().execute<T[]>(sql);
  } finally {
    await orm.close(true);
  }
}

describe('startEmbeddedPostgres', () => {
  it('initialises once, serves queries, and keeps its data across a restart', async () => {
    root = await mkdtemp(path.join(tmpdir(), 'switchyard-embedded-pg-'));
    const dataDir = path.join(root, 'data');
    const port = await freePort();

    running = await startEmbeddedPostgres({ dataDir, port });
    expect(running.url).toBe(`postgres://postgres:postgres@127.0.0.1:${port}/postgres`);
    expect(await query<{ one: number }>(running.url, 'select 1 as one')).toEqual([{ one: 1 }]);
    await query(running.url, 'create table kept_across_restart (id int)');
    await running.stop();
    running = undefined;

    const initialisedAt = (await stat(path.join(dataDir, 'PG_VERSION'))).mtimeMs;
    running = await startEmbeddedPostgres({ dataDir, port });
    expect((await stat(path.join(dataDir, 'PG_VERSION'))).mtimeMs).toBe(initialisedAt);
    expect(await query<{ n: string }>(running.url, `select count(*)::text as n from pg_tables where tablename = 'kept_across_restart'`)).toEqual([{ n: '1' }]);
    await running.stop();
    running = undefined;
  });
});
