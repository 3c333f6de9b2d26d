/**
 * A scheduled window may be several runs (decision 0009, "Scheduled windows over the plan limit"):
 * `sync_schedule.last_sync_ids` holds every run (part) of the last window created, in plan order,
 * so the scheduler sees the window as open while any part is and covers it again when any part
 * failed. `last_sync_id` stays the first part, written with it: a row whose `last_sync_ids` does
 * not contain `last_sync_id` (written before this migration, or by a process of the previous
 * version during a rolling deploy) is read as the one-run window `[last_sync_id]`. A process of the
 * previous version reads only `last_sync_id`, so during the deploy it may start the next window
 * while a later part of a split window is still open: two windows in flight, never a unit lost.
 * Additive: one nullable column.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0010ScheduleWindowParts extends SchemaMigration {
  override up(): void {
    this.addSql(`alter table ${this.table('sync_schedule')} add column last_sync_ids text[] null;`);
  }
}
