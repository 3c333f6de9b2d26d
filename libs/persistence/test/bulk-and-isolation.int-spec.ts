/**
 * bulkUpsert on the real PostgreSQL (insert, update, guard, duplicates, NULLs, rollback) and two
 * ORMs on two schemas of one database that never see each other's rows or tables.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bulkUpsert } from '../src/bulk.js';
import { migrateUp, schemaDrift } from '../src/migrations.js';
import type { Orm } from '../src/orm.js';
import { inTransaction, withRequestContext } from '../src/request-context.js';
import { DeviceSchema } from './fixtures/device.entity.js';
import { deviceOrm, dropSchemas, uniqueSchema } from './support.js';

const schemaA = uniqueSchema('persist_a');
const schemaB = uniqueSchema('persist_b');
let ormA: Orm;
let ormB: Orm;

const columns = { id: 'uuid', name: 'varchar(255)', odometer_km: 'double precision', seen_at: 'timestamptz' };
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

beforeAll(async () => {
  ormA = await deviceOrm(schemaA, [schemaA, schemaB]);
  ormB = await deviceOrm(schemaB, [schemaA, schemaB]);
  await migrateUp(ormA, { log: () => undefined });
  await migrateUp(ormB, { log: () => undefined });
});

afterAll(async () => {
  await dropSchemas(ormA, [schemaA, schemaB]);
  await Promise.all([ormA.close(true), ormB.close(true)]);
});

async function rows(orm: Orm) {
  return withRequestContext(orm, (em) => em.find(DeviceSchema, {}, { orderBy: { id: 'asc' } }));
}

describe('bulkUpsert', () => {
  it('inserts new rows, then updates the conflicting ones and inserts the rest', async () => {
    const t0 = '2026-01-01T00:00:00.000Z';
    const inserted = await withRequestContext(ormA, (em) =>
      bulkUpsert(em, {
        table: 'device',
        columns,
        conflict: ['id'],
        update: ['name', 'odometer_km', 'seen_at'],
        rows: [
          { id: id(1), name: 'one', odometer_km: 10.5, seen_at: t0 },
          { id: id(2), name: 'two', seen_at: new Date(t0) }, // no odometer: stays NULL
          { id: id(3), name: 'three', odometer_km: 0, seen_at: t0 }, // a real zero stays 0
        ],
      }),
    );
    expect(inserted).toBe(3);

    const changed = await withRequestContext(ormA, (em) =>
      bulkUpsert(em, {
        table: 'device',
        columns,
        conflict: ['id'],
        update: ['name', 'odometer_km', 'seen_at'],
        rows: [
          { id: id(2), name: 'two (stale duplicate)', odometer_km: 1, seen_at: t0 },
          { id: id(2), name: 'two v2', odometer_km: 20, seen_at: '2026-01-02T00:00:00Z' }, // last one wins
          { id: id(4), name: 'four', odometer_km: null, seen_at: t0 },
        ],
      }),
    );
    expect(changed).toBe(2);

    const all = await rows(ormA);
    expect(all.map((d) => [d.name, d.odometerKm])).toEqual([
      ['one', 10.5],
      ['two v2', 20],
      ['three', 0],
      ['four', null],
    ]);
    expect(all[1]?.seenAt.toISOString()).toBe('2026-01-02T00:00:00.000Z');
  });

  it('skips updates that fail the guard and counts only rows written', async () => {
    const written = await withRequestContext(ormA, (em) =>
      bulkUpsert(em, {
        table: 'device',
        columns,
        conflict: ['id'],
        update: ['name', 'seen_at'],
        updateWhere: 'excluded.seen_at > t.seen_at',
        rows: [
          { id: id(1), name: 'one, older news', seen_at: '2025-12-31T00:00:00Z' },
          { id: id(3), name: 'three v2', seen_at: '2026-02-01T00:00:00Z' },
        ],
      }),
    );
    expect(written).toBe(1);
    expect((await rows(ormA)).map((d) => d.name)).toEqual(['one', 'two v2', 'three v2', 'four']);
  });

  it('does nothing on conflict when no update columns are given', async () => {
    const written = await withRequestContext(ormA, (em) =>
      bulkUpsert(em, { table: 'device', columns, conflict: ['id'], update: [], rows: [{ id: id(1), name: 'ignored', seen_at: '2027-01-01T00:00:00Z' }] }),
    );
    expect(written).toBe(0);
  });

  it('rolls back with the transaction it runs in, across chunks', async () => {
    const attempt = inTransaction(ormA, async (em) => {
      await bulkUpsert(em, {
        table: 'device',
        columns,
        conflict: ['id'],
        update: ['name'],
        chunkSize: 1,
        rows: [5, 6, 7].map((n) => ({ id: id(n), name: `n${n}`, seen_at: '2026-01-01T00:00:00Z' })),
      });
      throw new Error('handler failed after the upsert');
    });
    await expect(attempt).rejects.toThrow('handler failed after the upsert');
    expect(await rows(ormA)).toHaveLength(4);
  });
});

describe('two ORMs, two schemas', () => {
  it('keep rows apart and never plan changes to each other’s schema', async () => {
    await withRequestContext(ormB, async (em) => {
      em.create(DeviceSchema, { id: id(99), name: 'only in B', seenAt: new Date('2026-01-01T00:00:00Z'), odometerKm: null });
    });
    expect((await rows(ormB)).map((d) => d.name)).toEqual(['only in B']);
    expect((await rows(ormA)).map((d) => d.name)).not.toContain('only in B');

    // Without schemaGenerator.ignoreSchema, A's diff would be "drop table <B>.device … drop schema <B>".
    expect(await schemaDrift(ormA)).toBe('');
    expect(await schemaDrift(ormB)).toBe('');
  });
});
