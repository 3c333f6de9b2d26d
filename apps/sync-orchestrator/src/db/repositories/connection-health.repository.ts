/**
 * The SQL behind connection-health observations (collectors/connection-health.publisher.ts).
 * Invariant: the sequence comes from one database sequence, so observations of a connection are
 * ordered across every orchestrator replica, not only within one process.
 */
import { query, tableNamer, type Em } from '@switchyard/persistence';

/** The next value of connection_health_seq, as text (bigint). */
export async function nextHealthSequence(em: Em): Promise<string> {
  const [row] = await query<{ seq: string }>(em, `select nextval('${tableNamer(em)('connection_health_seq').replaceAll("'", "''")}')::text as seq`);
  if (!row) throw new Error('connection_health_seq returned no row');
  return row.seq;
}
