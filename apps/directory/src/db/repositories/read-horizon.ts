/**
 * The horizon of a stored-read walk: the PostgreSQL snapshot (`xmin:xmax:xip,…`) taken before its
 * first page and carried by its cursor. Every keyset read (trips, vehicles, drivers, groups) keeps
 * to the rows whose inserting transaction (`created_xid`, migration 0003) is visible in it, so rows
 * committed during the walk never shift its pages. The one place that reads it and that writes the
 * filter; also the id-keyset page tail the vehicle, driver and group walks share.
 */
import { readQuery, type Em } from '@switchyard/persistence';

export async function currentHorizon(em: Em): Promise<string> {
  const [row] = await readQuery<{ snapshot: string }>(em, 'select pg_current_snapshot()::text as snapshot');
  if (!row) throw new Error('pg_current_snapshot returned no row');
  return row.snapshot;
}

/** `alias`'s row was inserted by a transaction visible in the horizon (one param: the horizon). */
export const inHorizon = (alias: string): string => `pg_visible_in_snapshot(${alias}.created_xid::text::xid8, ?::pg_snapshot)`;

export interface IdPageQuery {
  connectionId: string;
  horizon: string;
  /** The last id served; the page starts after it. */
  after?: string;
  /** Rows of the page; absent when the read frame (`readFrame`) adds the limit. */
  limit?: number;
  /** One more condition on the row (e.g. the driver roster), with its params in order. */
  filter?: { sql: string; params: readonly unknown[] };
}

/**
 * `where … order by …[ limit ?]` of one page of a connection's rows by ascending id inside the
 * horizon — a range of the table's (connection_id, id) index — and its params in order.
 */
export function idPageTail(alias: string, q: IdPageQuery): { sql: string; params: unknown[] } {
  const where = [`${alias}.connection_id = ?::uuid`, inHorizon(alias)];
  const params: unknown[] = [q.connectionId, q.horizon];
  if (q.filter) {
    where.push(q.filter.sql);
    params.push(...q.filter.params);
  }
  if (q.after !== undefined) {
    where.push(`${alias}.id > ?`);
    params.push(q.after);
  }
  if (q.limit === undefined) return { sql: `where ${where.join(' and ')} order by ${alias}.id`, params };
  params.push(q.limit);
  return { sql: `where ${where.join(' and ')} order by ${alias}.id limit ?`, params };
}
