/**
 * Migration 0011 on the real PostgreSQL: the per-connection health rows of 0003's
 * `connection_health` become one `dataset_health` row per dataset with the same times and code
 * (what they meant: a connection's health counted for every dataset), and the old table is gone.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { createOrm, migrateUp, type Orm } from '@switchyard/persistence';
import { dropSchemas, isolatedSchemas, resolveTestServices } from '@switchyard/testing';
import { directoryMigrations } from '../src/db/migrations/index.js';
import { Migration0011DatasetHealth } from '../src/db/migrations/migration-0011-dataset-health.js';

const schema = isolatedSchemas(['directory']).directory;
const orms: Orm[] = [];
let databaseUrl = '';

async function open(migrations: typeof directoryMigrations): Promise<Orm> {
  databaseUrl = (await resolveTestServices()).databaseUrl;
  const orm = await createOrm({ clientUrl: databaseUrl, schema, entities: [], migrations, allServiceSchemas: [schema], logger: () => undefined });
  orms.push(orm);
  return orm;
}

afterAll(async () => {
  await Promise.all(orms.map((orm) => orm.close(true)));
  if (databaseUrl) await dropSchemas(databaseUrl, [schema]);
});

describe('migration 0011 (dataset health)', () => {
  it('turns each connection health row into one row per dataset and drops connection_health', async () => {
    const before = await open(directoryMigrations.slice(0, directoryMigrations.indexOf(Migration0011DatasetHealth)));
    await migrateUp(before, { log: () => undefined });
    const failing = '0b9f3c1e-2f4a-4d7e-9b1c-3a2e5f6d7c8b';
    const healthy = '1c9f3c1e-2f4a-4d7e-9b1c-3a2e5f6d7c8b';
    await before.em.fork().execute(
      `insert into "${schema}".connection_health (connection_id, scope, last_success_at, last_failure_at, last_error_code) values
         (?, 'core', '2026-11-22T10:00:00Z', '2026-11-22T11:00:00Z', 'provider_scope_mismatch'),
         (?, 'extended', null, '2026-11-22T11:30:00Z', 'provider_unavailable'),
         (?, 'core', '2026-11-22T12:00:00Z', null, null)`,
      [failing, failing, healthy],
    );

    const after = await open(directoryMigrations.slice(0, directoryMigrations.indexOf(Migration0011DatasetHealth) + 1));
    expect(await migrateUp(after, { log: () => undefined })).toEqual(['Migration0011DatasetHealth']);
    const rows = await after.em
      .fork()
      .execute<{ connection_id: string; dataset: string; scope: string; success: string | null; failure: string | null; last_error_code: string | null }[]>(
        `select connection_id, dataset, scope, to_char(last_success_at at time zone 'UTC', 'HH24:MI') as success, to_char(last_failure_at at time zone 'UTC', 'HH24:MI') as failure, last_error_code
           from "${schema}".dataset_health order by connection_id, scope, dataset`,
      );
    const datasets = ['drivers', 'groups', 'trips', 'vehicles'];
    expect(rows).toEqual([
      ...datasets.map((dataset) => ({ connection_id: failing, dataset, scope: 'core', success: '10:00', failure: '11:00', last_error_code: 'provider_scope_mismatch' })),
      ...datasets.map((dataset) => ({ connection_id: failing, dataset, scope: 'extended', success: null, failure: '11:30', last_error_code: 'provider_unavailable' })),
      ...datasets.map((dataset) => ({ connection_id: healthy, dataset, scope: 'core', success: '12:00', failure: null, last_error_code: null })),
    ]);
    expect(await after.em.fork().execute(`select 1 from information_schema.tables where table_schema = ? and table_name = 'connection_health'`, [schema])).toEqual([]);
  });
});
