/**
 * The connection-config projection's table (fed by the gateway's connection-config events; read
 * and written by service-kit context/db/connection-config.repository.ts).
 *
 * Invariant: applied migrations never change. This DDL is written out here, in this context, as
 * it was applied — it used to be one class shared from service-kit by four contexts, and a change
 * to shared code would have silently changed an applied migration. The class name is the row in
 * this schema's migrations table: keep it. A change to the table is a new migration.
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
