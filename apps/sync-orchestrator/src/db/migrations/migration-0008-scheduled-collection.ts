/**
 * Scheduled collection (spec 8 scheduler window): the per-connection schedule row the scheduler
 * claims, and the index of open scheduled runs. Builds on migration 0007, which added `sync.origin`
 * (`api` or an internal origin; scheduled runs are `scheduled`, SCHEDULED_ORIGIN) and the null
 * application of internal runs.
 *
 * - `sync_scheduled_open_idx`: the scheduler's per-tick look for open scheduled runs of connections
 *   whose collection stopped reads only these rows;
 * - `sync_schedule`: one row per projected connection. A scheduler process claims a due row with
 *   `FOR UPDATE SKIP LOCKED` and, in the same transaction, creates the window's run (or records why
 *   it skipped) and moves `next_due_at` past now — so two processes ticking together never create
 *   two runs for one window. `covered_until` is the interval end of the last run created and
 *   `last_sync_id` that run; `last_decision` is `created` or the skip reason of the last due time.
 * Additive.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0008ScheduledCollection extends SchemaMigration {
  override up(): void {
    const sync = this.table('sync');
    this.addSql(`
create index sync_scheduled_open_idx on ${sync} (connection_id) where origin = 'scheduled' and status in ('requested', 'in_progress');

create table ${this.table('sync_schedule')} (
  connection_id uuid primary key,
  next_due_at timestamptz not null,
  covered_until timestamptz null,
  last_sync_id text null,
  last_decision text null,
  last_decided_at timestamptz null
);
create index sync_schedule_due_idx on ${this.table('sync_schedule')} (next_due_at);
`);
  }
}
