/**
 * The fault store: occurrences (one row per fault episode on a vehicle), transitions (opened /
 * cleared, a per-connection gap-free `sequence`, doubling as the transactional outbox of
 * `fleet.faults.*` via `published_at`), the per-vehicle / per-connection watch marks that decide
 * bootstrap and order, the per-connection sequence counter, and the ingest ledger tables.
 *
 * Invariants: at most one open occurrence (cleared_at NULL) per connection × vehicle × fault key —
 * kept by the per-connection advisory lock every fault batch takes; a transition row is written in
 * the same transaction as the occurrence change it reports, and published only after that commit.
 */
import { SchemaMigration } from '@switchyard/persistence';
import { ingestLedgerDdl } from '@switchyard/service-kit';

export class Migration0002FaultFeed extends SchemaMigration {
  override up(): void {
    const s = this.schema;
    this.addSql(`
create table ${s}.fault_occurrence (
  id uuid primary key,
  connection_id uuid not null,
  provider text not null,
  model text not null,
  vehicle_id text not null,
  vehicle_source_id text not null,
  fault_key text not null,
  code text not null,
  description text null,
  opened_at timestamptz not null,
  last_observed_at timestamptz not null,
  cleared_at timestamptz null,
  cleared_by text null,
  bootstrap boolean not null
);
create index fault_occurrence_key_idx on ${s}.fault_occurrence (connection_id, vehicle_source_id, fault_key, opened_at);
create index fault_occurrence_vehicle_idx on ${s}.fault_occurrence (connection_id, vehicle_id, opened_at);

create table ${s}.fault_transition (
  id uuid primary key,
  connection_id uuid not null,
  sequence bigint not null,
  occurrence_id uuid not null,
  kind text not null,
  observed_at timestamptz not null,
  bootstrap boolean not null,
  payload jsonb not null,
  created_at timestamptz not null,
  published_at timestamptz null,
  constraint fault_transition_kind_check check (kind in ('opened', 'cleared'))
);
create unique index fault_transition_sequence_unique on ${s}.fault_transition (connection_id, sequence);
create index fault_transition_unpublished_idx on ${s}.fault_transition (published_at);

create table ${s}.fault_watch (
  connection_id uuid not null,
  scope text not null,
  last_observed_at timestamptz not null,
  primary key (connection_id, scope)
);

create table ${s}.fault_sequence (
  connection_id uuid primary key,
  last_sequence bigint not null
);
${ingestLedgerDdl(s)}
`);
  }
}
