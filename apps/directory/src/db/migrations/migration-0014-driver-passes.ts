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

export class Migration0014DriverPasses extends SchemaMigration {
  override up(): void {
    const s = this.schema;
    const xid = `created_xid bigint not null default (pg_current_xact_id())::text::bigint`;
    this.addSql(`
create table ${s}.driver_sighting (
  connection_id uuid not null,
  pass_key text not null,
  driver_id text not null,
  seen_at timestamptz not null,
  primary key (connection_id, pass_key, driver_id)
);

create table ${s}.driver_pass (
  connection_id uuid not null,
  seq bigint not null,
  pass_key text not null,
  started_at timestamptz not null,
  fetched_at timestamptz not null,
  captured_at timestamptz not null,
  published_at timestamptz not null,
  ${xid},
  primary key (connection_id, seq)
);

create table ${s}.driver_roster (
  connection_id uuid not null,
  driver_id text not null,
  from_seq bigint not null,
  to_seq bigint null,
  ${xid},
  primary key (connection_id, driver_id, from_seq)
);
`);
  }
}
