/**
 * What the stored reads need beyond the ingest tables of 0002:
 * - `created_xid` on vehicle, driver, group and trip: the transaction that inserted the row
 *   (`pg_current_xact_id()`, a column default, so the set-based upsert's ON CONFLICT update never
 *   touches it). A page walk keeps to the rows whose inserting transaction is visible in the
 *   snapshot its first page took (`pg_visible_in_snapshot`), exact even for a batch that commits
 *   late — rows inserted after the first page never shift a walk. Updated rows stay in the walk
 *   with their current content. Rows that existed before this migration get its transaction id;
 * - `connection_health`: the directory's own projection of the collectors' connection-health
 *   events (`events.connection.health.<id>`), per connection and scope. Each timestamp only moves
 *   forward, so redelivered or reordered observations never roll it back; a dataset is `degraded`
 *   while the newest observation of the core scope is a failure (dataset-status.service.ts).
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0003DirectoryReads extends SchemaMigration {
  override up(): void {
    const s = this.schema;
    const xid = `created_xid bigint not null default (pg_current_xact_id())::text::bigint`;
    this.addSql(`
alter table ${s}.vehicle add column ${xid};
alter table ${s}.driver add column ${xid};
alter table ${s}."group" add column ${xid};
alter table ${s}.trip add column ${xid};

create table ${s}.connection_health (
  connection_id uuid not null,
  scope text not null,
  last_success_at timestamptz null,
  last_failure_at timestamptz null,
  last_error_code text null,
  updated_at timestamptz not null default now(),
  primary key (connection_id, scope)
);
`);
  }
}
