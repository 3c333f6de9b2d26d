/**
 * The enrichment context's own tables (issue 16; it never reads another context's schema):
 * - `vehicle_visibility`: the shared projection of the directory's hidden-vehicle sets
 *   (libs/service-kit vehicle-visibility.projection.ts);
 * - `enrichment_vehicle`: the VIN projection — each vehicle the directory stored, with its VIN
 *   (`events.vehicle.vin.<connectionId>`; the highest `vin_sequence` wins);
 * - `enrichment_product`: one row per vehicle and product (identity, images, specifications, build):
 *   the value served (status, data, source, adapter version, fetchedAt, errorCode) for the VIN it
 *   was produced for, and `due_at` — when the background worker should (re)produce it (null: nothing
 *   to do). `enrichment_product_due_idx` is the worker's queue;
 * - `vendor_cache`: the enrichment vendor's answer per VIN and product, shared by every vehicle and
 *   connection with that VIN, kept until `expires_at` (docs/enrichment.md, the TTL);
 * - `vendor_budget`: the vendor's request budget (one row per vendor account: tokens and refill
 *   time, taken under a row lock — the collection budget's model, decision 0021).
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0001Enrichment extends SchemaMigration {
  override up(): void {
    const t = (name: string) => this.table(name);
    this.addSql(`
create table ${t('vehicle_visibility')} (
  connection_id uuid primary key,
  sequence bigint not null,
  config_revision integer null,
  hidden jsonb not null,
  received_at timestamptz not null default now()
);

create table ${t('enrichment_vehicle')} (
  vehicle_id text primary key,
  connection_id uuid not null,
  vin text null,
  vin_sequence bigint not null,
  vin_changed_at timestamptz not null,
  received_at timestamptz not null default now()
);

create table ${t('enrichment_product')} (
  vehicle_id text not null,
  product text not null,
  vin text null,
  status text not null,
  data jsonb null,
  source text not null,
  adapter_version text null,
  fetched_at timestamptz null,
  error_code text null,
  due_at timestamptz null,
  attempts integer not null default 0,
  updated_at timestamptz not null default now(),
  primary key (vehicle_id, product)
);
create index enrichment_product_due_idx on ${t('enrichment_product')} (due_at) where due_at is not null;

create table ${t('vendor_cache')} (
  vin text not null,
  product text not null,
  status text not null,
  data jsonb null,
  adapter_version text not null,
  fetched_at timestamptz not null,
  expires_at timestamptz not null,
  primary key (vin, product)
);

create table ${t('vendor_budget')} (
  account text primary key,
  tokens double precision not null,
  refilled_at timestamptz not null
);`);
  }
}
