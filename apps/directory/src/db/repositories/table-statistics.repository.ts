/**
 * The planner statistics of the directory's tables: whether a table has statistics drawn from rows
 * (pg_class.reltuples is -1 until its first ANALYZE or VACUUM, and 0 after an ANALYZE of the empty
 * table, which leaves the planner as blind as none: measured, the same sort plan), and its
 * ANALYZE. SKIP_LOCKED: while another session analyzes or vacuums the table, this one returns at
 * once instead of queueing behind it.
 */
import { query, tableNamer, type Em } from '@switchyard/persistence';

export type DirectoryTable = 'vehicle' | 'driver' | 'group' | 'trip';

export class TableStatisticsRepository {
  async hasStatistics(em: Em, table: DirectoryTable): Promise<boolean> {
    const [row] = await query<{ has: boolean }>(em, 'select reltuples > 0 as has from pg_class where oid = to_regclass(?)', [tableNamer(em)(table)]);
    return row?.has ?? false;
  }

  async analyze(em: Em, table: DirectoryTable): Promise<void> {
    await query(em, `analyze (skip_locked) ${tableNamer(em)(table)}`);
  }
}
