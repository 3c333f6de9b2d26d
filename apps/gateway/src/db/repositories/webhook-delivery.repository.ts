/**
 * SQL of the webhook delivery role (decision 0042): recording an event in the webhook log and
 * fanning it out to the endpoints that receive it, claiming due messages, settling an attempt,
 * disabling an endpoint, and retention. Every method runs on the caller's transaction.
 * Invariants:
 * - an event is recorded once (its id is unique): a redelivered stream message inserts nothing and
 *   fans out nothing, so each endpoint has at most one message per event;
 * - order: a message is claimable only while no pending message of the same endpoint and order key
 *   (vehicle, or connection) has a lower sequence — leased or not — so per vehicle an endpoint sees
 *   its events in log order, and a `fault.cleared` is never attempted before its `fault.opened`;
 * - a claim is a lease (`lease_until`, also its token): FOR UPDATE SKIP LOCKED keeps two delivery
 *   processes off one message, an expired lease (a crashed process) makes it claimable again, and a
 *   settlement applies only under the lease it was claimed with (a replay or a re-claim took it).
 */
import { isoSql, query, tableNamer, type Em } from '@switchyard/persistence';
import type { StoredWebhookSecret } from '../../services/webhook-signature.js';

/** What the body carries as its `sequence` until the statement that records it writes the position in. */
export const SEQUENCE_MARK = '@@sequence@@';

export interface WebhookLogEvent {
  id: string;
  type: string;
  connectionId: string;
  orderKey: string;
  /** The body with `sequence` = SEQUENCE_MARK (the recording statement writes the position in). */
  render: (sequence: string) => string;
  /** Only this application's endpoints receive it (sync outcomes: the application that created the sync). */
  applicationId?: string;
}

export interface ClaimedMessage {
  endpoint_id: string;
  event_seq: string;
  lease: string;
  attempt_count: number;
  round_attempts: number;
  replay: boolean;
  created_at: string;
  url: string;
  secrets: StoredWebhookSecret[];
  event_id: string;
  type: string;
  connection_id: string;
  order_key: string;
  body: string;
}

export interface AttemptRecord {
  startedAt: Date;
  status: number | null;
  latencyMs: number;
  error: string | null;
  retryAfterMs: number | null;
}

export type MessageOutcome = { state: 'delivered' } | { state: 'pending'; nextAttemptAt: Date } | { state: 'failed' } | { state: 'suppressed' };

export class WebhookDeliveryRepository {
  /**
   * Records the event (nothing when its id is recorded already) and creates a pending message, due
   * now, for every enabled endpoint subscribed to its type whose application holds an unrevoked
   * Connection-Token for its connection. Returns how many endpoints receive it (0 for a repeat).
   */
  async record(em: Em, event: WebhookLogEvent): Promise<number> {
    const t = tableNamer(em);
    // One statement (atomic without a transaction, one round trip — the fan-out is sequential, so
    // its round trips bound the rate): the position drawn (a repeat wastes one: `sequence` may have
    // gaps), written into the body's first `"sequence"` member (the top-level one: the envelope
    // lists it before `data`), the event recorded, its messages created.
    const fanned = await query<{ endpoint_id: string }>(
      em,
      `with position as (select nextval(pg_get_serial_sequence('${t('webhook_event')}', 'seq')) as seq),
       recorded as (
         insert into ${t('webhook_event')} (seq, id, type, connection_id, order_key, body)
         select p.seq, ?::uuid, ?, ?::uuid, ?, overlay(b.body placing '"sequence":"' || p.seq || '"' from position(b.mark in b.body) for length(b.mark))
           from position p, (select ?::text as body, ?::text as mark) b
         on conflict (id) do nothing returning seq)
       insert into ${t('webhook_message')} (endpoint_id, event_seq, order_key, state, next_attempt_at)
       select w.id, r.seq, ?, 'pending', now() from recorded r cross join ${t('webhook_endpoint')} w
        where w.enabled and ? = any(w.event_types)
          and w.application_id in (select c.application_id from ${t('connection_token')} c where c.connection_id = ?::uuid and c.revoked_at is null)
          ${event.applicationId ? 'and w.application_id = ?::uuid' : ''}
       returning endpoint_id`,
      [event.id, event.type, event.connectionId, event.orderKey, event.render(SEQUENCE_MARK), `"sequence":"${SEQUENCE_MARK}"`, event.orderKey, event.type, event.connectionId, ...(event.applicationId ? [event.applicationId] : [])],
    );
    return fanned.length;
  }

  /** Up to `limit` due messages of enabled endpoints, first in their order, leased for `leaseMs`. */
  claim(em: Em, limit: number, leaseMs: number): Promise<ClaimedMessage[]> {
    const t = tableNamer(em);
    return query<ClaimedMessage>(
      em,
      `with due as (
         select m.endpoint_id, m.event_seq from ${t('webhook_message')} m
           join ${t('webhook_endpoint')} w on w.id = m.endpoint_id and w.enabled
          where m.state = 'pending' and m.next_attempt_at <= now() and (m.lease_until is null or m.lease_until < now())
            and not exists (select 1 from ${t('webhook_message')} p
                             where p.endpoint_id = m.endpoint_id and p.order_key = m.order_key and p.state = 'pending' and p.event_seq < m.event_seq)
          order by m.next_attempt_at, m.event_seq
          limit ?
          for update of m skip locked)
       update ${t('webhook_message')} m set lease_until = clock_timestamp() + ? * interval '1 millisecond'
         from due, ${t('webhook_endpoint')} w, ${t('webhook_event')} e
        where m.endpoint_id = due.endpoint_id and m.event_seq = due.event_seq and w.id = m.endpoint_id and e.seq = m.event_seq
        returning m.endpoint_id, m.event_seq::text as event_seq, m.lease_until::text as lease, m.attempt_count, m.round_attempts, m.replay, ${isoSql('m.created_at')} as created_at,
                  w.url, w.secrets, e.id as event_id, e.type, e.connection_id, e.order_key, e.body`,
      [limit, leaseMs],
    );
  }

  /**
   * A delivered attempt in one statement (the common path, one round trip): the attempt logged, the
   * message delivered under its lease, the endpoint no longer failing. False when the lease was lost
   * (the attempt is logged anyway).
   */
  async delivered(em: Em, message: ClaimedMessage, attempt: AttemptRecord): Promise<boolean> {
    const t = tableNamer(em);
    const [row] = await query<{ settled: number }>(
      em,
      `with logged as (
         insert into ${t('webhook_attempt')} (endpoint_id, event_seq, attempt, trigger, started_at, status, latency_ms, error, retry_after_ms)
         values (?::uuid, ?::bigint, ?, ?, ?::timestamptz, ?, ?, null, null)),
       settled as (
         update ${t('webhook_message')} set attempt_count = attempt_count + 1, round_attempts = round_attempts + 1, replay = false, lease_until = null,
                state = 'delivered', next_attempt_at = null, delivered_at = now()
          where endpoint_id = ?::uuid and event_seq = ?::bigint and lease_until = ?::timestamptz returning 1),
       cleared as (update ${t('webhook_endpoint')} set failing_since = null where id = ?::uuid and failing_since is not null)
       select count(*)::int as settled from settled`,
      [message.endpoint_id, message.event_seq, message.attempt_count + 1, message.replay ? 'replay' : 'scheduled', attempt.startedAt.toISOString(), attempt.status, attempt.latencyMs,
        message.endpoint_id, message.event_seq, message.lease, message.endpoint_id],
    );
    return (row?.settled ?? 0) > 0;
  }

  /** Writes the attempt to the delivery log (also when the lease was lost: it happened). */
  async logAttempt(em: Em, message: ClaimedMessage, attempt: AttemptRecord): Promise<void> {
    await query(
      em,
      `insert into ${tableNamer(em)('webhook_attempt')} (endpoint_id, event_seq, attempt, trigger, started_at, status, latency_ms, error, retry_after_ms)
       values (?::uuid, ?::bigint, ?, ?, ?::timestamptz, ?, ?, ?, ?)`,
      [message.endpoint_id, message.event_seq, message.attempt_count + 1, message.replay ? 'replay' : 'scheduled', attempt.startedAt.toISOString(), attempt.status, attempt.latencyMs, attempt.error, attempt.retryAfterMs],
    );
  }

  /** Moves the message under its lease; false when the lease is no longer its (nothing changed). `attempted`: an attempt was made (counts). */
  async settle(em: Em, message: ClaimedMessage, outcome: MessageOutcome, attempted: boolean): Promise<boolean> {
    const counted = attempted ? 'attempt_count = attempt_count + 1, round_attempts = round_attempts + 1, replay = false,' : '';
    const rows = await query<{ ok: number }>(
      em,
      `update ${tableNamer(em)('webhook_message')} set ${counted} lease_until = null, state = ?,
              next_attempt_at = ?::timestamptz, delivered_at = case when ? = 'delivered' then now() else delivered_at end
        where endpoint_id = ?::uuid and event_seq = ?::bigint and lease_until = ?::timestamptz returning 1 as ok`,
      [outcome.state, outcome.state === 'pending' ? outcome.nextAttemptAt.toISOString() : null, outcome.state, message.endpoint_id, message.event_seq, message.lease],
    );
    return rows.length > 0;
  }

  /** A failure at `at`: the endpoint fails since its first failure after its last success; returns since when (null: gone). */
  async failed(em: Em, endpointId: string, at: Date): Promise<Date | null> {
    const [row] = await query<{ failing_since: string }>(
      em,
      `update ${tableNamer(em)('webhook_endpoint')} set failing_since = coalesce(failing_since, ?::timestamptz) where id = ?::uuid returning ${isoSql('failing_since')} as failing_since`,
      [at.toISOString(), endpointId],
    );
    return row ? new Date(row.failing_since) : null;
  }

  /** Disables an enabled endpoint (410 `gone`, or `failing`); its row when this call disabled it. */
  async disable(em: Em, endpointId: string, reason: 'gone' | 'failing'): Promise<{ application_id: string; url: string; failing_since: string | null; disabled_at: string } | undefined> {
    const [row] = await query<{ application_id: string; url: string; failing_since: string | null; disabled_at: string }>(
      em,
      `update ${tableNamer(em)('webhook_endpoint')} set enabled = false, disabled_reason = ?, disabled_at = now(), updated_at = now()
        where id = ?::uuid and enabled returning application_id, url, ${isoSql('failing_since')} as failing_since, ${isoSql('disabled_at')} as disabled_at`,
      [reason, endpointId],
    );
    return row;
  }

  /** Deletes events recorded before `before` that no endpoint still has pending (their messages and attempts go with them); returns how many. */
  async prune(em: Em, before: Date): Promise<number> {
    const t = tableNamer(em);
    const rows = await query<{ seq: string }>(
      em,
      `delete from ${t('webhook_event')} e where e.recorded_at < ?::timestamptz
          and not exists (select 1 from ${t('webhook_message')} m where m.event_seq = e.seq and m.state = 'pending')
        returning e.seq`,
      [before.toISOString()],
    );
    return rows.length;
  }
}
