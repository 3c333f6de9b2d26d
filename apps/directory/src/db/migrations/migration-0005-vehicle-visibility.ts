/**
 * The directory's published vehicle visibility (issue 5: "directory publishes visibility so other
 * contexts hide the same vehicles"): one row per connection holding the set of stored vehicles its
 * rules hide, the rules (and config revision) it was computed with, and a per-connection
 * `sequence` bumped on every change of the set. The row doubles as the transactional outbox of
 * `events.vehicle.visibility.<connectionId>`: `published_sequence < sequence` means the newest set
 * is not published yet (vehicle-visibility.relay.ts). Numbered 0005: 0004 is reserved for the
 * trips/read framework branch.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0005VehicleVisibility extends SchemaMigration {
  override up(): void {
    this.addSql(`
create table ${this.table('vehicle_visibility')} (
  connection_id uuid primary key,
  config_revision integer not null,
  rules jsonb not null,
  hidden jsonb not null,
  sequence bigint not null,
  published_sequence bigint not null default 0,
  computed_at timestamptz not null
);`);
  }
}
