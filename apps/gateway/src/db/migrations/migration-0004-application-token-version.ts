/**
 * The application's token version: bumped by every Connection-Token issued or revoked for it
 * (services/credentials-admin.service.ts), published with the active tokens in its grant snapshot
 * and read by the authentication lookup beside credential_version, so the sync-orchestrator's
 * in-transaction recheck can refuse a token revoked after the gateway accepted it (spec 5 rule 2,
 * docs/decisions/0008 "Grant recheck"). Separate from credential_version, which cursors are bound
 * to: issuing a token for one connection must not end the walks on another.
 * Additive: one column with a default.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0004ApplicationTokenVersion extends SchemaMigration {
  override up(): void {
    this.addSql(`alter table ${this.table('application')} add column token_version integer not null default 0;`);
  }
}
