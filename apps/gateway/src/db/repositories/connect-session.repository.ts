/**
 * The SQL of connect sessions (services/connect-session.service.ts). Every state change is one
 * conditional UPDATE naming the states it may leave and the expiry, so two requests racing on one
 * link (a double submit, a reload during completion) change it once: the loser sees no row.
 * Timestamps come back as wire text (RFC 3339 UTC, milliseconds).
 */
import { query, tableNamer, type Em } from '@switchyard/persistence';

export interface SessionRow {
  id: string;
  connection_id: string;
  consumer_key_id: string;
  status: 'created' | 'started' | 'consumed' | 'complete' | 'failed' | 'cancelled';
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  completed_at: string | null;
  enrollment_method: 'oauth' | 'api_token' | 'service_account' | null;
  disclosure_version: string | null;
  selected_signals: string[] | null;
  failure_reason: string | null;
  /** Whether the link is past its ten minutes (computed by PostgreSQL's clock, the one every process shares). */
  expired: boolean;
}

const ts = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as ${column}`;
const COLUMNS = [
  'id',
  'connection_id',
  'consumer_key_id',
  'status',
  ts('created_at'),
  ts('expires_at'),
  ts('accepted_at'),
  ts('completed_at'),
  'enrollment_method',
  'disclosure_version',
  'selected_signals',
  'failure_reason',
  'expires_at <= now() as expired',
].join(', ');

export class ConnectSessionRepository {
  constructor(private readonly em: Em) {}

  private get t() {
    return tableNamer(this.em);
  }

  /**
   * Retention (decision 0030): deletes up to `limit` sessions whose link expired before `before`,
   * oldest first, `skip locked`. A live link (expires_at in the future) never qualifies, and nothing
   * references a session row.
   */
  async pruneExpiredBefore(before: Date, limit: number): Promise<number> {
    const t = this.t('connect_session');
    const rows = await query<{ id: string }>(
      this.em,
      `delete from ${t} where id in (select id from ${t} where expires_at < ?::timestamptz and expires_at < now() order by expires_at limit ? for update skip locked) returning id`,
      [before.toISOString(), limit],
    );
    return rows.length;
  }

  /** Sessions this consumer created on this connection since `windowSeconds` ago, and when the oldest of them leaves the window. */
  async recent(consumerKeyId: string, connectionId: string, windowSeconds: number): Promise<{ count: number; freesInSeconds: number }> {
    const [row] = await query<{ count: string; frees: string | null }>(
      this.em,
      `select count(*) as count, ceil(extract(epoch from (min(created_at) + make_interval(secs => ?) - now()))) as frees
         from ${this.t('connect_session')} where consumer_key_id = ?::uuid and connection_id = ?::uuid and created_at > now() - make_interval(secs => ?)`,
      [windowSeconds, consumerKeyId, connectionId, windowSeconds],
    );
    return { count: Number(row?.count ?? 0), freesInSeconds: Math.max(1, Number(row?.frees ?? 1)) };
  }

  async insert(input: { id: string; connectionId: string; consumerKeyId: string; pageTokenHash: Buffer; ttlSeconds: number }): Promise<SessionRow> {
    const [row] = await query<SessionRow>(
      this.em,
      `insert into ${this.t('connect_session')} (id, connection_id, consumer_key_id, page_token_hash, status, created_at, expires_at)
       values (?::uuid, ?::uuid, ?::uuid, ?, 'created', now(), now() + make_interval(secs => ?)) returning ${COLUMNS}`,
      [input.id, input.connectionId, input.consumerKeyId, input.pageTokenHash, input.ttlSeconds],
    );
    if (!row) throw new Error('connect session insert returned no row');
    return row;
  }

  async forConsumer(sessionId: string, connectionId: string, consumerKeyId: string): Promise<SessionRow | undefined> {
    const rows = await query<SessionRow>(this.em, `select ${COLUMNS} from ${this.t('connect_session')} where id = ?::uuid and connection_id = ?::uuid and consumer_key_id = ?::uuid`, [sessionId, connectionId, consumerKeyId]);
    return rows[0];
  }

  async byPageToken(hash: Buffer): Promise<SessionRow | undefined> {
    const rows = await query<SessionRow>(this.em, `select ${COLUMNS} from ${this.t('connect_session')} where page_token_hash = ?`, [hash]);
    return rows[0];
  }

  async byId(id: string): Promise<SessionRow | undefined> {
    const rows = await query<SessionRow>(this.em, `select ${COLUMNS} from ${this.t('connect_session')} where id = ?::uuid`, [id]);
    return rows[0];
  }

  async byOAuthState(hash: Buffer): Promise<SessionRow | undefined> {
    const rows = await query<SessionRow>(this.em, `select ${COLUMNS} from ${this.t('connect_session')} where oauth_state_hash = ?`, [hash]);
    return rows[0];
  }

  /** created → started (the page was opened); a no-op in any other state. */
  async start(id: string): Promise<void> {
    await query(this.em, `update ${this.t('connect_session')} set status = 'started', started_at = now() where id = ?::uuid and status = 'created' and expires_at > now()`, [id]);
  }

  /** OAuth: remember the state while the customer is at the provider (started sessions only). */
  async awaitOAuth(id: string, stateHash: Buffer, selection: { signals: string[]; disclosureVersion: string }): Promise<boolean> {
    const rows = await query(
      this.em,
      `update ${this.t('connect_session')} set oauth_state_hash = ?, selected_signals = ?::jsonb, disclosure_version = ?, enrollment_method = 'oauth', accepted_at = now()
        where id = ?::uuid and status = 'started' and expires_at > now() returning id`,
      [stateHash, JSON.stringify(selection.signals), selection.disclosureVersion, id],
    );
    return rows.length === 1;
  }

  /**
   * started → consumed: the credentials were submitted. Single use: only one request wins; the
   * OAuth path keeps the selection it stored when the customer left for the provider.
   */
  async consume(id: string, selection?: { method: string; signals: string[]; disclosureVersion: string }): Promise<boolean> {
    const rows = selection
      ? await query(
          this.em,
          `update ${this.t('connect_session')} set status = 'consumed', consumed_at = now(), accepted_at = now(), enrollment_method = ?, selected_signals = ?::jsonb, disclosure_version = ?
            where id = ?::uuid and status = 'started' and expires_at > now() returning id`,
          [selection.method, JSON.stringify(selection.signals), selection.disclosureVersion, id],
        )
      : await query(
          this.em,
          `update ${this.t('connect_session')} set status = 'consumed', consumed_at = now(), oauth_state_hash = null where id = ?::uuid and status = 'started' and oauth_state_hash is not null and expires_at > now() returning id`,
          [id],
        );
    return rows.length === 1;
  }

  /** consumed → complete (on the completion's transaction). */
  async complete(id: string, providerIdentity: string): Promise<boolean> {
    const rows = await query(
      this.em,
      `update ${this.t('connect_session')} set status = 'complete', completed_at = now(), provider_identity = ? where id = ?::uuid and status = 'consumed' and expires_at > now() returning id`,
      [providerIdentity, id],
    );
    return rows.length === 1;
  }

  /** consumed → failed, with the reason (a provider reason code or a local one; never a secret). */
  async fail(id: string, reason: string): Promise<void> {
    await query(this.em, `update ${this.t('connect_session')} set status = 'failed', failure_reason = ? where id = ?::uuid and status = 'consumed'`, [reason, id]);
  }

  /** created|started → cancelled: the customer declined (on the page or at the provider). */
  async cancel(id: string): Promise<boolean> {
    const rows = await query(
      this.em,
      `update ${this.t('connect_session')} set status = 'cancelled', oauth_state_hash = null, failure_reason = 'declined' where id = ?::uuid and status in ('created', 'started') and expires_at > now() returning id`,
      [id],
    );
    return rows.length === 1;
  }

  /** The name the operator gave the consumer key that created the session: who asks, on the page. */
  async requesterName(consumerKeyId: string): Promise<string | undefined> {
    const rows = await query<{ name: string }>(this.em, `select name from ${this.t('consumer_key')} where id = ?::uuid`, [consumerKeyId]);
    return rows[0]?.name;
  }

  async geotabBinding(connectionId: string): Promise<{ database: string; server: string } | undefined> {
    const rows = await query<{ database: string; server: string }>(this.em, `select database, server from ${this.t('geotab_binding')} where connection_id = ?::uuid`, [connectionId]);
    return rows[0];
  }

  async connection(connectionId: string): Promise<{ id: string; customer_id: string; provider: 'samsara' | 'motive' | 'geotab'; status: string } | undefined> {
    const rows = await query<{ id: string; customer_id: string; provider: 'samsara' | 'motive' | 'geotab'; status: string }>(
      this.em,
      `select id, customer_id, provider, config->>'status' as status from ${this.t('connection')} where id = ?::uuid`,
      [connectionId],
    );
    return rows[0];
  }
}
