/**
 * Small helpers for this app's hand-written SQL: schema-qualified names (the schema is per
 * deployment and per test run, never a literal), ISO-8601 text built in SQL (ms precision, the
 * precision the public timestamps and the list cursor use), and one query function that always runs
 * on the caller's transaction — a statement that silently left the transaction would break the
 * in-transaction recheck of spec 5 rule 2.
 */
import type { Em } from '@switchyard/persistence';

export function tableNamer(em: Em): (table: string) => string {
  const schema = em.config.get('schema') ?? 'public';
  const quoted = `"${schema.replaceAll('"', '""')}"`;
  return (table) => `${quoted}."${table}"`;
}

/** `to_char` pattern producing RFC 3339 UTC with milliseconds, e.g. 2026-11-22T12:00:00.000Z. */
export function isoSql(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** Runs `sql` with `?` placeholders inside `em`'s transaction (when it has one) and returns the rows. */
export function query<T>(em: Em, sql: string, params: readonly unknown[] = []): Promise<T[]> {
  return em.getConnection().execute<T[]>(sql, [...params], 'all', em.getTransactionContext());
}
