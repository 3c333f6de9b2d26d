/**
 * The on-demand refresh limit (spec 4.4: at most once per asset every 30 seconds, 429 with
 * Retry-After after that): one row per asset holding when its last refresh was granted. Kept in
 * PostgreSQL so every gateway and orchestrator process enforces one limit
 * (db/repositories/refresh-slot.repository.ts claims a slot with one conditional upsert).
 * Additive: a new table; rows are overwritten in place, one per asset ever refreshed.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0013RefreshSlots extends SchemaMigration {
  override up(): void {
    this.addSql(`
create table ${this.table('refresh_slot')} (
  connection_id uuid not null,
  vehicle_source_id text not null,
  granted_at timestamptz not null,
  constraint refresh_slot_pkey primary key (connection_id, vehicle_source_id)
);`);
  }
}
