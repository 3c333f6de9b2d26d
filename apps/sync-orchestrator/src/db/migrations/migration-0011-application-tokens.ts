/**
 * The grant projection learns the application's Connection-Tokens (docs/decisions/0008 "Grant
 * recheck"): `token_version` orders token changes after `credential_version` (a snapshot is applied
 * when its pair is higher), `connection_tokens` holds the active tokens `[{ id, connectionId }]`.
 * Rows projected before this migration, and snapshots of a gateway that predates the token recheck,
 * hold `connection_tokens = null` — tokens unknown — and the recheck answers 503 for them until a
 * snapshot with tokens arrives (`npm run operator -- grants:republish` re-announces them at the same
 * versions, which the projection accepts exactly for such a row).
 * Additive: one column with a default, one nullable column.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0011ApplicationTokens extends SchemaMigration {
  override up(): void {
    this.addSql(`alter table ${this.table('application_credential')} add column token_version integer not null default 0, add column connection_tokens jsonb null;`);
  }
}
