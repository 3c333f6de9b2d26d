/**
 * The statement text a query span may carry: every literal gone, identifiers and placeholders kept;
 * and the summary that names the span. The int-spec (test/query-spans.int-spec.ts) runs the
 * wrapper on the real PostgreSQL.
 */
import { describe, expect, it } from '@jest/globals';
import { querySummary, sanitizeSql } from './query-spans.js';

describe('sanitizeSql', () => {
  it.each([
    [`select * from "directory"."trip" where "id" = 'a''b' and n = 42 and x = 1.5e-3`, `select * from "directory"."trip" where "id" = ? and n = ? and x = ?`],
    [`update t set v = E'it\\'s', w = $q$anything 'here'$q$ where id = $1`, `update t set v = ?, w = ? where id = $1`],
    [`insert into s.t2 (c1, c2) values ('x', -7), ('y', 8) -- 'comment'\n`, `insert into s.t2 (c1, c2) values (?, -?), (?, ?)`],
    [`select '{"token":"sk_sandbox_abc"}'::jsonb /* note 'x' */ from t`, `select ?::jsonb from t`],
    [`select col_1, t3.c2 from "tbl 9" where "a'b" = 'c'`, `select col_1, t3.c2 from "tbl 9" where "a'b" = ?`],
  ])('%s', (sql, expected) => {
    expect(sanitizeSql(sql)).toBe(expected);
  });
});

describe('sanitizeSql on a 5,000-row statement', () => {
  it('writes at most the limit and keeps no value', () => {
    const rows = Array.from({ length: 5_000 }, (_, i) => `('vehicle ${i} o''neil', ${i}.25, E'x\\'y')`).join(', ');
    const text = sanitizeSql(`insert into t (a, b, c) values ${rows}`);
    expect(text.length).toBeLessThanOrEqual(2_000);
    expect(text.startsWith('insert into t (a, b, c) values (?, ?, ?), (?, ?, ?)')).toBe(true);
    expect(text).not.toMatch(/vehicle|neil|25/);
  });
});

describe('querySummary', () => {
  it.each([
    [`select * from "directory"."trip" where id = ?`, 'SELECT directory.trip'],
    [`insert into "sync"."sync_unit" (a) values (?)`, 'INSERT sync.sync_unit'],
    [`update "gateway"."connection" set a = ?`, 'UPDATE gateway.connection'],
    [`delete from only t where a = ?`, 'DELETE t'],
    [`with x as (select 1) select * from (select 2) s, directory.vehicle v`, 'WITH'],
    [`copy "telemetry"."obs_stage" (a, b) from stdin`, 'COPY telemetry.obs_stage'],
    ['commit', 'COMMIT'],
    ['', 'QUERY'],
  ])('%s', (sql, expected) => {
    expect(querySummary(sql)).toBe(expected);
  });
});
