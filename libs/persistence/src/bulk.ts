/**
 * Set-based upsert for hot write paths (telemetry points, directory syncs): one statement per
 * chunk, `INSERT … SELECT … FROM json_to_recordset(?::json) … ON CONFLICT`.
 *
 * Why this shape, with numbers from notes/stack.md (100k rows, PostgreSQL 15, 2 cores):
 * unit-of-work create + flush ~20k rows/s, `insertMany` in 5k chunks ~54k rows/s, raw UNNEST of
 * array parameters ~92k rows/s, COPY ~215k rows/s. UNNEST cannot go through `em.execute`, which
 * expands an array parameter into a value list, so the rows travel as ONE JSON parameter and the
 * server expands them. Measured here (100k rows × 4 columns, chunks of 2k/5k/10k): 60-66k rows/s
 * for inserts and for updates alike; ~0.4 s of the ~1.55 s is client-side (JSON.stringify ~0.18 s,
 * MikroORM inlining the escaped literal ~0.2 s). Slower than UNNEST or COPY on the native pool,
 * but it runs on the EntityManager's own connection, so inside inTransaction() it commits or rolls
 * back with the handler's other writes — the property message handlers need. Use COPY for
 * one-off imports where that does not matter.
 *
 * Invariants: the table is qualified with the ORM's own schema (never a literal name);
 * identifiers and types are validated before they are interpolated, and values travel only as
 * the escaped parameter (`updateWhere` is code, never request data); a key
 * missing from a row inserts NULL (unknown), never a default of zero.
 */
import { ormSchema } from './orm.js';
import type { Em } from './request-context.js';

export interface BulkUpsertSpec {
  /** Unqualified table name in the ORM's schema. */
  table: string;
  /** Column → SQL type as json_to_recordset must read it, e.g. `{ id: 'uuid', seen_at: 'timestamptz' }`. */
  columns: Readonly<Record<string, string>>;
  /** Rows keyed by column name. Dates serialize as ISO-8601; bigint values must be strings. */
  rows: readonly Readonly<Record<string, unknown>>[];
  /** Conflict target columns; a unique index or constraint on exactly these must exist. */
  conflict: readonly string[];
  /** Columns overwritten from the incoming row on conflict; empty → `do nothing`. */
  update: readonly string[];
  /** Optional SQL guard on the update; `t` is the stored row, `excluded` the incoming one. */
  updateWhere?: string;
  /** Rows per statement (default 5,000: ~1 MB of JSON, well under any statement limit). */
  chunkSize?: number;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;
// Type names such as `timestamptz`, `numeric(12,3)`, `double precision`, `text[]`.
const SQL_TYPE = /^[a-z][a-z0-9_ ]*(\(\d+(,\s*\d+)?\))?(\[\])?$/i;

function ident(name: string, what: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`bulk_upsert_invalid_${what}: "${name}"`);
  return `"${name}"`;
}

/** Builds the statement text for one chunk; the single `?` is the JSON rows parameter. */
export function buildBulkUpsertSql(schema: string, spec: Omit<BulkUpsertSpec, 'rows' | 'chunkSize'>): string {
  const columns = Object.entries(spec.columns);
  if (columns.length === 0) throw new Error('bulk_upsert_no_columns');
  if (spec.conflict.length === 0) throw new Error('bulk_upsert_no_conflict_target');
  const names = columns.map(([name]) => ident(name, 'column'));
  const defs = columns.map(([name, type]) => {
    if (!SQL_TYPE.test(type)) throw new Error(`bulk_upsert_invalid_type: "${type}" for column "${name}"`);
    return `${ident(name, 'column')} ${type}`;
  });
  for (const name of [...spec.conflict, ...spec.update]) {
    if (!(name in spec.columns)) throw new Error(`bulk_upsert_unknown_column: "${name}"`);
  }
  const target = `${ident(schema, 'schema')}.${ident(spec.table, 'table')}`;
  const conflict = spec.conflict.map((c) => ident(c, 'column')).join(', ');
  const action = spec.update.length
    ? `do update set ${spec.update.map((c) => `${ident(c, 'column')} = excluded.${ident(c, 'column')}`).join(', ')}` +
      (spec.updateWhere ? ` where ${spec.updateWhere}` : '')
    : 'do nothing';
  return (
    `insert into ${target} as t (${names.join(', ')}) ` +
    `select ${names.map((n) => `r.${n}`).join(', ')} from json_to_recordset(?::json) as r(${defs.join(', ')}) ` +
    `on conflict (${conflict}) ${action}`
  );
}

/**
 * Keeps the last row per conflict key. PostgreSQL rejects a statement that would update the same
 * row twice ("ON CONFLICT DO UPDATE command cannot affect row a second time"); last-wins matches
 * applying the rows one by one. Rows with a NULL key never conflict, so they are all kept.
 */
export function dedupeByConflictKey<R extends Readonly<Record<string, unknown>>>(rows: readonly R[], conflict: readonly string[]): R[] {
  const byKey = new Map<string, R>();
  const keyless: R[] = [];
  for (const row of rows) {
    const values = conflict.map((c) => row[c]);
    if (values.some((v) => v === null || v === undefined)) keyless.push(row);
    else byKey.set(JSON.stringify(values), row);
  }
  return [...byKey.values(), ...keyless];
}

/**
 * Inserts or updates `rows` in `<orm schema>.<table>` and returns the number of rows inserted or
 * updated (rows skipped by `do nothing` or `updateWhere` are not counted). Runs on `em`'s
 * connection, so inside inTransaction() it commits or rolls back with the rest of the work.
 */
export async function bulkUpsert(em: Em, spec: BulkUpsertSpec): Promise<number> {
  const sql = buildBulkUpsertSql(ormSchema(em), spec);
  const rows = dedupeByConflictKey(spec.rows, spec.conflict);
  const chunkSize = spec.chunkSize ?? 5_000;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new Error('bulk_upsert_invalid_chunk_size');
  let affected = 0;
  for (let start = 0; start < rows.length; start += chunkSize) {
    const json = JSON.stringify(rows.slice(start, start + chunkSize));
    const result = await em.execute<{ affectedRows: number }>(sql, [json], 'run');
    affected += result.affectedRows;
  }
  return affected;
}
