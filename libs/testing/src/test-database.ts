/**
 * A whole PostgreSQL database for one black-box test (the launcher uses the production schema
 * names, so schema isolation is not enough): `create database <prefix>_<suffix>` on the test
 * server, and a drop that first ends any session still connected to it.
 * Invariant: only names this helper generated (prefix + random suffix) are ever dropped.
 */
import { assertSchemaName, createOrm } from '@switchyard/persistence';
import { uniqueSuffix } from './isolation.js';

export interface TestDatabase {
  name: string;
  /** The server URL with this database as its path. */
  url: string;
  /** `drop database … with (force)`; safe to call twice. */
  drop(): Promise<void>;
}

async function onServer(serverUrl: string, sql: string): Promise<void> {
  const orm = await createOrm({ clientUrl: serverUrl, schema: 'public', entities: [], migrations: [], allServiceSchemas: [], poolMax: 2, logger: () => undefined });
  try {
    // create/drop database cannot run inside a transaction; em.execute runs outside one.
    await orm.em.fork().execute(sql);
  } finally {
    await orm.close(true);
  }
}

/** Creates `<prefix>_<suffix>` on the server `serverUrl` points at (any database of it). */
export async function createTestDatabase(serverUrl: string, prefix = 'sy_test'): Promise<TestDatabase> {
  const name = assertSchemaName(`${prefix}_${uniqueSuffix()}`);
  await onServer(serverUrl, `create database "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let dropped: Promise<void> | undefined;
  return {
    name,
    url: url.toString(),
    drop: () => (dropped ??= onServer(serverUrl, `drop database if exists "${name}" with (force)`)),
  };
}
