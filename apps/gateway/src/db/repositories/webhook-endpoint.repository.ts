/**
 * SQL of the webhook endpoint routes and operator commands (services/webhook-endpoints.service.ts):
 * an application's endpoints, the delivery log of one, and replay. Every statement names the
 * application, so one application never reads or changes another's endpoints; every method runs
 * on the caller's transaction. Lists are passed as JSON (`em.execute` would expand an array
 * parameter into a list). Timestamps come back as wire text (isoSql).
 * Replay's eligibility is the fan-out's (webhook-delivery.repository.ts `fanOut`): an event of a type
 * the endpoint subscribes to, of a connection its application holds an unrevoked Connection-Token for.
 */
import { isoSql, query, tableNamer, type Em } from '@switchyard/persistence';
import type { StoredWebhookSecret } from '../../services/webhook-signature.js';

export interface EndpointRow {
  id: string;
  application_id: string;
  url: string;
  description: string | null;
  event_types: string[];
  enabled: boolean;
  disabled_reason: 'gone' | 'failing' | 'manual' | null;
  disabled_at: string | null;
  failing_since: string | null;
  secrets: StoredWebhookSecret[];
  created_at: string;
  updated_at: string;
}

const ENDPOINT_COLUMNS = `id, application_id, url, description, event_types, enabled, disabled_reason, ${isoSql('disabled_at')} as disabled_at,
  ${isoSql('failing_since')} as failing_since, secrets, ${isoSql('created_at')} as created_at, ${isoSql('updated_at')} as updated_at`;

export interface EndpointChanges {
  url?: string;
  description?: string | null;
  eventTypes?: readonly string[];
  /** true: enabled again (reason and failing time cleared); false: disabled by hand (`manual`). */
  enabled?: boolean;
  secrets?: readonly StoredWebhookSecret[];
}

export interface MessageRow {
  event_seq: string;
  event_id: string;
  type: string;
  connection_id: string;
  state: 'pending' | 'delivered' | 'failed' | 'suppressed';
  recorded_at: string;
  next_attempt_at: string | null;
  delivered_at: string | null;
  attempt_count: number;
  attempts: { attempt: number; trigger: 'scheduled' | 'replay'; startedAt: string; status: number | null; latencyMs: number; error: string | null; retryAfterMs: number | null }[];
}

/** What a replay asks for: one event, every event recorded since a time, or from a position of the log. */
export type ReplayRange = { eventId: string } | { since: string } | { fromSequence: string };

export interface ReplayOutcome {
  replayed: number;
  first: string | null;
  last: string | null;
  /** The log's end when the replay began (the range's upper bound). */
  through: string;
}

const LINKED_CONNECTIONS = (t: (name: string) => string) => `select c.connection_id from ${t('connection_token')} c where c.application_id = ?::uuid and c.revoked_at is null`;

export class WebhookEndpointRepository {
  /** The application's endpoints counted under a per-application lock, so the endpoint cap holds under concurrent creates. */
  async lockAndCount(em: Em, applicationId: string): Promise<number> {
    await query(em, `select pg_advisory_xact_lock(hashtext('webhook-endpoints'), hashtext(?))`, [applicationId]);
    const [row] = await query<{ n: number }>(em, `select count(*)::int as n from ${tableNamer(em)('webhook_endpoint')} where application_id = ?::uuid`, [applicationId]);
    return row?.n ?? 0;
  }

  async insert(em: Em, row: { id: string; applicationId: string; url: string; description: string | null; eventTypes: readonly string[]; enabled: boolean; secrets: readonly StoredWebhookSecret[] }): Promise<void> {
    await query(
      em,
      `insert into ${tableNamer(em)('webhook_endpoint')} (id, application_id, url, description, event_types, enabled, disabled_reason, disabled_at, secrets)
       values (?::uuid, ?::uuid, ?, ?, array(select jsonb_array_elements_text(?::jsonb)), ?, ${row.enabled ? 'null, null' : "'manual', now()"}, ?::jsonb)`,
      [row.id, row.applicationId, row.url, row.description, JSON.stringify(row.eventTypes), row.enabled, JSON.stringify(row.secrets)],
    );
  }

  /** Oldest first (creation time, then id). */
  list(em: Em, applicationId: string): Promise<EndpointRow[]> {
    return query<EndpointRow>(em, `select ${ENDPOINT_COLUMNS} from ${tableNamer(em)('webhook_endpoint')} where application_id = ?::uuid order by created_at, id`, [applicationId]);
  }

  /** One endpoint of the application; `lock` takes its row lock until commit (changes, rotation). */
  async get(em: Em, applicationId: string, id: string, lock = false): Promise<EndpointRow | undefined> {
    const [row] = await query<EndpointRow>(em, `select ${ENDPOINT_COLUMNS} from ${tableNamer(em)('webhook_endpoint')} where id = ?::uuid and application_id = ?::uuid${lock ? ' for update' : ''}`, [id, applicationId]);
    return row;
  }

  async update(em: Em, applicationId: string, id: string, changes: EndpointChanges): Promise<void> {
    const sets: string[] = ['updated_at = now()'];
    const params: unknown[] = [];
    const set = (assignment: string, value: unknown) => {
      sets.push(assignment);
      params.push(value);
    };
    if (changes.url !== undefined) set('url = ?', changes.url);
    if (changes.description !== undefined) set('description = ?', changes.description);
    if (changes.eventTypes !== undefined) set('event_types = array(select jsonb_array_elements_text(?::jsonb))', JSON.stringify(changes.eventTypes));
    if (changes.secrets !== undefined) set('secrets = ?::jsonb', JSON.stringify(changes.secrets));
    if (changes.enabled === true) sets.push('enabled = true', 'disabled_reason = null', 'disabled_at = null', 'failing_since = null');
    // Disabling by hand keeps an automatic reason (gone, failing) it already has.
    if (changes.enabled === false) sets.push("disabled_reason = case when enabled then 'manual' else disabled_reason end", 'disabled_at = case when enabled then now() else disabled_at end', 'enabled = false');
    await query(em, `update ${tableNamer(em)('webhook_endpoint')} set ${sets.join(', ')} where id = ?::uuid and application_id = ?::uuid`, [...params, id, applicationId]);
  }

  /** Deletes the endpoint with its messages and attempts (cascade); false when it is not the application's. */
  async delete(em: Em, applicationId: string, id: string): Promise<boolean> {
    const rows = await query<{ id: string }>(em, `delete from ${tableNamer(em)('webhook_endpoint')} where id = ?::uuid and application_id = ?::uuid returning id`, [id, applicationId]);
    return rows.length > 0;
  }

  /**
   * The endpoint's messages, newest event first, `limit` of them after the keyset position `before`
   * (an event sequence), optionally of one state, each with its latest 20 attempts. The log only
   * grows at its head (new events have larger sequences), so a walk never skips or repeats one.
   */
  messages(em: Em, endpointId: string, page: { limit: number; before?: string; state?: string }): Promise<MessageRow[]> {
    const t = tableNamer(em);
    const where = ['m.endpoint_id = ?::uuid'];
    const params: unknown[] = [endpointId];
    if (page.before !== undefined) {
      where.push('m.event_seq < ?::bigint');
      params.push(page.before);
    }
    if (page.state !== undefined) {
      where.push('m.state = ?');
      params.push(page.state);
    }
    params.push(page.limit);
    return query<MessageRow>(
      em,
      `select m.event_seq::text as event_seq, e.id as event_id, e.type, e.connection_id, m.state, ${isoSql('e.recorded_at')} as recorded_at,
              case when m.state = 'pending' then ${isoSql('m.next_attempt_at')} end as next_attempt_at, ${isoSql('m.delivered_at')} as delivered_at, m.attempt_count,
              coalesce(a.attempts, '[]'::json) as attempts
         from ${t('webhook_message')} m
         join ${t('webhook_event')} e on e.seq = m.event_seq
         left join lateral (
           select json_agg(json_build_object('attempt', x.attempt, 'trigger', x.trigger, 'startedAt', ${isoSql('x.started_at')}, 'status', x.status,
                                             'latencyMs', x.latency_ms, 'error', x.error, 'retryAfterMs', x.retry_after_ms) order by x.id desc) as attempts
             from (select * from ${t('webhook_attempt')} w where w.endpoint_id = m.endpoint_id and w.event_seq = m.event_seq order by w.id desc limit 20) x
         ) a on true
        where ${where.join(' and ')}
        order by m.event_seq desc
        limit ?`,
      params,
    );
  }

  /**
   * Queues exactly the range for the endpoint: every eligible event in it (at most `cap`, in
   * sequence order, none past the log's end when the statement began) becomes a pending message
   * due now, its retry schedule started again and its next attempt marked `replay`. A message in
   * flight loses its lease, so the attempt under way does not settle it. Messages the endpoint
   * never had (it subscribed later, or was disabled then) are created.
   */
  async replay(em: Em, endpoint: Pick<EndpointRow, 'id' | 'application_id' | 'event_types'>, range: ReplayRange, cap: number): Promise<ReplayOutcome> {
    const t = tableNamer(em);
    const [end] = await query<{ through: string }>(em, `select coalesce(max(seq), 0)::text as through from ${t('webhook_event')}`);
    const through = end?.through ?? '0';
    const [condition, value] =
      'eventId' in range ? ['e.id = ?::uuid', range.eventId] : 'since' in range ? ['e.recorded_at >= ?::timestamptz', range.since] : ['e.seq >= ?::bigint', range.fromSequence];
    const rows = await query<{ event_seq: string }>(
      em,
      `with chosen as (
         select e.seq, e.order_key from ${t('webhook_event')} e
          where ${condition} and e.seq <= ?::bigint
            and e.type = any(array(select jsonb_array_elements_text(?::jsonb)))
            and e.connection_id in (${LINKED_CONNECTIONS(t)})
          order by e.seq limit ?)
       insert into ${t('webhook_message')} (endpoint_id, event_seq, order_key, state, next_attempt_at, round_attempts, replay)
       select ?::uuid, c.seq, c.order_key, 'pending', now(), 0, true from chosen c
       on conflict (endpoint_id, event_seq) do update set state = 'pending', next_attempt_at = now(), round_attempts = 0, replay = true, lease_until = null, delivered_at = null
       returning event_seq::text as event_seq`,
      [value, through, JSON.stringify(endpoint.event_types), endpoint.application_id, cap, endpoint.id],
    );
    const seqs = rows.map((r) => BigInt(r.event_seq)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return { replayed: rows.length, first: seqs[0]?.toString() ?? null, last: seqs.at(-1)?.toString() ?? null, through };
  }
}
