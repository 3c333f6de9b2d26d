/**
 * The driver directory as the last COMPLETE drivers pass (decision 0014): a pass is the batches of
 * one collection unit from its first page to its final page; the directory lists exactly the
 * drivers that pass carried, never a driver only an unfinished pass has seen, never one the
 * provider no longer lists.
 * - `driver_sighting`: the drivers an unfinished pass carried so far (one row per pass and driver),
 *   folded into the roster and deleted when its final page commits (`seen_at`, the newest batch
 *   fetch that carried the driver, lets a completion drop what an abandoned pass left a day earlier);
 * - `driver_pass`: one row per completed pass, `seq` counting completions per connection; its
 *   `created_xid` lets a walk find the pass that was current in its horizon snapshot, so a pass
 *   completing mid-walk never changes the walk's pass. Rows older than the cursor lifetime are pruned;
 * - `driver_roster`: the intervals of completed passes [from_seq, to_seq) that listed a driver —
 *   one row per listing, closed (to_seq) by the first complete pass that no longer carries it, so a
 *   walk pinned to pass k sees exactly k's drivers even after later passes closed or reopened rows.
 *   Only roster changes write rows (an unchanged directory writes none); never pruned: a driver
 *   listed once stays answerable by id (decision 0014).
 * The primary keys are the only indexes: every read and write is one connection's prefix of them
 * (a connection's passes are pruned to about a day, its roster rows are about its driver count).
 */
import { SchemaMigration } from '@switchyard/persistence';
import { rosterPassTablesSql } from './roster-pass-tables.js';

/** The SQL text is unchanged since it was applied; it now comes from the one generator of every dataset's pass tables. */
export class Migration0014DriverPasses extends SchemaMigration {
  override up(): void {
    this.addSql(rosterPassTablesSql(this.schema, { prefix: 'driver', member: 'driver_id' }));
  }
}
