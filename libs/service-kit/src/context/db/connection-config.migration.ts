/**
 * The connection-config projection's table, shared by every context that keeps the projection.
 * Each app lists this class in its own migrations (run in its own schema).
 *
 * Invariant: this DDL is applied: changing it changes no database that already ran it, so a
 * schema change to the projection is a new migration, never an edit here.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0001ConnectionConfigProjection extends SchemaMigration {
  override up(): void {
    this.addSql(`
create table ${this.table('connection_config')} (
  connection_id uuid primary key,
  revision integer not null,
  config jsonb not null,
  received_at timestamptz not null default now()
);`);
  }
}
