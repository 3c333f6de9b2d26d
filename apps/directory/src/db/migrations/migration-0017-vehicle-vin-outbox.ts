/**
 * The directory's published VINs (issue 16: the enrichment context learns VINs from the directory's
 * events, never from its schema): one row per stored vehicle with the VIN the directory holds
 * (trimmed and upper-cased, null when the provider reports none) and a per-vehicle `sequence`
 * bumped when it changes. The row is the transactional outbox of `events.vehicle.vin.<connectionId>`:
 * `published_sequence < sequence` means the newest VIN is not published yet
 * (vehicle-vin-relay.service.ts). Existing vehicles are filled in here, so they are published once.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0017VehicleVinOutbox extends SchemaMigration {
  override up(): void {
    this.addSql(`
create table ${this.table('vehicle_vin')} (
  vehicle_id text primary key,
  connection_id uuid not null,
  vin text null,
  sequence bigint not null,
  published_sequence bigint not null default 0,
  changed_at timestamptz not null
);
create index vehicle_vin_unpublished_idx on ${this.table('vehicle_vin')} (vehicle_id) where published_sequence < sequence;
insert into ${this.table('vehicle_vin')} (vehicle_id, connection_id, vin, sequence, changed_at)
  select id, connection_id, nullif(upper(btrim(vin)), ''), 1, now() from ${this.table('vehicle')};`);
  }
}
