/**
 * readQuery (sql.ts) on the real PostgreSQL: the stored reads' prepared path answers exactly what
 * `query` answers for the same statement and values (text, numbers, nulls, jsonb, timestamps as
 * text), the statement is prepared on the connection and reused (one entry in
 * pg_prepared_statements however often it runs), and inside a transaction it runs on that
 * transaction, seeing its uncommitted rows.
 * Mutations tried: `name` left out of pool.query (statements unnamed) → "is prepared once and
 * reused" fails (no prepared statement); the transaction check removed → "runs on the caller's
 * transaction" fails (the pooled connection does not see the uncommitted row).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { migrateUp } from '../src/migrations.js';
import type { Orm } from '../src/orm.js';
import { dollarPlaceholders, query, readQuery, tableNamer } from '../src/sql.js';
import { deviceOrm, dropSchemas, uniqueSchema } from './support.js';

const schema = uniqueSchema('persist_readq');
let orm: Orm;

beforeAll(async () => {
  orm = await deviceOrm(schema);
  await migrateUp(orm, { log: () => undefined });
  const t = tableNamer(orm)('device');
  await orm.em.getConnection().execute(
    `insert into ${t} (id, name, odometer_km, seen_at) values
       ('00000000-0000-4000-8000-000000000001', 'alpha', 12.5, '2026-11-28T10:00:00.123Z'),
       ('00000000-0000-4000-8000-000000000002', 'o''brien \\ ?', null, '2026-11-28T11:00:00Z')`,
  );
});

afterAll(async () => {
  await dropSchemas(orm, [schema]);
  await orm?.close(true);
});

const statement = () =>
  `select id, name, odometer_km, to_char(seen_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as seen_at,
          json_build_object('name', name, 'km', odometer_km, 'asked', ?::text) as body, ?::jsonb -> 'k' as echoed
     from ${tableNamer(orm)('device')} where name <> ? and (odometer_km is null or odometer_km > ?) order by name`;

describe('readQuery', () => {
  it('answers what query answers for the same statement and values', async () => {
    const params = ["it's", JSON.stringify({ k: [1, 'two'] }), 'nobody', 10];
    const [viaQuery, viaRead] = [await query(orm.em, statement(), params), await readQuery(orm.em, statement(), params)];
    expect(viaRead).toEqual(viaQuery);
    expect(viaRead.map((r) => (r as { name: string }).name)).toEqual(['alpha', "o'brien \\ ?"]);
  });

  it('is prepared once and reused', async () => {
    const sql = `select count(*)::int as n from ${tableNamer(orm)('device')} where name = ?`;
    for (let i = 0; i < 7; i++) await readQuery(orm.em, sql, ['alpha']);
    // Sequential reads take the pool's most recently released connection: the one that prepared it.
    const prepared = await readQuery<{ statement: string; calls: string }>(orm.em, 'select statement, generic_plans + custom_plans as calls from pg_prepared_statements where statement like ?', [
      '%count(*)::int as n from%',
    ]);
    expect(prepared).toHaveLength(1);
    expect(prepared[0]?.statement).toContain('where name = $1');
    expect(Number(prepared[0]?.calls)).toBeGreaterThanOrEqual(7);
  });

  it("runs on the caller's transaction", async () => {
    const t = tableNamer(orm)('device');
    let seen: unknown[] = [];
    const rolledBack = new Error('roll back');
    await expect(
      orm.em.fork().transactional(async (tx) => {
        await tx.getConnection().execute(`insert into ${t} (id, name, seen_at) values ('00000000-0000-4000-8000-000000000003', 'uncommitted', now())`, [], 'run', tx.getTransactionContext());
        seen = await readQuery<{ name: string }>(tx, `select name from ${t} where name = ?`, ['uncommitted']);
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
    expect(seen).toEqual([{ name: 'uncommitted' }]);
    expect(await readQuery(orm.em, `select name from ${t} where name = ?`, ['uncommitted'])).toEqual([]);
  });
});

describe('dollarPlaceholders', () => {
  it('numbers ? in order, keeps an escaped \\? and refuses ??', () => {
    expect(dollarPlaceholders('select ?::int, ? from t where a = ? and b = \\?')).toBe('select $1::int, $2 from t where a = $3 and b = ?');
    expect(() => dollarPlaceholders('select ?? from t')).toThrow('??');
  });
});
