/**
 * What the stored telemetry reads need beyond the ingest tables of 0002:
 * - `observations.seq`: the public HistoryPoint `sequence`, a unique number per stored observation
 *   drawn from `observation_seq` by the ingest statement (never reused: a conflicting re-ingest
 *   inserts nothing). It identifies a reading; it is not the page order (readings are served in
 *   time order), so a number drawn by a transaction that commits late never opens a gap in a walk;
 * - `observations.created_xid`: the inserting transaction (`pg_current_xact_id()`, a column default),
 *   so a history walk keeps to the rows visible in the snapshot its first page took — the rule of
 *   the directory's reads (its migration 0003). Rows that existed before this migration get its
 *   transaction id and a seq in key order;
 * - `vehicle_visibility`: this context's projection of the directory's hidden-vehicle sets
 *   (`events.vehicle.visibility.<connectionId>`): the newest set by `sequence` per connection;
 * - `vehicle_fault_observation`: when faults of a vehicle were last observed (Telemetry
 *   `faultsObservedAt`), a projection of fault-feed's `events.faults.observed` (consumer
 *   faults-observed.handler.ts). This context never reads the faults schema.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0003TelemetryReads extends SchemaMigration {
  override up(): void {
    const s = this.schema;
    this.addSql(`
create sequence ${s}.observation_seq;
alter table ${s}.observations add column seq bigint null, add column created_xid bigint not null default (pg_current_xact_id())::text::bigint;
update ${s}.observations set seq = nextval('${s}.observation_seq');
alter table ${s}.observations alter column seq set not null;

create table ${s}.vehicle_visibility (
  connection_id uuid primary key,
  sequence bigint not null,
  config_revision integer null,
  hidden jsonb not null,
  received_at timestamptz not null default now()
);

create table ${s}.vehicle_fault_observation (
  connection_id uuid not null,
  vehicle_id text not null,
  observed_at timestamptz not null,
  updated_at timestamptz not null default now(),
  primary key (connection_id, vehicle_id)
);
`);
  }
}
