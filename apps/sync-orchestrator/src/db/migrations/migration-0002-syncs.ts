/**
 * The sync lifecycle schema (spec 2.11, 3, 4.1): syncs, their admitted units with the lease and
 * fencing columns collectors work with, the receipts that complete units, and the projection of
 * application grants the sync transactions recheck (spec 5 rule 2).
 *
 * Invariants kept by the shape:
 * - `sync.admitted_units` is fixed at creation (the plan is admitted whole or not at all) and
 *   `receipted_units` counts units with a committed receipt in the current attempt, so progress is
 *   one row read and `completed` needs receipted = admitted;
 * - `sync_unit.fencing_token` only grows: every lease and every retry bumps it, and a receipt or
 *   heartbeat carrying an older token changes nothing, so a stale collector can never move a unit;
 * - a unit's lease (`lease_owner`, `lease_expires_at`) is never cleared by cancel or retry — it
 *   ends when it expires (spec 3 rule 2: cancellation never releases an in-flight lease early);
 * - `sync_receipt` holds at most one receipt per unit and attempt;
 * - `sync.created_xid` is the creating transaction, so "existed when the first page was read" is a
 *   snapshot-visibility test, exact even for a create that commits late with an early requestedAt.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0002Syncs extends SchemaMigration {
  override up(): void {
    const s = this.schema;
    this.addSql(`
create table ${s}.sync (
  id text primary key,
  application_id uuid not null,
  connection_id uuid not null,
  status text not null,
  requested_at timestamptz not null,
  start_from timestamptz not null,
  interval_end timestamptz not null,
  purposes text[] not null,
  attempts integer not null default 1,
  admitted_units integer not null,
  receipted_units integer not null default 0,
  completed_at timestamptz null,
  failure_reason text null,
  -- Top-level transaction id of the create (pg_current_xact_id); list walks keep to the rows
  -- visible in the first page's snapshot, the fixed creation horizon of spec 4.1 rule 6.
  created_xid bigint not null,
  updated_at timestamptz not null default now(),
  constraint sync_status_check check (status in ('requested', 'in_progress', 'completed', 'failed')),
  constraint sync_attempts_check check (attempts >= 1),
  constraint sync_receipted_check check (receipted_units >= 0 and receipted_units <= admitted_units)
);
-- Newest-first pages (requested_at desc, id desc) scan these ascending indexes backwards.
create index sync_list_idx on ${s}.sync (application_id, connection_id, requested_at, id);
create index sync_connection_latest_idx on ${s}.sync (connection_id, requested_at);

create table ${s}.sync_unit (
  id bigserial primary key,
  sync_id text not null,
  seq integer not null,
  purpose text not null,
  vehicle_source_id text not null,
  window_start timestamptz null,
  window_end timestamptz null,
  state text not null default 'admitted',
  attempt integer not null default 1,
  fencing_token bigint not null default 0,
  lease_owner text null,
  lease_expires_at timestamptz null,
  heartbeat_at timestamptz null,
  provider_cursor text null,
  receipted_at timestamptz null,
  last_error_code text null,
  constraint sync_unit_state_check check (state in ('admitted', 'receipted'))
);
create unique index sync_unit_sync_seq_unique on ${s}.sync_unit (sync_id, seq);
create index sync_unit_leasable_idx on ${s}.sync_unit (lease_expires_at, id);

create table ${s}.sync_receipt (
  id bigserial primary key,
  unit_id bigint not null,
  sync_id text not null,
  attempt integer not null,
  fencing_token bigint not null,
  context text not null,
  receipt_key text not null,
  committed_at timestamptz not null,
  recorded_at timestamptz not null default now()
);
create unique index sync_receipt_unit_attempt_unique on ${s}.sync_receipt (unit_id, attempt);

create table ${s}.application_credential (
  application_id uuid primary key,
  environment text not null,
  revoked boolean not null,
  credential_version integer not null,
  grants jsonb not null,
  received_at timestamptz not null default now()
);
`);
  }
}
