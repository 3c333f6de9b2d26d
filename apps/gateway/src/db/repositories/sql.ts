/**
 * Small helpers for hand-written SQL in this app's repositories: schema-qualified table names
 * (the schema is per deployment and per test run, never a literal) and ISO-8601 timestamps built in
 * SQL (returning text avoids Date parsing, the largest single cost measured in performance.md).
 */
import type { MikroORM } from '@mikro-orm/postgresql';

export function tableNamer(orm: MikroORM): (table: string) => string {
  const schema = orm.config.get('schema') ?? 'public';
  const quoted = `"${schema.replaceAll('"', '""')}"`;
  return (table) => `${quoted}."${table}"`;
}

/** `to_char` pattern producing RFC 3339 UTC with milliseconds, e.g. 2026-11-22T12:00:00.000Z. */
export function isoSql(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
