/**
 * migrateUp on the real PostgreSQL: schema created, both migrations applied once, a second run is
 * a no-op, concurrent runs serialize on the advisory lock, and the entity maps onto what the
 * migrations built (no drift).
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { migrateUp, pendingMigrations, schemaDrift } from '../src/migrations.js';
import type { Orm } from '../src/orm.js';
import { withRequestContext, inTransaction } from '../src/request-context.js';
import { DeviceSchema } from './fixtures/device.entity.js';
import { deviceOrm, dropSchemas, uniqueSchema } from './support.js';

const schemas: string[] = [];
const orms: Orm[] = [];

async function open(schema: string): Promise<Orm> {
  if (!schemas.includes(schema)) schemas.push(schema);
  const orm = await deviceOrm(schema, schemas);
  orms.push(orm);
  return orm;
}

async function appliedRows(orm: Orm, schema: string): Promise<string[]> {
  const rows = await orm.em.fork().execute<{ name: string }[]>(`select name from "${schema}".mikro_orm_migrations order by id`);
  return rows.map((r) => r.name);
}

afterAll(async () => {
  if (orms[0]) await dropSchemas(orms[0], schemas);
  await Promise.all(orms.map((orm) => orm.close(true)));
});

describe('migrateUp', () => {
  it('creates the schema, applies both migrations into it, and a second run is a no-op', async () => {
    const schema = uniqueSchema('persist_mig');
    const orm = await open(schema);
    const lines: string[] = [];

    expect(await pendingMigrations(orm)).toEqual(['Migration0001CreateDevice', 'Migration0002AddOdometer']);
    expect(await migrateUp(orm, { log: (l) => lines.push(l) })).toEqual(['Migration0001CreateDevice', 'Migration0002AddOdometer']);
    expect(await migrateUp(orm, { log: (l) => lines.push(l) })).toEqual([]);
    expect(await appliedRows(orm, schema)).toEqual(['Migration0001CreateDevice', 'Migration0002AddOdometer']);
    expect(lines[1]).toContain('up to date');

    const tables = await orm.em
      .fork()
      .execute<{ table_schema: string }[]>(`select table_schema from information_schema.tables where table_name = 'device' and table_schema = ?`, [schema]);
    expect(tables).toHaveLength(1);
  });

  it('maps the defineEntity entity onto the migrated table: round trip, Date instants, NULL stays unknown, no drift', async () => {
    const schema = uniqueSchema('persist_ent');
    const orm = await open(schema);
    await migrateUp(orm, { log: () => undefined });

    const seenAt = new Date('2026-03-01T12:34:56.789Z');
    const id = '6f1c1c9e-64c4-4a36-9b8e-1f3e0d0c2a11';
    await withRequestContext(orm, async (em) => {
      em.create(DeviceSchema, { id, name: 'truck 7', seenAt, odometerKm: null });
    });
    const loaded = await inTransaction(orm, (em) => em.findOneOrFail(DeviceSchema, { id }));
    expect(loaded.seenAt).toBeInstanceOf(Date);
    expect(loaded.seenAt.toISOString()).toBe(seenAt.toISOString());
    expect(loaded.odometerKm).toBeNull();

    // The generator compares entities with this schema only; an empty diff means the entity and
    // the migrations agree, and that no other schema (listed in allServiceSchemas) is touched.
    expect(await schemaDrift(orm)).toBe('');
  });

  it('lets two processes migrate one schema at once: each migration applies exactly once', async () => {
    const schema = uniqueSchema('persist_race');
    const [a, b] = [await open(schema), await open(schema)];
    const [fromA, fromB] = await Promise.all([migrateUp(a, { log: () => undefined }), migrateUp(b, { log: () => undefined })]);

    expect([...fromA, ...fromB].sort()).toEqual(['Migration0001CreateDevice', 'Migration0002AddOdometer']);
    expect(await appliedRows(a, schema)).toEqual(['Migration0001CreateDevice', 'Migration0002AddOdometer']);
  });

  it('waits (and says so) while another session holds the schema lock, then applies', async () => {
    const schema = uniqueSchema('persist_lock');
    const holder = await open(schema);
    const orm = await open(schema);
    const lines: string[] = [];

    // Hold the same lock migrateUp takes, from a pinned connection of another ORM.
    const holderEm = holder.em.fork();
    await holderEm.begin();
    await holderEm.execute(`select pg_advisory_xact_lock(${0x5357}, hashtext(?))`, [schema]);

    const running = migrateUp(orm, { log: (l) => lines.push(l) });
    const settled = await Promise.race([running.then(() => 'done'), new Promise((r) => setTimeout(() => r('waiting'), 500))]);
    expect(settled).toBe('waiting');
    expect(lines.some((l) => l.includes('waiting for the lock') && l.includes(schema))).toBe(true);

    await holderEm.commit(); // releases the xact lock
    expect(await running).toEqual(['Migration0001CreateDevice', 'Migration0002AddOdometer']);
  });
});
