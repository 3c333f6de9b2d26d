/**
 * Webhooks (issue 29, decision 0042), in the gateway's schema because applications are the
 * gateway's (a context never reads another's schema):
 * - `webhook_endpoint`: an application's endpoint — URL, subscribed event types, enabled, why it was
 *   disabled, since when it keeps failing, its signing secrets sealed with SWITCHYARD_MASTER_KEY
 *   (jsonb list, newest first; two during a rotation);
 * - `webhook_event`: the webhook log — each event once, by its stable id, with the CloudEvents body
 *   rendered once (every attempt sends these bytes), its order key (vehicle or connection) and its
 *   position `seq` (the log's own sequence; replays name a position of it);
 * - `webhook_message`: one row per (endpoint, event) — the endpoint's durable position is its set of
 *   settled rows, its queue the pending ones; `round_attempts` indexes the retry schedule (a replay
 *   starts it again), `lease_until` holds a message one delivery process is attempting;
 * - `webhook_attempt`: the delivery log (status, latency, error, Retry-After per attempt);
 * - `vehicle_visibility`: the delivery role's copy of the directory's hidden-vehicle sets, so a
 *   hidden vehicle's faults are never pushed (the table every context serving vehicle data keeps).
 * Additive: new tables only.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0009Webhooks extends SchemaMigration {
  override up(): void {
    const s = this.schema;
    this.addSql(`
create table ${s}.webhook_endpoint (
  id uuid primary key,
  application_id uuid not null references ${s}.application(id),
  url text not null,
  description text,
  event_types text[] not null,
  enabled boolean not null default true,
  disabled_reason text,
  disabled_at timestamptz,
  failing_since timestamptz,
  secrets jsonb not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint webhook_endpoint_disabled_reason_check check (disabled_reason in ('gone', 'failing', 'manual'))
);
create index webhook_endpoint_application on ${s}.webhook_endpoint (application_id);

create table ${s}.webhook_event (
  seq bigserial primary key,
  id uuid not null unique,
  type text not null,
  connection_id uuid not null,
  order_key text not null,
  body text not null,
  recorded_at timestamptz not null default now()
);
create index webhook_event_connection on ${s}.webhook_event (connection_id, seq);
create index webhook_event_recorded on ${s}.webhook_event (recorded_at);

create table ${s}.webhook_message (
  endpoint_id uuid not null references ${s}.webhook_endpoint(id) on delete cascade,
  event_seq bigint not null references ${s}.webhook_event(seq) on delete cascade,
  order_key text not null,
  state text not null,
  attempt_count integer not null default 0,
  round_attempts integer not null default 0,
  replay boolean not null default false,
  next_attempt_at timestamptz,
  lease_until timestamptz,
  created_at timestamptz not null default now(),
  delivered_at timestamptz,
  primary key (endpoint_id, event_seq),
  constraint webhook_message_state_check check (state in ('pending', 'delivered', 'failed', 'suppressed'))
);
create index webhook_message_due on ${s}.webhook_message (next_attempt_at) where state = 'pending';
create index webhook_message_order on ${s}.webhook_message (endpoint_id, order_key, event_seq) where state = 'pending';

create table ${s}.webhook_attempt (
  id bigserial primary key,
  endpoint_id uuid not null references ${s}.webhook_endpoint(id) on delete cascade,
  event_seq bigint not null references ${s}.webhook_event(seq) on delete cascade,
  attempt integer not null,
  trigger text not null,
  started_at timestamptz not null,
  status integer,
  latency_ms integer not null,
  error text,
  retry_after_ms integer,
  constraint webhook_attempt_trigger_check check (trigger in ('scheduled', 'replay'))
);
create index webhook_attempt_message on ${s}.webhook_attempt (endpoint_id, event_seq, id);

create table ${s}.vehicle_visibility (
  connection_id uuid primary key,
  sequence bigint not null,
  config_revision integer null,
  hidden jsonb not null,
  shown jsonb null,
  received_at timestamptz not null default now()
);
`);
  }
}
