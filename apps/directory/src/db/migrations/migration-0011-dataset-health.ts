/**
 * Health per stored dataset: `dataset_health` replaces `connection_health` (0003), keyed by
 * (connection, dataset, scope), so a provider failure of one dataset's collection (a trips fetch
 * refused) degrades that dataset's reads only. Rows of the old projection were per connection:
 * each becomes one row per dataset (vehicles, drivers, groups, trips), the meaning it had. Same
 * ordering as before — each timestamp only moves forward (dataset-status.repository.ts).
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0011DatasetHealth extends SchemaMigration {
  override up(): void {
    this.addSql(`
create table ${this.table('dataset_health')} (
  connection_id uuid not null,
  dataset text not null,
  scope text not null,
  last_success_at timestamptz null,
  last_failure_at timestamptz null,
  last_error_code text null,
  updated_at timestamptz not null default now(),
  primary key (connection_id, dataset, scope)
);
insert into ${this.table('dataset_health')} (connection_id, dataset, scope, last_success_at, last_failure_at, last_error_code, updated_at)
  select h.connection_id, d.dataset, h.scope, h.last_success_at, h.last_failure_at, h.last_error_code, h.updated_at
    from ${this.table('connection_health')} h
   cross join unnest(array['vehicles', 'drivers', 'groups', 'trips']) as d(dataset);
drop table ${this.table('connection_health')};
`);
  }
}
