/**
 * The planner statistics of the directory's tables: whether a table has ever been analyzed
 * (pg_class.reltuples is -1 until its first ANALYZE or VACUUM) and its ANALYZE. SKIP_LOCKED: while
 * another session analyzes or vacuums the table, this one returns at once instead of queueing
 * behind it (its result is the same statistics).
 */
import type { Em } from '@switchyard/persistence';
import { query, tableNamer } from '@switchyard/service-kit';

export type DirectoryTable = 'vehicle' | 'driver' | 'group' | 'trip';

export class TableStatisticsRepository {
  async analyzed(em: Em, table: DirectoryTable): Promise<boolean> {
    const [row] = await query<{ analyzed: boolean }>(em, 'select reltuples >= 0 as analyzed from pg_class where oid = to_regclass(?)', [tableNamer(em)(table)]);
    return row?.analyzed ?? false;
  }

  async analyze(em: Em, table: DirectoryTable): Promise<void> {
    await query(em, `analyze (skip_locked) ${tableNamer(em)(table)}`);
  }
}
