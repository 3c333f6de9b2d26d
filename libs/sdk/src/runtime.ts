// The hand-written part of @switchyard/sdk: credentials, URLs and query strings as the document
// declares them, retries with a bounded budget, typed errors and paging. Everything operation-specific
// comes from the generated table (./generated/openapi.ts); see docs/decisions/0035-typescript-sdk.md.
import { OPERATIONS, REASON_CODES, type OperationId, type Operations, type ReasonCode } from './generated/openapi.js';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  maxRetries?: number;
  /** Time a call may spend across its attempts and waits, in ms (default 30 000); a wait that would pass it is not started. */
  budgetMs?: number;
  /** First backoff step without `Retry-After`, in ms (default 500); doubles per retry, jittered. */
  baseDelayMs?: number;
  /** Largest backoff step without `Retry-After`, in ms (default 8 000). */
  maxDelayMs?: number;
  /** How a wait is spent (default: a timer that the call's AbortSignal ends). Tests record the waits here. */
  sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
}

export interface ClientOptions {
  /** Where the API answers, e.g. `http://127.0.0.1:3000` (a path prefix is kept). */
  baseUrl: string;
  /** `sk_…` application secret: the sync routes (`/v1/syncs…`), always with a connection token. */
  applicationSecret?: string;
  /** `ct_…` connection token sent as `Connection-Token` on the sync routes (per call: RequestOptions.connectionToken). */
  connectionToken?: string;
  /** `pt_…` consumer key: every read route. Server-side only; never ship it to a browser. */
  consumerKey?: string;
  /** Time one attempt may take, in ms (default 30 000). */
  timeoutMs?: number;
  /** A fetch implementation (default: the global fetch). */
  fetch?: FetchLike;
  /** Retry policy, or false for none. */
  retry?: RetryOptions | false;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

export interface RequestOptions {
  /** Ends the call (waits included); the fetch rejects with the signal's reason. */
  signal?: AbortSignal;
  timeoutMs?: number;
  /** `Connection-Token` of this sync call, instead of ClientOptions.connectionToken. */
  connectionToken?: string;
  /** Sent as `x-request-id` (1-128 chars of `[A-Za-z0-9._:-]`) to correlate with the server's logs. */
  requestId?: string;
  headers?: Record<string, string>;
  retry?: RetryOptions | false;
}

/** Statuses a call is retried on (when it is safe to repeat): timeout, rate limit, gateway and availability. */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([408, 429, 502, 503, 504]);
const REASONS: ReadonlySet<string> = new Set(REASON_CODES);

export class SwitchyardError extends Error {
  override name = 'SwitchyardError';
}

/** The API answered with an error status. */
export class SwitchyardApiError extends SwitchyardError {
  override name = 'SwitchyardApiError';
  constructor(
    readonly operationId: OperationId,
    readonly status: number,
    /** The documented reason code of the `{"error": …}` body; undefined when the body named none (e.g. a proxy's page). */
    readonly code: ReasonCode | undefined,
    /** `Retry-After` of the answer in seconds, when it carried one. */
    readonly retryAfter: number | undefined,
    /** `x-request-id` of the answer. */
    readonly requestId: string | undefined,
    /** `Switchyard-Error-Detail` of the answer, e.g. `in=query, name="from", reason=unencoded_plus`. */
    readonly detail: string | undefined,
  ) {
    super(`${operationId}: ${status} ${code ?? 'unrecognized error body'}${detail ? ` (${detail})` : ''}${requestId ? ` [request ${requestId}]` : ''}`);
  }
}

/** No answer: the connection failed or was reset. */
export class SwitchyardConnectionError extends SwitchyardError {
  override name = 'SwitchyardConnectionError';
  constructor(
    readonly operationId: OperationId,
    cause: unknown,
  ) {
    super(`${operationId}: connection failed (${causeText(cause)})`, { cause });
  }
}

/** No answer within the attempt's timeout. */
export class SwitchyardTimeoutError extends SwitchyardError {
  override name = 'SwitchyardTimeoutError';
  constructor(
    readonly operationId: OperationId,
    readonly timeoutMs: number,
  ) {
    super(`${operationId}: no answer within ${timeoutMs} ms`);
  }
}

function causeText(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const code = (cause as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : cause instanceof Error ? cause.message : String(cause);
}

type OperationTable = typeof OPERATIONS;
/** Operations that take a cursor: their pages are walked by Paged. */
export type PagedOperationId = { [K in OperationId]: OperationTable[K]['items'] extends readonly [] ? never : K }[OperationId];
export type PageOf<Id extends OperationId> = Operations[Id]['response'];
type ItemsIn<P, K> = P extends unknown ? (K extends keyof P ? (P[K] extends readonly (infer I)[] ? I : never) : never) : never;
/** One item of a paged operation's pages (each page variant's item array). */
export type ItemOf<Id extends PagedOperationId> = ItemsIn<PageOf<Id>, OperationTable[Id]['items'][number]>;

/** The cursor of the page after this one, or undefined on the last page (`next` absent, `nextCursor` null, or `hasMore` false). */
export function nextCursor(page: unknown): string | undefined {
  if (typeof page !== 'object' || page === null) return undefined;
  const p = page as { next?: unknown; nextCursor?: unknown; hasMore?: unknown };
  if (p.hasMore === false) return undefined;
  const cursor = p.next ?? p.nextCursor;
  return typeof cursor === 'string' && cursor !== '' ? cursor : undefined;
}

/**
 * A paged call: `await` it for the first page (or the page at `query.cursor`), `for await` it for
 * every item across pages, or walk `.pages()` a page at a time.
 */
export class Paged<Id extends PagedOperationId> implements AsyncIterable<ItemOf<Id>>, PromiseLike<PageOf<Id>> {
  #first: Promise<PageOf<Id>> | undefined;

  constructor(
    private readonly fetchPage: (cursor: string | undefined) => Promise<PageOf<Id>>,
    private readonly itemKeys: readonly string[],
    private readonly startCursor: string | undefined,
  ) {}

  then<A = PageOf<Id>, B = never>(onfulfilled?: ((page: PageOf<Id>) => A | PromiseLike<A>) | null, onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    this.#first ??= this.fetchPage(this.startCursor);
    return this.#first.then(onfulfilled, onrejected);
  }

  /** Every page from the first, following the cursor until the last page. */
  async *pages(): AsyncGenerator<PageOf<Id>, void, undefined> {
    let cursor = this.startCursor;
    for (;;) {
      const page = await this.fetchPage(cursor);
      yield page;
      cursor = nextCursor(page);
      if (cursor === undefined) return;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<ItemOf<Id>, void, undefined> {
    for await (const page of this.pages()) {
      for (const key of this.itemKeys) {
        const items = (page as Record<string, unknown>)[key];
        if (Array.isArray(items)) yield* items as ItemOf<Id>[];
      }
    }
  }
}

type QueryValue = string | number | boolean | Date | readonly (string | number)[] | undefined | null;

/** Query string of an operation exactly as the document declares its parameters (style, explode, date-times). */
export function serializeQuery(id: OperationId, query: Readonly<Record<string, unknown>>): string {
  const declared: Readonly<Record<string, { kind: string; style?: string; explode?: boolean }>> = OPERATIONS[id].query;
  const parts: string[] = [];
  const encode = (v: unknown): string => encodeURIComponent(v instanceof Date ? v.toISOString() : String(v));
  for (const [name, raw] of Object.entries(query)) {
    const value = raw as QueryValue;
    if (value === undefined || value === null) continue;
    const spec = declared[name];
    // The server refuses an undeclared parameter (400 invalid_query); say so before sending.
    if (!spec) throw new TypeError(`${id}: "${name}" is not a query parameter of this operation`);
    const key = encodeURIComponent(name);
    if (spec.kind === 'array') {
      const items = Array.isArray(value) ? (value as unknown[]) : [value];
      if (spec.explode) for (const item of items) parts.push(`${key}=${encode(item)}`);
      else parts.push(`${key}=${items.map(encode).join(spec.style === 'pipeDelimited' ? '|' : spec.style === 'spaceDelimited' ? '%20' : ',')}`);
    } else {
      parts.push(`${key}=${encode(value)}`);
    }
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

/** Retry-After (seconds or an HTTP date) or retry-after-ms, in ms. */
function retryAfterMs(headers: Headers): number | undefined {
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.has('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  const seconds = Number(value);
  if (value.trim() !== '' && Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function sleepFor(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

async function apiError(id: OperationId, response: Response): Promise<SwitchyardApiError> {
  let code: ReasonCode | undefined;
  try {
    const body = (await response.json()) as { error?: unknown } | null;
    if (typeof body?.error === 'string' && REASONS.has(body.error)) code = body.error as ReasonCode;
  } catch {
    code = undefined; // not JSON: no documented reason code
  }
  const after = retryAfterMs(response.headers);
  return new SwitchyardApiError(
    id,
    response.status,
    code,
    after === undefined ? undefined : Math.ceil(after / 1000),
    response.headers.get('x-request-id') ?? undefined,
    response.headers.get('switchyard-error-detail') ?? undefined,
  );
}

/** What the generated methods call (./generated/openapi.ts bindMethods). */
export interface Caller {
  call<Id extends OperationId>(id: Id, path: Operations[Id]['path'], query: Operations[Id]['query'], body: Operations[Id]['body'] | undefined, options?: RequestOptions): Promise<Operations[Id]['response']>;
  paged<Id extends PagedOperationId>(id: Id, path: Operations[Id]['path'], query: Operations[Id]['query'], options?: RequestOptions): Paged<Id>;
}

export class Runtime implements Caller {
  private readonly baseUrl: string;
  private readonly fetchImpl: FetchLike;

  constructor(private readonly options: ClientOptions) {
    if (!options.baseUrl) throw new TypeError('baseUrl is required');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  }

  paged<Id extends PagedOperationId>(id: Id, path: Operations[Id]['path'], query: Operations[Id]['query'], options?: RequestOptions): Paged<Id> {
    const { cursor, ...filters } = query as Record<string, unknown>;
    const fetchPage = (at: string | undefined): Promise<PageOf<Id>> =>
      this.call(id, path, { ...filters, ...(at === undefined ? {} : { cursor: at }) } as Operations[Id]['query'], undefined, options);
    return new Paged<Id>(fetchPage, OPERATIONS[id].items, typeof cursor === 'string' ? cursor : undefined);
  }

  async call<Id extends OperationId>(id: Id, path: Operations[Id]['path'], query: Operations[Id]['query'], body: Operations[Id]['body'] | undefined, options: RequestOptions = {}): Promise<Operations[Id]['response']> {
    const op = OPERATIONS[id];
    const pathValues = path as Record<string, unknown>;
    const route = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const value = pathValues[name];
      if (typeof value !== 'string' || value === '') throw new TypeError(`${id}: path parameter "${name}" is required`);
      return encodeURIComponent(value);
    });
    const url = `${this.baseUrl}${route}${serializeQuery(id, query as Record<string, unknown>)}`;
    const headers: Record<string, string> = { accept: 'application/json', ...this.options.headers, ...options.headers };
    if (op.security === 'consumerKey') {
      if (!this.options.consumerKey) throw new TypeError(`${id} needs the consumerKey option (pt_…)`);
      headers.authorization = `Bearer ${this.options.consumerKey}`;
    } else if (op.security === 'applicationSecret') {
      if (!this.options.applicationSecret) throw new TypeError(`${id} needs the applicationSecret option (sk_…)`);
      headers.authorization = `Bearer ${this.options.applicationSecret}`;
    }
    if (op.connectionToken) {
      const token = options.connectionToken ?? this.options.connectionToken;
      if (!token) throw new TypeError(`${id} needs a connection token (ct_…): the connectionToken option or RequestOptions.connectionToken`);
      headers['connection-token'] = token;
    }
    if (options.requestId) headers['x-request-id'] = options.requestId;
    let payload: string | undefined;
    if (body !== undefined && op.body) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const response = await this.send(id, op.idempotent, url, { method: op.method, headers, body: payload }, options);
    if (response.status === 204) return undefined as unknown as Operations[Id]['response'];
    const text = await response.text();
    return (text === '' ? undefined : JSON.parse(text)) as Operations[Id]['response'];
  }

  /**
   * One call with its retries. Retried: 408/429/502/503/504, connection failures and attempt timeouts,
   * only when repeating the call is safe (`idempotent`: a GET, or a route whose server honours an
   * Idempotency-Key — none today). Waits honour Retry-After, else jittered exponential backoff;
   * no wait starts that would pass the budget.
   */
  private async send(id: OperationId, idempotent: boolean, url: string, init: RequestInit, options: RequestOptions): Promise<Response> {
    const policy = options.retry ?? this.options.retry ?? {};
    const maxRetries = policy === false || !idempotent ? 0 : (policy.maxRetries ?? 3);
    const budgetMs = policy === false ? 0 : (policy.budgetMs ?? 30_000);
    const baseDelayMs = policy === false ? 0 : (policy.baseDelayMs ?? 500);
    const maxDelayMs = policy === false ? 0 : (policy.maxDelayMs ?? 8_000);
    const sleep = (policy === false ? undefined : policy.sleep) ?? sleepFor;
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? 30_000;
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
      let failure: SwitchyardError;
      let waitMs: number | undefined;
      try {
        const response = await this.fetchImpl(url, { ...init, signal });
        if (response.ok) return response;
        failure = await apiError(id, response);
        if (!RETRY_STATUSES.has(response.status)) throw failure;
        waitMs = retryAfterMs(response.headers);
      } catch (error) {
        if (error instanceof SwitchyardApiError) throw error;
        if (options.signal?.aborted) throw options.signal.reason as Error;
        failure = timeout.aborted ? new SwitchyardTimeoutError(id, timeoutMs) : new SwitchyardConnectionError(id, error);
      }
      if (attempt >= maxRetries) throw failure;
      const backoff = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
      // Retry-After is a floor; jitter goes on top of it, so clients told the same second spread out.
      const delay = waitMs === undefined ? backoff / 2 + (Math.random() * backoff) / 2 : waitMs + Math.random() * Math.min(baseDelayMs, waitMs / 4);
      if (Date.now() - started + delay > budgetMs) throw failure;
      await sleep(delay, options.signal);
    }
  }
}
