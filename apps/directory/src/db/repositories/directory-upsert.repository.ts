/**
 * Set-based upserts of directory batches: one `INSERT … SELECT … FROM json_to_recordset(?) … ON
 * CONFLICT (id) DO UPDATE` per table and batch (≤ 1,000 rows: the batch limits), on the batch's
 * transaction. json_to_recordset instead of UNNEST or COPY because it runs on the ORM's own
 * connection and so commits with the ledger row and the cursor (persistence/bulk.ts measured
 * 60-66k rows/s; a 200-vehicle batch is a few ms). bulkUpsert itself is not used because a row
 * needs per-column rules it cannot express (guarded columns, least/greatest, nextval).
 *
 * Invariants: a stored row only moves forward — content columns take the incoming value only when
 * the batch was fetched strictly later than the stored version, so replays and out-of-order pages
 * never move data backwards, and re-applying the same batch writes nothing (the WHERE excludes it:
 * no dead tuple, no publication bump). `first_seen_at` can still move earlier when an older page
 * arrives late. Rows go in id order so concurrent batches lock rows in one order (no deadlocks).
 */
import { tableNamer, type Em } from '@switchyard/persistence';

export interface DirectoryTableSpec {
  table: 'vehicle' | 'driver' | 'group' | 'trip';
  /** Data columns → json_to_recordset types; id, connection_id, provider, source_id are implied. */
  columns: Readonly<Record<string, string>>;
}

export type DirectoryRow = Readonly<Record<string, unknown>> & { id: string; fetched_at: string };

const IDENT = /^[a-z_][a-z0-9_]*$/;
const TYPE = /^[a-z][a-z0-9 ]*(\[\])?$/;

export function buildDirectoryUpsertSql(t: (table: string) => string, spec: DirectoryTableSpec): string {
  const data = Object.entries(spec.columns);
  for (const [name, type] of data) if (!IDENT.test(name) || !TYPE.test(type)) throw new Error(`directory_upsert_invalid_column: ${name} ${type}`);
  const names = data.map(([name]) => name);
  const keyDefs = ['id text', 'connection_id uuid', 'provider text', 'source_id text'];
  const defs = [...keyDefs, ...data.map(([name, type]) => `${name} ${type}`), 'fetched_at timestamptz', 'batch_id text'];
  const newer = 'excluded.fetched_at > t.fetched_at';
  const changed = `(${names.map((n) => `t.${n}`).join(', ')}) is distinct from (${names.map((n) => `excluded.${n}`).join(', ')})`;
  return `insert into ${t(spec.table)} as t (id, connection_id, provider, source_id, ${names.join(', ')}, first_seen_at, last_seen_at, fetched_at, modified_at, publication, batch_id)
select r.id, r.connection_id, r.provider, r.source_id, ${names.map((n) => `r.${n}`).join(', ')}, r.fetched_at, r.fetched_at, r.fetched_at, r.fetched_at, nextval('${t('publication_seq')}'), r.batch_id
  from json_to_recordset(?::json) as r(${defs.join(', ')})
 order by r.id
on conflict (id) do update set
  ${names.map((n) => `${n} = case when ${newer} then excluded.${n} else t.${n} end`).join(',\n  ')},
  first_seen_at = least(t.first_seen_at, excluded.first_seen_at),
  last_seen_at = greatest(t.last_seen_at, excluded.last_seen_at),
  modified_at = case when ${newer} and ${changed} then excluded.modified_at else t.modified_at end,
  publication = case when ${newer} and ${changed} then excluded.publication else t.publication end,
  batch_id = case when ${newer} then excluded.batch_id else t.batch_id end,
  fetched_at = greatest(t.fetched_at, excluded.fetched_at)
 where ${newer} or excluded.fetched_at < t.first_seen_at`;
}

/** Keeps, per id, the row fetched last (later rows win ties): one statement cannot update a row twice. */
export function newestPerId<R extends DirectoryRow>(rows: readonly R[]): R[] {
  const byId = new Map<string, R>();
  for (const row of rows) {
    const held = byId.get(row.id);
    if (!held || Date.parse(row.fetched_at) >= Date.parse(held.fetched_at)) byId.set(row.id, row);
  }
  return [...byId.values()];
}

export class DirectoryUpsertRepository {
  /** Upserts `rows` into `spec.table`; returns the number of rows inserted or changed. */
  async upsert(em: Em, spec: DirectoryTableSpec, rows: readonly DirectoryRow[]): Promise<number> {
    if (rows.length === 0) return 0;
    const sql = buildDirectoryUpsertSql(tableNamer(em), spec);
    const result = await em.getConnection().execute<{ affectedRows: number }>(sql, [JSON.stringify(newestPerId(rows))], 'run', em.getTransactionContext());
    return result.affectedRows;
  }
}
