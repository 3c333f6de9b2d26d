/**
 * Gives a fresh directory table its first planner statistics right after the first batch commits
 * rows into it, instead of leaving that to autovacuum.
 *
 * Why: a never-analyzed table has no column statistics, so the planner takes `connection_id = ?`
 * at its default selectivity (0.5 %), expects a page's rows to be fewer than its limit, and chooses
 * a bitmap scan plus a sort of ALL the connection's rows over walking the (connection_id, …)
 * index. Measured on PostgreSQL 15, 20,000 trips of one connection: 14 ms of page SQL (a sort of
 * 20,000 rows) instead of 0.06 ms; the bench saw 9 ms instead of 0.5 ms at 3,000 trips and gateway
 * timeouts under load. Autovacuum would analyze the table at its next pass, but that pass is what
 * we wait for: the analyze threshold of a never-analyzed table is already 50 rows, so per-table
 * autovacuum settings cannot bring it sooner (the wait is the server-wide autovacuum_naptime, 1
 * min by default), and with autovacuum off (as on the test server) it never comes.
 * Only the first ANALYZE is done here; keeping statistics current is autovacuum's job. Early or
 * stale statistics did not bring the sort back in the cases measured (first ANALYZE at 1 or 200
 * rows, then 20,000 more; a new connection of 15,000 trips beside 10 × 20,000 or 300 × 500 already
 * analyzed: estimated at 1 to 2,942 rows, index walk every time), so a table that has statistics
 * is never checked again by this process.
 * "Has statistics" means analyzed with rows (reltuples > 0): an ANALYZE that ran before any row
 * was committed (concurrent batches race on the noted tables) leaves reltuples 0 and the same
 * sort plan, so the next batch into the table analyzes it again.
 * Cost: one pg_class lookup per committed batch until the table has statistics, then nothing; one
 * ANALYZE per table (a few ms at this size), after the commit, before the receipt. A failure is
 * logged, never a nak: the batch is committed.
 */
import type { DirectoryBatchV1 } from '@switchyard/messaging';
import type { Orm } from '@switchyard/persistence';
import { TableStatisticsRepository, type DirectoryTable } from '../db/repositories/table-statistics.repository.js';

const TABLE_OF: Record<DirectoryBatchV1['kind'], DirectoryTable> = { vehicles: 'vehicle', drivers: 'driver', groups: 'group', trips: 'trip' };

export class FirstStatistics {
  /** Tables this process has seen with statistics: never checked again. */
  private readonly analyzed = new Set<DirectoryTable>();
  /** Tables written by batches since the last `afterCommit`; racy across concurrent batches by design (a missed one is the next batch's). */
  private readonly written = new Set<DirectoryTable>();

  constructor(
    private readonly orm: Orm,
    private readonly repository = new TableStatisticsRepository(),
  ) {}

  /** Notes the table a batch of `kind` writes (inside the batch's transaction). */
  wrote(kind: DirectoryBatchV1['kind']): void {
    const table = TABLE_OF[kind];
    if (!this.analyzed.has(table)) this.written.add(table);
  }

  /** After the commit: analyzes each noted table that has no statistics yet. */
  async afterCommit(): Promise<void> {
    const tables = [...this.written];
    this.written.clear();
    for (const table of tables) {
      const em = this.orm.em.fork();
      if (await this.repository.hasStatistics(em, table)) this.analyzed.add(table);
      else await this.repository.analyze(em, table);
    }
  }
}
