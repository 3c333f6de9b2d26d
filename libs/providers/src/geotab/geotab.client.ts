/**
 * MyGeotab JSON-RPC client: `POST <server>/apiv1` with `{method, params: {..., credentials}}`.
 *
 * Transport (request budget, timeouts, 429/5xx retries honouring Retry-After) is the shared
 * ProviderHttpClient; this file adds what is Geotab's own:
 * - Authenticate once and reuse the session; follow the returned `path` ("ThisServer" keeps the
 *   configured host, anything else becomes the host for every later call) — only when it is a bare
 *   host name the egress policy allows (production: an allow-listed `*.geotab.com` over https on a
 *   public address); otherwise the Authenticate fails with `provider_config_invalid` and the
 *   session id is never sent anywhere (serverUrl).
 * - Errors arrive as HTTP 200 `{error: {data: {type}}}`. They are mapped by `data.type` (fallback
 *   `errors[0].name`), never by `code`.
 * - `InvalidUserException` on a session call drops the session and re-authenticates ONCE per call;
 *   Authenticate is limited to 10 calls/min/user (successful and failed both count), so the client
 *   also keeps its own window of Authenticate calls and refuses an 11th within 60 s with
 *   `provider_throttled` instead of burning the provider's limit. It never loops.
 * - `OverLimitException` and `DbUnavailableException` in a 200 body are retried with the same
 *   policy as transport errors (Retry-After, from the header or `error.data.retryAfter`, always
 *   honoured), then surface as `provider_throttled` / `provider_unavailable`.
 * - Result rows are validated one by one (parseGeotabRows, the shared parseRecords): a malformed row
 *   is skipped with a reason and the rest used; the result's structure is checked as a whole.
 * Credentials (password, sessionId) travel only in request bodies and never appear in errors.
 */
import { z } from 'zod';
import { ProviderError } from '../errors.js';
import { PageRecords, parseProviderResponse, parseRecords, type ParsedRecords } from '../http/parse.js';
import { assertEgressUrl, EgressRefusedError, SANDBOX_EGRESS, type EgressPolicy } from '../http/egress.js';
import { DEFAULT_RETRY, ProviderHttpClient, type RetryPolicy } from '../http/provider-http-client.js';
import type { ProviderCallObserver } from '../http/provider-call-observer.js';
import { systemClock, unlimitedBudget, type Clock, type RequestBudget } from '../http/request-budget.js';
import { parseRetryAfter } from '../http/retry-after.js';
import { authenticateResultSchema, feedResultSchema, geotabEnvelopeSchema, type GeotabErrorBody } from './geotab.schemas.js';
import { geotabErrorReason } from './geotab.errors.js';

export interface GeotabCredentials {
  database: string;
  userName: string;
  password: string;
}

export interface GeotabClientOptions {
  baseUrl: string;
  credentials: GeotabCredentials;
  budget?: RequestBudget;
  clock?: Clock;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  random?: () => number;
  fetch?: typeof fetch;
  /** Where requests may go, the named server included (egress.ts); without one, anywhere (simulators, tests). */
  egress?: EgressPolicy;
  /** Sees every HTTP attempt (provider-call-observer.ts). */
  observer?: ProviderCallObserver;
}

/** Geotab's published cap: GetFeed returns at most 50,000 records per call (geotab.md §1.4). */
export const GEOTAB_MAX_RESULTS = 50_000;
/** Authenticate: 10 calls per minute per user (geotab.com/blog/api-call-limits). */
export const AUTHENTICATE_LIMIT = { calls: 10, windowMs: 60_000 } as const;

/** Rows of one `Get` (or one call of an ExecuteMultiCall): valid ones, skipped ones, how many were read. */
export type GeotabRows<T> = ParsedRecords<T>;

export interface FeedPage<T> {
  data: T[];
  toVersion: string;
}

/** A feed page read record by record. */
export interface FeedRows<T> extends GeotabRows<T> {
  toVersion: string;
}

type FeedOptions = { fromVersion?: string | null; search?: Record<string, unknown>; resultsLimit?: number };

/** All or nothing: the first skipped record fails the call as a response change. */
function wholly<R extends GeotabRows<unknown>>(rows: R, path: string): R {
  const first = rows.skipped[0];
  if (first) throw new ProviderError('provider_response_changed', { path, message: first.reason.slice(path.length + 1) });
  return rows;
}

/**
 * The rows of a Get result (a bare array), validated one by one (parseRecords): a malformed row is
 * skipped with its id and path; a result that is not an array, or whose every row fails, is
 * `provider_response_changed`. `idOf` names whose id a skipped row reports (its own `id` by
 * default). With `page`, the all-fail rule is left to the page (PageRecords.settle): one result of
 * an ExecuteMultiCall is only part of it.
 */
export function parseGeotabRows<S extends z.ZodType>(
  item: S,
  result: unknown,
  path: string,
  opts: { idOf?: (raw: unknown) => string | null; page?: PageRecords } = {},
): GeotabRows<z.output<S>> {
  const rows = parseProviderResponse(z.array(z.unknown()), result, path);
  const where = { path, prefix: '', ...(opts.idOf ? { idOf: opts.idOf } : {}) };
  return opts.page ? opts.page.parse(item, rows, where) : parseRecords(item, rows, where);
}

export interface GeotabCall {
  method: string;
  params: Record<string, unknown>;
}

interface Session {
  sessionId: string;
  /** Base URL for calls on this session (after following `path`). */
  baseUrl: string;
}

export class GeotabClient {
  private session: Session | null = null;
  private authenticating: Promise<Session> | null = null;
  private readonly authCalls: number[] = [];
  private readonly http = new Map<string, ProviderHttpClient>();
  private readonly clock: Clock;
  private readonly retry: RetryPolicy;
  private readonly random: () => number;

  constructor(private readonly options: GeotabClientOptions) {
    this.clock = options.clock ?? systemClock;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.random = options.random ?? Math.random;
  }

  /** Number of Authenticate calls sent in the last minute (for tests and metrics). */
  authenticateCallsInWindow(): number {
    this.pruneAuthWindow();
    return this.authCalls.length;
  }

  /** One method call on the current session, parsed with `schema`. */
  async call<S extends z.ZodType>(method: string, params: Record<string, unknown>, schema: S): Promise<z.output<S>> {
    const result = await this.callWithSession(method, params);
    return parseProviderResponse(schema, result, `geotab:${method}${typeof params['typeName'] === 'string' ? `:${params['typeName']}` : ''}`);
  }

  /** `Get` with optional search and resultsLimit (capped at 50,000), rows validated one by one (parseGeotabRows): what the adapter reads. */
  async getRows<S extends z.ZodType>(typeName: string, item: S, opts: { search?: Record<string, unknown>; resultsLimit?: number } = {}): Promise<GeotabRows<z.output<S>>> {
    const result = await this.callWithSession('Get', { typeName, ...(opts.search ? { search: opts.search } : {}), ...limit(opts.resultsLimit) });
    return parseGeotabRows(item, result, `geotab:Get:${typeName}`);
  }

  /** `Get` validated as a whole: any malformed row is `provider_response_changed` (for callers that want all or nothing). */
  async get<S extends z.ZodType>(typeName: string, item: S, opts: { search?: Record<string, unknown>; resultsLimit?: number } = {}): Promise<z.output<S>[]> {
    return wholly(await this.getRows(typeName, item, opts), `geotab:Get:${typeName}`).data;
  }

  /** `GetFeed` from `fromVersion` (or `search.fromDate` for a seed, or all history when neither), records validated one by one: what the adapter reads. */
  async getFeedRows<S extends z.ZodType>(typeName: string, item: S, opts: FeedOptions = {}): Promise<FeedRows<z.output<S>>> {
    const params = { typeName, ...(opts.fromVersion ? { fromVersion: opts.fromVersion } : {}), ...(opts.search ? { search: opts.search } : {}), ...limit(opts.resultsLimit ?? GEOTAB_MAX_RESULTS) };
    const path = `geotab:GetFeed:${typeName}`;
    const body = parseProviderResponse(feedResultSchema(z.unknown()), await this.callWithSession('GetFeed', params), path);
    return { ...parseRecords(item, body.data, { path, prefix: 'data' }), toVersion: body.toVersion };
  }

  /** `GetFeed` validated as a whole: any malformed record is `provider_response_changed`. */
  async getFeed<S extends z.ZodType>(typeName: string, item: S, opts: FeedOptions = {}): Promise<FeedPage<z.output<S>>> {
    const page = wholly(await this.getFeedRows(typeName, item, opts), `geotab:GetFeed:${typeName}`);
    return { data: page.data, toVersion: page.toVersion };
  }

  /** `ExecuteMultiCall`: several calls in one HTTP request; results in order, raw (parse per call). */
  async multiCall(calls: readonly GeotabCall[]): Promise<unknown[]> {
    if (calls.length === 0) return [];
    const result = await this.callWithSession('ExecuteMultiCall', { calls });
    if (!Array.isArray(result) || result.length !== calls.length) {
      throw new ProviderError('provider_response_changed', { path: 'geotab:ExecuteMultiCall', message: 'result is not one entry per call' });
    }
    return result;
  }

  /** Drops the cached session (the next call authenticates). */
  forgetSession(): void {
    this.session = null;
  }

  private async callWithSession(method: string, params: Record<string, unknown>): Promise<unknown> {
    let reauthenticated = false;
    for (;;) {
      const session = await this.ensureSession();
      const credentials = { database: this.options.credentials.database, userName: this.options.credentials.userName, sessionId: session.sessionId };
      try {
        return await this.rpc(session.baseUrl, method, { ...params, credentials });
      } catch (error) {
        // Expired or revoked session: one fresh Authenticate per call, never a loop. If the fresh
        // session is refused too, the credential itself is bad: provider_auth_required.
        if (error instanceof GeotabRpcError && error.type === 'InvalidUserException' && !reauthenticated) {
          reauthenticated = true;
          if (this.session === session) this.session = null;
          continue;
        }
        throw error instanceof GeotabRpcError ? error.toProviderError() : error;
      }
    }
  }

  private ensureSession(): Promise<Session> {
    if (this.session) return Promise.resolve(this.session);
    // Concurrent callers share one Authenticate (the 10/min limit makes a stampede expensive).
    this.authenticating ??= this.authenticate().finally(() => (this.authenticating = null));
    return this.authenticating;
  }

  private async authenticate(): Promise<Session> {
    this.pruneAuthWindow();
    if (this.authCalls.length >= AUTHENTICATE_LIMIT.calls) {
      const retryAfterMs = this.authCalls[0] + AUTHENTICATE_LIMIT.windowMs - this.clock.now();
      throw new ProviderError('provider_throttled', { path: 'geotab:Authenticate', retryAfterMs, message: 'Authenticate limit (10/min) reached locally' });
    }
    this.authCalls.push(this.clock.now());
    const { database, userName, password } = this.options.credentials;
    let raw: unknown;
    try {
      raw = await this.rpc(this.options.baseUrl, 'Authenticate', { database, userName, password });
    } catch (error) {
      if (error instanceof GeotabRpcError) throw error.toProviderError('authenticate');
      throw error;
    }
    const result = parseProviderResponse(authenticateResultSchema, raw, 'geotab:Authenticate');
    let baseUrl: string;
    try {
      baseUrl = serverUrl(this.options.baseUrl, result.path, this.options.egress);
    } catch (error) {
      // The session id is dropped here: it never travels to a server we refuse.
      if (error instanceof EgressRefusedError) throw new ProviderError('provider_config_invalid', { path: 'geotab:Authenticate', message: error.message });
      throw error;
    }
    const session = { sessionId: result.credentials.sessionId, baseUrl };
    this.session = session;
    return session;
  }

  /**
   * One JSON-RPC exchange with in-body retries: OverLimitException and DbUnavailableException are
   * retried under the same attempt budget as transport errors; other in-body errors are final.
   */
  private async rpc(baseUrl: string, method: string, params: Record<string, unknown>): Promise<unknown> {
    const http = this.httpFor(baseUrl);
    for (let attempt = 1; ; attempt++) {
      const response = await http.request({ method: 'POST', path: 'apiv1', body: { method, params }, endpoint: method, judge: (json) => inBodyError(json, method) });
      const envelope = parseProviderResponse(geotabEnvelopeSchema, response.json, `geotab:${method}`);
      if (envelope.kind === 'result') return envelope.result;
      const error = new GeotabRpcError(envelope.error, method, parseRetryAfter(response.headers.get('retry-after'), this.clock.now()) ?? retryAfterFromData(envelope.error, this.clock.now()));
      const retryable = error.type === 'OverLimitException' || error.type === 'DbUnavailableException';
      if (!retryable || attempt >= this.retry.maxAttempts || error.isConfigProblem()) throw error;
      const backoff = Math.floor(this.random() * Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1)));
      if (error.retryAfterMs !== undefined) this.options.budget?.pauseUntil(this.clock.now() + error.retryAfterMs);
      await this.clock.sleep(Math.max(backoff, error.retryAfterMs ?? 0));
    }
  }

  private httpFor(baseUrl: string): ProviderHttpClient {
    let client = this.http.get(baseUrl);
    if (!client) {
      const { budget, clock, timeoutMs, retry, random, fetch, egress, observer } = this.options;
      client = new ProviderHttpClient({ baseUrl, budget: budget ?? unlimitedBudget, clock, timeoutMs, retry, random, fetch, egress, provider: 'geotab', observer });
      this.http.set(baseUrl, client);
    }
    return client;
  }

  private pruneAuthWindow(): void {
    const cutoff = this.clock.now() - AUTHENTICATE_LIMIT.windowMs;
    while (this.authCalls.length > 0 && this.authCalls[0] <= cutoff) this.authCalls.shift();
  }
}

/** An in-body JSON-RPC error as the call observer's error (OverLimitException → provider_throttled); undefined for a result. */
function inBodyError(json: unknown, method: string): ProviderError | undefined {
  const envelope = geotabEnvelopeSchema.safeParse(json);
  return envelope.success && envelope.data.kind === 'error' ? new GeotabRpcError(envelope.data.error, method, undefined).toProviderError() : undefined;
}

/** An in-body JSON-RPC error, before it becomes a ProviderError. */
export class GeotabRpcError extends Error {
  readonly type: string;
  constructor(
    readonly body: GeotabErrorBody,
    readonly method: string,
    readonly retryAfterMs: number | undefined,
  ) {
    const type = body.data?.type ?? body.errors?.[0]?.name ?? body.name ?? 'UnknownException';
    super(`${method}: ${type}`);
    this.type = type;
  }

  isConfigProblem(): boolean {
    return geotabErrorReason(this.type, this.body.message ?? '', 'session') === 'provider_config_invalid';
  }

  toProviderError(phase: 'authenticate' | 'session' = 'session'): ProviderError {
    const code = geotabErrorReason(this.type, this.body.message ?? '', phase);
    // Only the exception type goes into the message: Geotab messages can echo user names.
    return new ProviderError(code, { path: `geotab:${this.method}`, message: this.type, ...(this.retryAfterMs !== undefined ? { retryAfterMs: this.retryAfterMs } : {}) });
  }
}

function limit(resultsLimit: number | undefined): { resultsLimit?: number } {
  return resultsLimit === undefined ? {} : { resultsLimit: Math.min(Math.max(1, Math.floor(resultsLimit)), GEOTAB_MAX_RESULTS) };
}

/** Some OverLimit bodies carry the wait in `error.data.retryAfter` (seconds; unconfirmed). */
function retryAfterFromData(error: GeotabErrorBody, now: number): number | undefined {
  const value = error.data?.retryAfter;
  if (value === undefined || value === null) return undefined;
  return parseRetryAfter(String(value), now);
}

/**
 * "ThisServer" keeps the configured base URL; a host name replaces the host, keeping the scheme.
 * The named server must be a bare host name (in the sandbox also `host:port`, for simulators) —
 * no user information, path, query or fragment — that the egress policy allows; otherwise
 * EgressRefusedError.
 */
export function serverUrl(configured: string, path: string, egress: EgressPolicy = SANDBOX_EGRESS): string {
  if (path === 'ThisServer') return configured;
  const url = new URL(configured);
  const host = path.replace(/^https?:\/\//i, '').replace(/\/$/, '');
  const shape = egress.mode === 'production' ? /^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/i : /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;
  if (!shape.test(host)) throw new EgressRefusedError('the server Geotab named is not a host name');
  const named = new URL(`${url.protocol}//${host}`);
  assertEgressUrl(named, egress);
  return named.origin;
}
