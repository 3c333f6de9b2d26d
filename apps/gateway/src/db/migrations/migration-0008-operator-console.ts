/**
 * The operator console (issue 30; docs/decisions/0044-operator-console.md, 0045-operator-credentials.md):
 * - `operator_credential`: credentials issued by the operator CLI (`operator:create`) for people who
 *   run the deployment — never a consumer key or an application secret, which integrators hold.
 *   Stored like every other credential: a public lookup id, the display prefix and the SHA-256 of
 *   the token (compared in constant time), revocable (`revoke operator`).
 * - `console_session`: a signed-in browser. The cookie carries the session token, stored here only
 *   as its SHA-256 behind a lookup id (the same shape and comparison as a credential), bound to the
 *   operator credential that opened it: revoking the credential ends its sessions at the next
 *   request. `expires_at` is absolute (no sliding renewal).
 * - `connection.status_reason` / `status_changed_at`: why the connection's status last changed
 *   (`connection:pause --reason …`, a connect session waiting for activation), which the console
 *   shows beside a paused connection. Null for every existing row: the reason is unknown, and the
 *   console says so rather than inventing one.
 * Additive: two tables and two nullable columns.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0008OperatorConsole extends SchemaMigration {
  override up(): void {
    const s = this.schema;
    this.addSql(`
create table ${s}.operator_credential (
  id uuid primary key,
  lookup_id text not null,
  display_prefix text not null,
  secret_hash bytea not null,
  name text not null,
  created_at timestamptz not null default now(),
  revoked_at timestamptz null,
  constraint operator_credential_lookup_id_key unique (lookup_id)
);`);
    this.addSql(`
create table ${s}.console_session (
  id uuid primary key,
  lookup_id text not null,
  secret_hash bytea not null,
  operator_id uuid not null references ${s}.operator_credential(id),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  constraint console_session_lookup_id_key unique (lookup_id)
);`);
    this.addSql(`create index console_session_expiry on ${s}.console_session (expires_at);`);
    this.addSql(`alter table ${s}.connection add column status_reason text null, add column status_changed_at timestamptz null;`);
  }
}
