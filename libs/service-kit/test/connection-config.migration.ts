/**
 * The connection-config projection's table for service-kit's own specs (support.ts and the
 * int-specs start a context on it); it lives with them because no app lists this class. Each context writes its
 * applied migration out literally in its own db/migrations/migration-0001-connection-config-projection.ts,
 * because an applied migration must never change when shared code does.
 *
 * Invariant: the DDL matches those copies and ConnectionConfigEntity (src/context/db/connection-config.entity.ts).
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
