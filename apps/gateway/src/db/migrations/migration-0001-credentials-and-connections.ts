/**
 * Gateway schema v1: credentials (hashed), grants, connections (provider credentials sealed with
 * AES-GCM) and their configuration. Schema-agnostic: `s` is the quoted schema of this run.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0001CredentialsAndConnections extends SchemaMigration {
  override up(): void {
    const s = this.schema;
    this.addSql(`
create table ${s}.application (
  id uuid primary key,
  name text not null,
  environment text not null check (environment in ('sandbox', 'production')),
  lookup_id text not null unique,
  display_prefix text not null,
  secret_hash bytea not null,
  credential_version integer not null default 1,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);

create table ${s}.connection (
  id uuid primary key,
  customer_id text not null,
  provider text not null check (provider in ('samsara', 'motive', 'geotab')),
  environment text not null check (environment in ('sandbox', 'production')),
  provider_credentials text,
  config jsonb not null,
  config_revision integer not null default 1,
  last_success_at timestamptz,
  last_error_code text,
  extended_last_success_at timestamptz,
  extended_last_error_code text,
  extended_next_retry_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table ${s}.connection_token (
  id uuid primary key,
  application_id uuid not null references ${s}.application(id),
  connection_id uuid not null references ${s}.connection(id),
  lookup_id text not null unique,
  display_prefix text not null,
  secret_hash bytea not null,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index connection_token_app_conn on ${s}.connection_token (application_id, connection_id);

-- Sync operation grants of an application on a connection; history allows backfill before now.
create table ${s}.application_grant (
  application_id uuid not null references ${s}.application(id),
  connection_id uuid not null references ${s}.connection(id),
  operations text[] not null default '{}',
  history boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (application_id, connection_id)
);

create table ${s}.consumer_key (
  id uuid primary key,
  name text not null,
  lookup_id text not null unique,
  display_prefix text not null,
  secret_hash bytea not null,
  credential_version integer not null default 1,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);

-- Per-connection grant of a consumer key: read, manage, history.
create table ${s}.consumer_grant (
  consumer_key_id uuid not null references ${s}.consumer_key(id),
  connection_id uuid not null references ${s}.connection(id),
  permissions text[] not null,
  created_at timestamptz not null default now(),
  primary key (consumer_key_id, connection_id)
);
`);
  }
}
