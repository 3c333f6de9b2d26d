/**
 * The canonical dump on the real PostgreSQL: equal data stored in a different order, in different
 * deliveries and at different times dumps identically; a changed value, a missing row or a row of
 * another connection does not.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { createOrm } from '@switchyard/persistence';
import { canonicalDump, dumpDifference } from '../src/canonical-dump.js';
import { dropSchemas, isolatedSchemas } from '../src/isolation.js';
import { resolveTestServices, stopTestServices } from '../src/services.js';

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';
const created: string[] = [];

afterAll(async () => {
  const { databaseUrl } = await resolveTestServices();
  await dropSchemas(databaseUrl, created);
  await stopTestServices();
});

/** A directory schema with a `vehicle` table shaped like the real one where it matters (volatile columns, jsonb). */
async function directoryWith(rows: readonly (readonly [string, string, string, string, number])[]): Promise<string> {
  const { databaseUrl } = await resolveTestServices();
  const { directory } = isolatedSchemas(['directory']);
  created.push(directory);
  const orm = await createOrm({ clientUrl: databaseUrl, schema: 'public', entities: [], migrations: [], allServiceSchemas: [], poolMax: 2, logger: () => undefined });
  try {
    const em = orm.em.fork();
    await em.execute(`create schema "${directory}";
      create table "${directory}".vehicle (id text primary key, connection_id uuid, name text, name_field jsonb, fetched_at timestamptz, publication bigint, batch_id text);
      create table "${directory}".driver (id text primary key, connection_id uuid);
      create table "${directory}"."group" (id text primary key, connection_id uuid);
      create table "${directory}".trip (id text primary key, connection_id uuid)`);
    for (const [id, conn, name, fetchedAt, publication] of rows) {
      await em.execute(`insert into "${directory}".vehicle values (?, ?::uuid, ?, ?::jsonb, ?::timestamptz, ?, ?)`, [
        id, conn, name, JSON.stringify({ status: 'available', value: name, source: 'name', fetchedAt }), fetchedAt, publication, `batch-${publication}`,
      ]);
    }
  } finally {
    await orm.close(true);
  }
  return directory;
}

describe('canonicalDump', () => {
  it('is identical for the same data stored in another order, at other times, in other batches', async () => {
    const { databaseUrl } = await resolveTestServices();
    const first = await directoryWith([['vcl_1', A, 'Truck 1', '2026-01-01T00:00:00Z', 1], ['vcl_2', A, 'Truck 2', '2026-01-01T00:00:00Z', 2]]);
    const second = await directoryWith([['vcl_2', A, 'Truck 2', '2026-03-01T00:00:00Z', 7], ['vcl_1', A, 'Truck 1', '2026-02-01T00:00:00Z', 9]]);
    const a = await canonicalDump({ clientUrl: databaseUrl, schemas: { directory: first } });
    const b = await canonicalDump({ clientUrl: databaseUrl, schemas: { directory: second } });
    expect(dumpDifference(a, b)).toBe('');
    expect(a).toBe(b);
    expect(a).toContain('# directory.vehicle (2)');
    expect(a).toContain('"name":"Truck 1"');
    expect(a).not.toContain('fetched');
  });

  it('differs on a changed value or a missing row, and filters by connection', async () => {
    const { databaseUrl } = await resolveTestServices();
    const base = await directoryWith([['vcl_1', A, 'Truck 1', '2026-01-01T00:00:00Z', 1], ['vcl_9', B, 'Other', '2026-01-01T00:00:00Z', 2]]);
    const changed = await directoryWith([['vcl_1', A, 'Truck 1b', '2026-01-01T00:00:00Z', 1]]);
    const dumpOf = (schema: string, connectionIds?: readonly string[]) => canonicalDump({ clientUrl: databaseUrl, schemas: { directory: schema }, connectionIds });
    const baseA = await dumpOf(base, [A]);
    expect(baseA).not.toContain('Other');
    expect(await dumpOf(base)).toContain('Other');
    const changedA = await dumpOf(changed, [A]);
    expect(changedA).not.toBe(baseA);
    expect(dumpDifference(baseA, changedA)).toContain('Truck 1b');
  });
});
