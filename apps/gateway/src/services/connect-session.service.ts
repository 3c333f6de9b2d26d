/**
 * Connect sessions (spec 2.8, 3, 4.3; docs/decisions/0022-connect-sessions.md): the API side
 * (create, status, disconnect) and the hosted page's steps (open, submit, decline).
 *
 * Invariants:
 * - creation runs under the connection's row lock: the paused check, the Geotab binding check and
 *   the per consumer × connection rate limit (counted from the session rows, so every gateway
 *   process shares it) cannot interleave with another creation or a configuration change;
 * - the link's page token is 256 random bits, stored only as its SHA-256; the CSRF token is an
 *   HMAC of the session id under a key derived from the master key, so a form from another session
 *   or a guessed value is refused;
 * - a session is consumed once (conditional UPDATE); credentials are verified against the provider
 *   before anything is stored; completion seals them (SecretBox), records the selection, keeps the
 *   connection paused with its activation pending, publishes the configuration event and marks the
 *   session complete — one transaction under the connection's row lock;
 * - nothing here logs or returns a credential: log lines name the session and connection ids, the
 *   method and a reason code.
 */
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { SELECTED_SIGNALS, type Provider, type SelectedSignal } from '@switchyard/domain';
import { CONNECT_SESSION_TTL_SECONDS, type ConnectSessionV1, type EnrollmentMethod, type SessionStatusV1 } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import { allObservers, providerCallSpans, type ProviderCallObserver } from '@switchyard/providers';
import { providerCallMetrics, RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import type { ConsumerPrincipal } from '../auth/principal.js';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../config.js';
import { lockConnectionForUpdate } from '../db/repositories/connections-admin.repository.js';
import { ConnectSessionRepository, type SessionRow } from '../db/repositories/connect-session.repository.js';
import { ApiError } from '../http/api-error.js';
import { authorizeUrl, requestToken } from './connect-session-oauth.js';
import { verifyProviderCredentials } from './connect-session-verify.js';
import { ConnectionsAdmin } from './connections-admin.service.js';
import { AdminError } from './credentials-admin.service.js';
import { grantCredentials } from './oauth-refresh.js';
import { SecretBox } from './secret-box.js';

/** Version of the disclosure text the page shows (connect-page/disclosure.ts); recorded on every session. */
export { DISCLOSURE_VERSION } from '../connect-page/disclosure.js';
import { DISCLOSURE_VERSION } from '../connect-page/disclosure.js';

/** Session rate limit per consumer key × connection (spec 7 "session rate limit"; the value is ours). */
export const CONNECT_SESSION_RATE = { max: 5, windowSeconds: 600 } as const;

/**
 * Enrollment methods each provider offers on the page (spec 4.3 rules 3-4): Samsara's API token,
 * OAuth for Samsara and Motive where an OAuth application is registered, Geotab's service account.
 */
export function enrollmentMethods(provider: Provider, settings: Pick<GatewaySettings, 'oauth'>): EnrollmentMethod[] {
  if (provider === 'geotab') return ['service_account'];
  const oauth: EnrollmentMethod[] = settings.oauth?.[provider] ? ['oauth'] : [];
  return provider === 'samsara' ? ['api_token', ...oauth] : oauth;
}

/** The path of the OAuth redirect back to the gateway (register `<origin>/connect/oauth/callback` with the provider). */
export const OAUTH_CALLBACK_PATH = '/connect/oauth/callback';

const sha256 = (text: string) => createHash('sha256').update(text).digest();

export interface PageContext {
  session: SessionRow;
  connection: { id: string; customer_id: string; provider: Provider; status: string };
  binding?: { database: string; server: string };
  /** Who asks: the name of the consumer key that created the session. */
  requester: string;
  methods: readonly EnrollmentMethod[];
  csrf: string;
}

/** Why a link no longer works (the page says so in words). */
export type DeadReason = 'unknown' | 'expired' | 'used' | 'cancelled' | 'unavailable';

export type PageState = { kind: 'open'; page: PageContext } | { kind: 'dead'; reason: DeadReason; session?: SessionRow };

export interface EnrollmentForm {
  csrf?: string;
  method?: string;
  signals: string[];
  accept?: string;
  apiToken?: string;
  database?: string;
  userName?: string;
  password?: string;
  server?: string;
}

/** A form problem the customer can fix: the field and the message (the page shows both). */
export interface FieldProblem {
  field: string;
  message: string;
}

export type SubmitOutcome =
  | { kind: 'invalid'; page: PageContext; problems: FieldProblem[]; values: { method?: string; signals: string[]; database?: string; userName?: string; server?: string } }
  | { kind: 'complete'; session: SessionRow }
  | { kind: 'failed'; reason: string }
  | { kind: 'dead'; reason: DeadReason }
  | { kind: 'forbidden' }
  | { kind: 'redirect'; location: string };

@Injectable()
export class ConnectSessionService {
  private readonly admin: ConnectionsAdmin;
  private readonly csrfKey: Buffer;
  /** The credential check's provider calls: metrics (decision 0041) and, when tracing, spans (decision 0040). */
  private readonly providerCalls: ProviderCallObserver | undefined;

  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {
    this.admin = new ConnectionsAdmin(runtime.orm, new SecretBox(settings.masterKey));
    this.providerCalls = allObservers(providerCallMetrics(runtime.metrics), runtime.tracing && providerCallSpans(runtime.tracing.tracer));
    this.csrfKey = createHmac('sha256', Buffer.from(settings.masterKey, 'base64')).update('switchyard connect-page csrf v1').digest();
  }

  private repo(em: Em = this.runtime.orm.em.fork()) {
    return new ConnectSessionRepository(em);
  }

  // ── API ────────────────────────────────────────────────────────────────────────────────────

  async create(principal: ConsumerPrincipal, origin: string): Promise<ConnectSessionV1> {
    const pageToken = randomBytes(32).toString('base64url');
    const row = await this.runtime.orm.em.fork().transactional(async (em) => {
      const locked = await lockConnectionForUpdate(em, principal.connectionId);
      if (!locked || locked.config.status === 'disconnected') throw new ApiError('not_found');
      if (locked.config.status !== 'paused') throw new ApiError('pause_connection_before_connect');
      const repo = this.repo(em);
      if (locked.config.provider === 'geotab' && !(await repo.geotabBinding(principal.connectionId))) throw new ApiError('geotab_account_setup_required');
      const recent = await repo.recent(principal.consumerKeyId, principal.connectionId, CONNECT_SESSION_RATE.windowSeconds);
      if (recent.count >= CONNECT_SESSION_RATE.max) {
        this.runtime.metrics.child('rateLimited', 'connect_session').inc();
        throw new ApiError('rate_limited', { 'Retry-After': String(recent.freesInSeconds) });
      }
      return repo.insert({ id: randomUUID(), connectionId: principal.connectionId, consumerKeyId: principal.consumerKeyId, pageTokenHash: sha256(pageToken), ttlSeconds: CONNECT_SESSION_TTL_SECONDS });
    });
    this.runtime.logger.info({ sessionId: row.id, connectionId: principal.connectionId }, 'connect session created');
    return { sessionId: row.id, expiresAt: row.expires_at, url: `${(this.settings.publicUrl ?? origin).replace(/\/+$/, '')}/connect/${pageToken}` };
  }

  async status(principal: ConsumerPrincipal, sessionId: string): Promise<SessionStatusV1> {
    const row = await this.repo().forConsumer(sessionId, principal.connectionId, principal.consumerKeyId);
    if (!row) throw new ApiError('not_found');
    return statusOf(row);
  }

  async disconnect(connectionId: string): Promise<{ connectionId: string; status: 'disconnected' }> {
    try {
      await this.admin.disconnect(connectionId);
    } catch (error) {
      if (error instanceof AdminError && error.code === 'connection_not_found') throw new ApiError('not_found');
      throw error;
    }
    this.runtime.logger.info({ connectionId }, 'connection disconnected; provider credentials destroyed');
    return { connectionId, status: 'disconnected' };
  }

  // ── The hosted page ──────────────────────────────────────────────────────────────────────────

  /** Opening the link: created → started. */
  async open(pageToken: string): Promise<PageState> {
    const state = await this.load(pageToken);
    if (state.kind === 'open' && state.page.session.status === 'created') {
      await this.repo().start(state.page.session.id);
      state.page.session = { ...state.page.session, status: 'started' };
    }
    return state;
  }

  async decline(pageToken: string, csrf: string | undefined): Promise<SubmitOutcome> {
    const state = await this.load(pageToken);
    if (state.kind === 'dead') return { kind: 'dead', reason: state.reason };
    if (!this.csrfMatches(state.page.session.id, csrf)) return { kind: 'forbidden' };
    if (!(await this.repo().cancel(state.page.session.id))) return { kind: 'dead', reason: 'used' };
    this.runtime.logger.info({ sessionId: state.page.session.id, connectionId: state.page.connection.id }, 'connect session declined by the customer');
    return { kind: 'dead', reason: 'cancelled' };
  }

  async submit(pageToken: string, form: EnrollmentForm, origin = ''): Promise<SubmitOutcome> {
    const state = await this.load(pageToken);
    if (state.kind === 'dead') return { kind: 'dead', reason: state.reason };
    const page = state.page;
    if (!this.csrfMatches(page.session.id, form.csrf)) return { kind: 'forbidden' };
    const checked = this.validate(page, form);
    if (!checked.ok) {
      const { problems } = checked;
      return { kind: 'invalid', page, problems, values: { method: form.method, signals: form.signals, database: form.database, userName: form.userName, server: form.server } };
    }
    const { signals, method, credentials } = checked;
    const sessionId = page.session.id;
    const provider = page.connection.provider;
    const client = provider === 'geotab' ? undefined : this.settings.oauth?.[provider];
    if (method === 'oauth' && client && provider !== 'geotab') {
      // The customer leaves for the provider; the selection waits with the state (single use, hashed).
      const state = randomBytes(32).toString('base64url');
      if (!(await this.repo().awaitOAuth(sessionId, sha256(state), { signals, disclosureVersion: DISCLOSURE_VERSION }))) return { kind: 'dead', reason: 'used' };
      this.runtime.logger.info({ sessionId, connectionId: page.connection.id, method }, 'connect session: customer sent to the provider to authorize');
      return { kind: 'redirect', location: authorizeUrl(provider, client, this.callbackUrl(origin), state) };
    }
    if (!(await this.repo().consume(sessionId, { method, signals, disclosureVersion: DISCLOSURE_VERSION }))) return { kind: 'dead', reason: 'used' };
    return this.finish(sha256(pageToken), page.session, provider, method, signals, credentials);
  }

  /**
   * The provider sent the customer back: `?code&state`, or `?error=access_denied&state` when they
   * declined there (→ cancelled). The code is exchanged at the configured token URL, the token
   * verified like any credential, then the enrollment completes exactly as a submitted form does.
   */
  async oauthCallback(params: { code?: string; state?: string; error?: string }, origin: string): Promise<SubmitOutcome> {
    if (!params.state || !/^[A-Za-z0-9_-]{43}$/.test(params.state)) return { kind: 'dead', reason: 'unknown' };
    const repo = this.repo();
    const session = await repo.byOAuthState(sha256(params.state));
    if (!session) return { kind: 'dead', reason: 'used' };
    if (session.expired) return { kind: 'dead', reason: 'expired' };
    const connection = await repo.connection(session.connection_id);
    if (connection?.status !== 'paused' || connection.provider === 'geotab') return { kind: 'dead', reason: 'unavailable' };
    const provider = connection.provider;
    const client = this.settings.oauth?.[provider];
    if (!client) return { kind: 'dead', reason: 'unavailable' };
    if (params.error !== undefined || !params.code) {
      if (!(await repo.cancel(session.id))) return { kind: 'dead', reason: 'used' };
      this.runtime.logger.info({ sessionId: session.id, connectionId: connection.id }, 'connect session declined at the provider');
      return { kind: 'dead', reason: 'cancelled' };
    }
    if (!(await repo.consume(session.id))) return { kind: 'dead', reason: 'used' };
    const exchanged = await requestToken(provider, client, { grant_type: 'authorization_code', code: params.code, redirect_uri: this.callbackUrl(origin) });
    if (!exchanged.ok) {
      await this.repo().fail(session.id, exchanged.reason);
      this.runtime.logger.info({ sessionId: session.id, connectionId: connection.id, method: 'oauth', reason: exchanged.reason }, 'connect session failed: the code exchange was refused');
      return { kind: 'failed', reason: exchanged.reason };
    }
    // The refresh token and expiry are sealed beside the access token for the gateway's refresh (oauth-refresh.ts); collectors never get them.
    const credentials = grantCredentials(provider, exchanged);
    const signals = (session.selected_signals ?? []) as SelectedSignal[];
    return this.finish(undefined, session, provider, 'oauth', signals, credentials);
  }

  /** Verify with the provider, then complete in one transaction (or fail with a reason code). */
  private async finish(
    pageTokenHash: Buffer | undefined,
    session: SessionRow,
    provider: Provider,
    method: EnrollmentMethod,
    signals: SelectedSignal[],
    credentials: Record<string, string>,
  ): Promise<SubmitOutcome> {
    const sessionId = session.id;
    const connectionId = session.connection_id;
    let baseUrl: string | undefined;
    if (provider === 'geotab') baseUrl = this.geotabServer((await this.repo().geotabBinding(connectionId))?.server);
    else baseUrl = this.settings.providerBaseUrls?.[provider];
    const verified = baseUrl ? await verifyProviderCredentials(provider, baseUrl, credentials as never, this.runtime.environment, method === 'oauth', this.providerCalls) : { ok: false as const, reason: 'provider_config_invalid' };
    if (!verified.ok) {
      await this.repo().fail(sessionId, verified.reason);
      this.runtime.logger.info({ sessionId, connectionId, method, reason: verified.reason }, 'connect session failed: the provider refused the credentials');
      return { kind: 'failed', reason: verified.reason };
    }
    try {
      await this.runtime.orm.em.fork().transactional(async (em) => {
        const locked = await lockConnectionForUpdate(em, connectionId);
        if (locked?.config.status !== 'paused') throw new CompletionRefused('connection_not_paused');
        const sealed = this.admin.sealCredentials(connectionId, credentials);
        await this.admin.apply(em, connectionId, { selectedSignals: signals }, { providerCredentials: sealed, activationPending: true });
        if (!(await this.repo(em).complete(sessionId, verified.identity))) throw new CompletionRefused('session_expired');
      });
    } catch (error) {
      if (!(error instanceof CompletionRefused)) throw error;
      await this.repo().fail(sessionId, error.reason);
      this.runtime.logger.info({ sessionId, connectionId, method, reason: error.reason }, 'connect session failed before completion');
      return { kind: 'failed', reason: error.reason };
    }
    this.runtime.logger.info({ sessionId, connectionId, method, signals }, 'connect session complete; collection waits for the activation policy');
    const done = pageTokenHash ? await this.repo().byPageToken(pageTokenHash) : await this.repo().byId(sessionId);
    if (!done) throw new Error('completed connect session vanished');
    return { kind: 'complete', session: done };
  }

  /** Origins of the configured OAuth authorize URLs (the page's CSP lets its form redirect there). */
  oauthOrigins(): string[] {
    return Object.values(this.settings.oauth ?? {}).map((c) => new URL(c.authorizeUrl).origin);
  }

  private callbackUrl(origin: string): string {
    return `${(this.settings.publicUrl ?? origin).replace(/\/+$/, '')}${OAUTH_CALLBACK_PATH}`;
  }

  // ── helpers ──────────────────────────────────────────────────────────────────────────────────

  /**
   * The Geotab server of the operator's binding, if the gateway may call it: the configured
   * GEOTAB_BASE_URL, or an https server under geotab.com (MyGeotab databases live on many
   * `myNNN.geotab.com` hosts). Anything else is never called.
   */
  private geotabServer(server: string | undefined): string | undefined {
    if (!server) return undefined;
    const configured = this.settings.providerBaseUrls?.geotab?.replace(/\/+$/, '');
    if (server === configured) return server;
    try {
      const url = new URL(server);
      return url.protocol === 'https:' && (url.hostname === 'geotab.com' || url.hostname.endsWith('.geotab.com')) && url.pathname === '/' && !url.username && !url.port ? url.origin : undefined;
    } catch {
      return undefined;
    }
  }

  csrfFor(sessionId: string): string {
    return createHmac('sha256', this.csrfKey).update(sessionId).digest('base64url');
  }

  private csrfMatches(sessionId: string, given: string | undefined): boolean {
    if (typeof given !== 'string') return false;
    const expected = Buffer.from(this.csrfFor(sessionId));
    const actual = Buffer.from(given);
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  private async load(pageToken: string): Promise<PageState> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(pageToken)) return { kind: 'dead', reason: 'unknown' };
    const repo = this.repo();
    const session = await repo.byPageToken(sha256(pageToken));
    if (!session) return { kind: 'dead', reason: 'unknown' };
    if (session.status === 'complete' || session.status === 'failed' || session.status === 'consumed') return { kind: 'dead', reason: 'used', session };
    if (session.status === 'cancelled') return { kind: 'dead', reason: 'cancelled', session };
    if (session.expired) return { kind: 'dead', reason: 'expired', session };
    const connection = await repo.connection(session.connection_id);
    if (connection?.status !== 'paused') return { kind: 'dead', reason: 'unavailable', session };
    const binding = connection.provider === 'geotab' ? await repo.geotabBinding(connection.id) : undefined;
    const methods = enrollmentMethods(connection.provider, this.settings);
    if (methods.length === 0) return { kind: 'dead', reason: 'unavailable', session };
    const requester = (await repo.requesterName(session.consumer_key_id)) ?? 'An application';
    return { kind: 'open', page: { session, connection, ...(binding ? { binding } : {}), requester, methods, csrf: this.csrfFor(session.id) } };
  }

  private validate(page: PageContext, form: EnrollmentForm): Checked {
    const result = this.problemsOf(page, form);
    if (result.problems.length > 0 || !result.method || !result.credentials) return { ok: false, problems: result.problems };
    return { ok: true, signals: result.signals, method: result.method, credentials: result.credentials };
  }

  private problemsOf(page: PageContext, form: EnrollmentForm): { problems: FieldProblem[]; signals: SelectedSignal[]; method?: EnrollmentMethod; credentials?: Record<string, string> } {
    const problems: FieldProblem[] = [];
    const signals = [...new Set(form.signals)].filter((s): s is SelectedSignal => (SELECTED_SIGNALS as readonly string[]).includes(s));
    if (signals.length !== form.signals.length || form.signals.length !== new Set(form.signals).size) problems.push({ field: 'signals', message: 'Choose only from the signals listed.' });
    else if (signals.length === 0) problems.push({ field: 'signals', message: 'Choose at least one signal to share.' });
    if (form.accept !== 'yes') problems.push({ field: 'accept', message: 'Confirm that you have read what will be shared.' });
    const method = page.methods.find((m) => m === form.method);
    if (!method) {
      problems.push({ field: 'method', message: 'Choose how to connect your account.' });
      return { problems, signals };
    }
    const text = (v: string | undefined) => (typeof v === 'string' ? v.trim() : '');
    // OAuth: the credentials come from the provider after the redirect.
    if (method === 'oauth') return { problems, signals, method, credentials: {} };
    if (method === 'api_token') {
      const apiToken = text(form.apiToken);
      if (apiToken === '') problems.push({ field: 'apiToken', message: 'Enter the API token from your Samsara dashboard (Settings → API Tokens).' });
      else if (apiToken.length > 512 || /\s/.test(apiToken)) problems.push({ field: 'apiToken', message: 'An API token is one word without spaces.' });
      return { problems, signals, method, credentials: { apiToken } };
    }
    // service_account (Geotab): the database and server must be the ones the operator approved.
    const database = text(form.database);
    const userName = text(form.userName);
    const password = typeof form.password === 'string' ? form.password : '';
    const server = text(form.server);
    if (database === '') problems.push({ field: 'database', message: 'Enter your MyGeotab database name.' });
    else if (database !== page.binding?.database) problems.push({ field: 'database', message: 'This link is for another MyGeotab database; ask for a link for yours.' });
    if (userName === '') problems.push({ field: 'userName', message: 'Enter the service account user name.' });
    if (password === '') problems.push({ field: 'password', message: 'Enter the service account password.' });
    if (server === '') problems.push({ field: 'server', message: 'Enter your MyGeotab server.' });
    else if (server !== page.binding?.server) problems.push({ field: 'server', message: 'This link is for another MyGeotab server; ask for a link for yours.' });
    return { problems, signals, method, credentials: { database, userName, password } };
  }
}

type Checked = { ok: false; problems: FieldProblem[] } | { ok: true; signals: SelectedSignal[]; method: EnrollmentMethod; credentials: Record<string, string> };

class CompletionRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** SessionStatus of a row; `expired` once ten minutes passed, whatever the state short of complete (spec 3 rule 1). */
export function statusOf(row: SessionRow): SessionStatusV1 {
  return {
    id: row.id,
    status: row.status !== 'complete' && row.expired ? 'expired' : row.status,
    expires_at: row.expires_at,
    enrollment_method: row.enrollment_method,
    disclosure_version: row.disclosure_version,
    selected_signals: (row.selected_signals as SelectedSignal[] | null) ?? null,
    accepted_at: row.accepted_at,
    completed_at: row.completed_at,
  };
}
