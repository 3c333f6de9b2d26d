/**
 * The one HTTP client every adapter uses to reach a provider (real, or our simulator: only the
 * base URL differs). Per request: take a token from the account's request budget, send with a
 * timeout, and retry what is retryable —
 * - 429: wait at least `Retry-After` (always honoured; also pauses the account's budget, or only
 *   the endpoint's tier when the budget keeps one for the path — the budget gets the path), then
 *   back off exponentially with full jitter on repeats;
 * - 5xx, timeouts and network errors: exponential backoff with full jitter;
 * - anything else is final.
 * Final failures become ProviderError with the spec's reason code; a body that is not JSON where
 * JSON was promised, or larger than `maxResponseBytes` (16 MiB by default; the deadline `timeoutMs`
 * covers reading it too), is `provider_response_changed`. Credentials travel only in headers the adapter
 * passes and are never logged here.
 *
 * Where requests may go is the egress policy's (egress.ts: allow-listed https provider hosts on
 * public addresses outside the sandbox; a refusal is a final `provider_config_invalid`). Redirects
 * are followed only within the request's origin (at most 5; 303, and 301/302 after a POST, become
 * a GET without body); a redirect to another origin is a final `provider_config_invalid` and is
 * never requested, so no credential header reaches another host.
 */
import type { Provider } from '@switchyard/domain';
import { ProviderError, reasonForStatus } from '../errors.js';
import type { ProviderCallObserver } from './provider-call-observer.js';
import { assertEgressUrl, EgressRefusedError, egressFetch, SANDBOX_EGRESS, type EgressPolicy, type ProviderFetch } from './egress.js';
import { systemClock, unlimitedBudget, type Clock, type RequestBudget } from './request-budget.js';
import { parseRetryAfter } from './retry-after.js';

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 250, maxDelayMs: 20_000 };

export interface HttpClientOptions {
  baseUrl: string;
  budget?: RequestBudget;
  retry?: Partial<RetryPolicy>;
  timeoutMs?: number;
  clock?: Clock;
  /** Random source in [0, 1) for jitter; injectable so tests are exact. */
  random?: () => number;
  /** Headers added to every request (auth). */
  headers?: () => Record<string, string> | Promise<Record<string, string>>;
  /** Where requests may go (egress.ts); without one, anywhere over http(s): simulators and tests. */
  egress?: EgressPolicy;
  /** Replaces the transport (then `egress` only checks URLs). */
  fetch?: ProviderFetch;
  /** Largest response body read (bytes); a larger one is a final `provider_response_changed`. Default MAX_RESPONSE_BYTES. */
  maxResponseBytes?: number;
  /** The provider this client speaks to (named to `observer`). */
  provider?: Provider;
  /** Sees every attempt (provider-call-observer.ts): spans, metrics. */
  observer?: ProviderCallObserver;
}

/**
 * Largest provider response body read: 16 MiB, far above a page of the few hundred records an
 * adapter asks for (docs/reliability.md). A provider streaming without end is cut off here, not in memory.
 */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

class ResponseTooLargeError extends Error {}

/** The body as text, refusing more than `limit` bytes (by Content-Length at once, else while reading). */
async function readCapped(response: Response, limit: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel();
    throw new ResponseTooLargeError();
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let read = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    read += value.byteLength;
    if (read > limit) {
      await reader.cancel();
      throw new ResponseTooLargeError();
    }
    text += decoder.decode(value, { stream: true });
  }
}

/** Redirect statuses the client follows within the origin. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

export interface ProviderRequest {
  method?: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | boolean | readonly string[] | undefined>;
  headers?: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
  /** Low-cardinality endpoint name for the observer (a path template, a JSON-RPC method); default the path. */
  endpoint?: string;
  /**
   * For the observer only: the failure a 2xx body states (Geotab's in-body JSON-RPC errors —
   * OverLimitException is its 429), told as the attempt's error; the response is returned as it is.
   */
  judge?: (json: unknown) => ProviderError | undefined;
}

export interface ProviderResponse {
  status: number;
  headers: Headers;
  json: unknown;
  attempts: number;
}

export class ProviderHttpClient {
  private readonly retry: RetryPolicy;
  private readonly clock: Clock;
  private readonly budget: RequestBudget;
  private readonly random: () => number;
  private readonly doFetch: ProviderFetch;
  private readonly egress: EgressPolicy;

  constructor(private readonly options: HttpClientOptions) {
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.clock = options.clock ?? systemClock;
    this.budget = options.budget ?? unlimitedBudget;
    this.random = options.random ?? Math.random;
    this.egress = options.egress ?? SANDBOX_EGRESS;
    this.doFetch = options.fetch ?? egressFetch(this.egress);
  }

  /** Sends with retries; resolves only with a 2xx JSON response. */
  async request(req: ProviderRequest): Promise<ProviderResponse> {
    const url = this.url(req);
    const path = new URL(url).pathname;
    try {
      assertEgressUrl(new URL(url), this.egress);
    } catch (error) {
      throw refused(error, path);
    }
    let lastError: ProviderError | undefined;
    for (let attempt = 1; attempt <= this.retry.maxAttempts; attempt++) {
      await this.budget.acquire(req.signal, path);
      const outcome = await this.observed(url, path, req, attempt);
      if (outcome.kind === 'ok') return { ...outcome.response, attempts: attempt };
      lastError = outcome.error;
      // The provider's wait holds for every caller on the budget, also when this one gives up now.
      const retryAfter = outcome.error.detail.retryAfterMs;
      if (retryAfter !== undefined) this.budget.pauseUntil(this.clock.now() + retryAfter, path);
      if (!outcome.retryable || attempt === this.retry.maxAttempts) break;
      const backoff = this.backoff(attempt);
      await this.clock.sleep(Math.max(backoff, retryAfter ?? 0), req.signal);
    }
    throw lastError ?? new ProviderError('provider_unavailable');
  }

  /** Full jitter: uniform in [0, min(max, base · 2^(attempt-1))]. */
  backoff(attempt: number): number {
    const ceiling = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
    return Math.floor(this.random() * ceiling);
  }

  private url(req: ProviderRequest): string {
    const url = new URL(req.path, this.options.baseUrl.endsWith('/') ? this.options.baseUrl : `${this.options.baseUrl}/`);
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (value === undefined) continue;
      url.searchParams.set(key, Array.isArray(value) ? value.join(',') : String(value));
    }
    return url.toString();
  }

  /** One attempt, shown to the observer (when there is one) as it starts and as it ends. */
  private async observed(url: string, path: string, req: ProviderRequest, attempt: number): ReturnType<ProviderHttpClient['once']> {
    const observer = this.options.observer;
    if (!observer) return this.once(url, req);
    const method = req.method ?? 'GET';
    const end = observer.start({ provider: this.options.provider, method, origin: new URL(url).origin, path, endpoint: req.endpoint ?? path, attempt });
    let outcome: Awaited<ReturnType<ProviderHttpClient['once']>> | undefined;
    try {
      outcome = await this.once(url, req);
      return outcome;
    } finally {
      // A caller's abort rejects `once` without an outcome: the attempt ends without a status.
      if (outcome === undefined) end({});
      else if (outcome.kind === 'ok') {
        const stated = req.judge?.(outcome.response.json);
        end({ status: outcome.response.status, ...(stated ? { error: stated } : {}) });
      } else end({ status: outcome.error.detail.status, error: outcome.error });
    }
  }

  private async once(
    url: string,
    req: ProviderRequest,
  ): Promise<{ kind: 'ok'; response: Omit<ProviderResponse, 'attempts'> } | { kind: 'error'; error: ProviderError; retryable: boolean }> {
    const path = new URL(url).pathname;
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? 30_000);
    const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
    let response: Response;
    let text: string;
    try {
      let current = url;
      let method: string = req.method ?? 'GET';
      let body = req.body !== undefined ? JSON.stringify(req.body) : undefined;
      for (let hop = 0; ; hop++) {
        response = await this.doFetch(current, {
          method,
          headers: {
            accept: 'application/json',
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...(await this.options.headers?.()),
            ...req.headers,
          },
          body,
          signal,
          redirect: 'manual',
        });
        if (!REDIRECTS.has(response.status)) break;
        await response.body?.cancel();
        const location = response.headers.get('location');
        const next = location ? new URL(location, current) : null;
        // Another origin is never requested: the credential headers must not reach it.
        if (!next || next.origin !== new URL(current).origin || hop >= MAX_REDIRECTS) {
          const why = !next ? 'a redirect without Location' : hop >= MAX_REDIRECTS ? 'too many redirects' : 'a redirect to another origin';
          return { kind: 'error', error: new ProviderError('provider_config_invalid', { status: response.status, path, message: `${why} refused` }), retryable: false };
        }
        if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
        }
        current = next.toString();
      }
      text = await readCapped(response, this.options.maxResponseBytes ?? MAX_RESPONSE_BYTES);
    } catch (error) {
      if (req.signal?.aborted) throw req.signal.reason as Error;
      if (error instanceof ResponseTooLargeError) {
        const limit = this.options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
        return { kind: 'error', error: new ProviderError('provider_response_changed', { path, message: `response body over ${limit} bytes` }), retryable: false };
      }
      if (error instanceof EgressRefusedError) return { kind: 'error', error: refused(error, path), retryable: false };
      const timedOut = timeout.aborted;
      return { kind: 'error', error: new ProviderError('provider_unavailable', { path, message: timedOut ? 'timeout' : errorMessage(error) }), retryable: true };
    }
    if (response.status < 200 || response.status >= 300) {
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), this.clock.now());
      const code = reasonForStatus(response.status);
      const retryable = response.status === 429 || response.status >= 500;
      return { kind: 'error', error: new ProviderError(code, { status: response.status, retryAfterMs, path }), retryable };
    }
    try {
      return { kind: 'ok', response: { status: response.status, headers: response.headers, json: text ? (JSON.parse(text) as unknown) : null } };
    } catch {
      return { kind: 'error', error: new ProviderError('provider_response_changed', { status: response.status, path, message: 'body is not JSON' }), retryable: false };
    }
  }
}

/** An egress refusal as the final reason code (the message names why, never a credential). */
function refused(error: unknown, path: string): ProviderError {
  if (error instanceof EgressRefusedError) return new ProviderError('provider_config_invalid', { path, message: error.message });
  return new ProviderError('provider_config_invalid', { path, message: `egress refused: ${errorMessage(error)}` });
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
