/**
 * Helpers for this lib's own integration specs. (libs/testing sits above persistence in the
 * dependency graph, so these few lines are repeated here rather than imported.) Every schema a
 * spec creates carries a random suffix so parallel runs on the shared server never meet.
 */
import { randomBytes } from 'node:crypto';
import { createOrm, type Orm } from '../src/orm.js';
import { resolveDatabaseUrl } from '../src/database-url.js';
import { DeviceSchema } from './fixtures/device.entity.js';
import { deviceMigrations } from './fixtures/device.migrations.js';

export const databaseUrl = resolveDatabaseUrl();

export function uniqueSchema(prefix: string): string {
  return `${prefix}_t${randomBytes(4).readUInt32BE(0).toString(36)}`;
}

export function deviceOrm(schema: string, allServiceSchemas?: string[]): Promise<Orm> {
  return createOrm({ clientUrl: databaseUrl, schema, entities: [DeviceSchema], migrations: deviceMigrations, allServiceSchemas, poolMax: 4, logger: () => undefined });
}

/** Drops the given schemas through `orm` (any open ORM on the same database will do). */
export async function dropSchemas(orm: Orm, schemas: readonly string[]): Promise<void> {
  for (const schema of schemas) await orm.em.fork().execute(`drop schema if exists "${schema}" cascade`);
}
