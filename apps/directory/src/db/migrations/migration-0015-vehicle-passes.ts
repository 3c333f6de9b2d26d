/**
 * The vehicle roster as the last COMPLETE vehicles pass (decisions 0011 and 0014): the metadata
 * read's `not_in_current_roster` and `rosterSeenAt` come from explicit pass rosters, as the driver
 * directory's do, instead of comparing a vehicle's newest fetch with the last pass's first page —
 * which counted a vehicle first seen by an unfinished newer pass as in the roster.
 * `vehicle_sighting`, `vehicle_pass`, `vehicle_roster`: the driver tables' shape (migration 0014; written out, not generated, so no shared code can change an applied migration),
 * keyed by the minted vehicle id. Nothing is backfilled: a connection's vehicles enter the roster
 * with its next complete vehicles pass (until then its stored vehicles answer `pending`).
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0015VehiclePasses extends SchemaMigration {
  override up(): void {
    const s = this.schema;
    const xid = `created_xid bigint not null default (pg_current_xact_id())::text::bigint`;
    this.addSql(`
create table ${s}.vehicle_sighting (
  connection_id uuid not null,
  pass_key text not null,
  vehicle_id text not null,
  seen_at timestamptz not null,
  primary key (connection_id, pass_key, vehicle_id)
);

create table ${s}.vehicle_pass (
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

create table ${s}.vehicle_roster (
  connection_id uuid not null,
  vehicle_id text not null,
  from_seq bigint not null,
  to_seq bigint null,
  ${xid},
  primary key (connection_id, vehicle_id, from_seq)
);
`);
  }
}
