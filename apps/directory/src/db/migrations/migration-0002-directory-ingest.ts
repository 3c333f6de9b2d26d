/**
 * The directory store filled by ingest batches: vehicles, drivers, groups, trips, plus the ingest
 * ledger, provider cursors and publication marks (service-kit ingest/db/ingest-ledger.repository.ts).
 *
 * Design for the stored reads of issue 5:
 * - every entity row carries its stable public id (`vcl_`/`drv_`/`group_`/`trp_`, minted from
 *   connection + provider + source id) as the primary key; pages are keyset on
 *   (connection_id, id) — or (connection_id, started_at, id) for trips — never offset;
 * - `fetched_at` is the provider fetch time of the stored version; a row changes only when a batch
 *   fetched strictly later arrives (an older page never overwrites a newer one);
 * - `modified_at` is the fetch time of the last batch that changed the content and `publication`
 *   a value from the context-wide `publication_seq` taken by that change, so "changed since" reads
 *   are one index range; `first_seen_at` / `last_seen_at` bound when the roster contained it;
 * - the Field envelopes (value or status + source) are kept verbatim in jsonb so per-field
 *   availability survives; plain columns (name, vin, status, distance_km…) exist for filters.
 */
import { SchemaMigration } from '@switchyard/persistence';
import { ingestLedgerDdl } from '@switchyard/service-kit';

export class Migration0002DirectoryIngest extends SchemaMigration {
  override up(): void {
    const s = this.schema;
    this.addSql(`
create sequence ${s}.publication_seq;

create table ${s}.vehicle (
  id text primary key,
  connection_id uuid not null,
  provider text not null,
  source_id text not null,
  name text null,
  vin text null,
  status text null,
  name_field jsonb not null,
  vin_field jsonb not null,
  metadata jsonb not null,
  first_seen_at timestamptz not null,
  last_seen_at timestamptz not null,
  fetched_at timestamptz not null,
  modified_at timestamptz not null,
  publication bigint not null,
  batch_id text not null
);
create index vehicle_connection_idx on ${s}.vehicle (connection_id, id);
create index vehicle_publication_idx on ${s}.vehicle (connection_id, publication);

create table ${s}.driver (
  id text primary key,
  connection_id uuid not null,
  provider text not null,
  source_id text not null,
  status text null,
  display_name text null,
  status_field jsonb not null,
  fields jsonb not null,
  group_membership jsonb not null,
  group_ids text[] null,
  first_seen_at timestamptz not null,
  last_seen_at timestamptz not null,
  fetched_at timestamptz not null,
  modified_at timestamptz not null,
  publication bigint not null,
  batch_id text not null
);
create index driver_connection_idx on ${s}.driver (connection_id, id);
create index driver_publication_idx on ${s}.driver (connection_id, publication);

create table ${s}."group" (
  id text primary key,
  connection_id uuid not null,
  provider text not null,
  source_id text not null,
  name text null,
  name_field jsonb not null,
  description_field jsonb not null,
  parent_source_id text null,
  parent_id text null,
  first_seen_at timestamptz not null,
  last_seen_at timestamptz not null,
  fetched_at timestamptz not null,
  modified_at timestamptz not null,
  publication bigint not null,
  batch_id text not null
);
create index group_connection_idx on ${s}."group" (connection_id, id);
create index group_publication_idx on ${s}."group" (connection_id, publication);

create table ${s}.trip (
  id text primary key,
  connection_id uuid not null,
  provider text not null,
  source_id text not null,
  vehicle_id text not null,
  vehicle_source_id text not null,
  driver_id text null,
  driver_source_id text null,
  started_at timestamptz not null,
  ended_at timestamptz not null,
  duration_ms bigint not null,
  distance_km double precision null,
  distance_basis text null,
  distance_field jsonb not null,
  start_location jsonb not null,
  end_location jsonb not null,
  first_seen_at timestamptz not null,
  last_seen_at timestamptz not null,
  fetched_at timestamptz not null,
  modified_at timestamptz not null,
  publication bigint not null,
  batch_id text not null
);
create index trip_window_idx on ${s}.trip (connection_id, started_at, id);
create index trip_vehicle_idx on ${s}.trip (connection_id, vehicle_id, started_at);
create index trip_driver_idx on ${s}.trip (connection_id, driver_id, started_at);
create index trip_publication_idx on ${s}.trip (connection_id, publication);
${ingestLedgerDdl(s)}
`);
  }
}
