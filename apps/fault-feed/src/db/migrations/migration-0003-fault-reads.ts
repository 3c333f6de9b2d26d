/**
 * What the fault reads need beyond 0002 (spec 2.9, 4.4, 6):
 * - `fault_occurrence.open_sequence`: the `sequence` of the occurrence's `opened` transition, the
 *   order of the open-faults walk (commit order: an occurrence opened during a walk lands at its
 *   end, never behind its cursor); filled for existing rows from their transitions;
 * - `fault_occurrence_open_idx`: the open occurrences of a connection in that order;
 * - `vehicle_visibility`: this context's projection of the directory's hidden-vehicle sets
 *   (`events.vehicle.visibility.<connectionId>`): the newest set by `sequence` per connection.
 *   This context never reads the directory schema;
 * - `fault_retention`: per connection, the highest sequence pruned from the feed (transitions
 *   older than the retention, libs/contracts fault-reads.ts); a cursor before it is refused.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0003FaultReads extends SchemaMigration {
  override up(): void {
    const s = this.schema;
    this.addSql(`
alter table ${s}.fault_occurrence add column open_sequence bigint null;
update ${s}.fault_occurrence o set open_sequence = t.sequence from ${s}.fault_transition t where t.occurrence_id = o.id and t.kind = 'opened';
create index fault_occurrence_open_idx on ${s}.fault_occurrence (connection_id, open_sequence) where cleared_at is null;

create table ${s}.vehicle_visibility (
  connection_id uuid primary key,
  sequence bigint not null,
  config_revision integer null,
  hidden jsonb not null,
  received_at timestamptz not null default now()
);

create table ${s}.fault_retention (
  connection_id uuid primary key,
  pruned_through bigint not null,
  pruned_at timestamptz not null
);
`);
  }
}
