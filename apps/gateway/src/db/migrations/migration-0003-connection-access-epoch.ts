/**
 * The connection's access epoch: bumped by every change of its status to `disconnected`
 * (services/connections-admin.service.ts), read by the authentication lookup beside the grant and
 * bound into every read and sync-list cursor, so a cursor issued before a disconnect is refused
 * after the connection is re-activated (docs/decisions/0013-disconnected-connections.md).
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0003ConnectionAccessEpoch extends SchemaMigration {
  override up(): void {
    this.addSql(`alter table ${this.schema}.connection add column access_epoch integer not null default 1;`);
  }
}
