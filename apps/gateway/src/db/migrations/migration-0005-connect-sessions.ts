/**
 * Connect sessions (spec 2.8, 3, 4.3; docs/decisions/0022-connect-sessions.md):
 * - `connect_session`: one row per link, owned by the consumer key that created it. The page token
 *   in the link's URL is stored only as its SHA-256; the lifecycle timestamps, the enrollment
 *   method, disclosure version and approved signals are recorded as the session moves; the rows also
 *   carry the per consumer × connection rate limit (counted under the connection's row lock).
 *   `oauth_state_hash` is the SHA-256 of the OAuth `state` while the customer is at the provider.
 * - `geotab_binding`: the operator-approved database and server of a Geotab connection; without it
 *   a session answers 409 `geotab_account_setup_required` (spec 4.3 rule 3).
 * - `connection.activation_pending`: set by a completed enrollment, cleared only when the operator
 *   installs the reviewed signal-limited activation policy (spec 3 session rule 3); while set the
 *   connection cannot be made active.
 * Additive: two tables and one column with a default.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0005ConnectSessions extends SchemaMigration {
  override up(): void {
    const s = this.schema;
    this.addSql(`
create table ${s}.connect_session (
  id uuid primary key,
  connection_id uuid not null references ${s}.connection(id),
  consumer_key_id uuid not null references ${s}.consumer_key(id),
  page_token_hash bytea not null,
  status text not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  started_at timestamptz null,
  consumed_at timestamptz null,
  accepted_at timestamptz null,
  completed_at timestamptz null,
  enrollment_method text null,
  disclosure_version text null,
  selected_signals jsonb null,
  provider_identity text null,
  failure_reason text null,
  oauth_state_hash bytea null,
  constraint connect_session_page_token_hash_key unique (page_token_hash),
  constraint connect_session_status_check check (status in ('created', 'started', 'consumed', 'complete', 'failed', 'cancelled')),
  constraint connect_session_method_check check (enrollment_method is null or enrollment_method in ('oauth', 'api_token', 'service_account'))
);`);
    this.addSql(`create index connect_session_rate on ${s}.connect_session (consumer_key_id, connection_id, created_at);`);
    this.addSql(`create index connect_session_oauth_state on ${s}.connect_session (oauth_state_hash);`);
    this.addSql(`
create table ${s}.geotab_binding (
  connection_id uuid primary key references ${s}.connection(id),
  database text not null,
  server text not null,
  created_at timestamptz not null default now()
);`);
    this.addSql(`alter table ${s}.connection add column activation_pending boolean not null default false;`);
  }
}
