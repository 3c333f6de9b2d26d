/**
 * The horizon of a stored-read walk: the PostgreSQL snapshot (`xmin:xmax:xip,…`) taken before its
 * first page and carried by its cursor. Every keyset read (trips, vehicles, drivers, groups) keeps
 * to the rows whose inserting transaction (`created_xid`, migration 0003) is visible in it, so rows
 * committed during the walk never shift its pages. The one place that reads it.
 */
import type { Em } from '@switchyard/persistence';
import { query } from '@switchyard/service-kit';

export async function currentHorizon(em: Em): Promise<string> {
  const [row] = await query<{ snapshot: string }>(em, 'select pg_current_snapshot()::text as snapshot');
  if (!row) throw new Error('pg_current_snapshot returned no row');
  return row.snapshot;
}
