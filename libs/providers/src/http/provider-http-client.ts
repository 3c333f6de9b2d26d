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
 * JSON was promised is `provider_response_changed`. Credentials travel only in headers the adapter
 * passes and are never logged here.
 */
import { ProviderError, reasonForStatus } from '../errors.js';
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
  fetch?: typeof fetch;
}

export interface ProviderRequest {
  method?: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | boolean | readonly string[] | undefined>;
  headers?: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
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
  private readonly doFetch: typeof fetch;

  constructor(private readonly options: HttpClientOptions) {
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.clock = options.clock ?? systemClock;
    this.budget = options.budget ?? unlimitedBudget;
    this.random = options.random ?? Math.random;
    this.doFetch = options.fetch ?? fetch;
  }

  /** Sends with retries; resolves only with a 2xx JSON response. */
  async request(req: ProviderRequest): Promise<ProviderResponse> {
    const url = this.url(req);
    const path = new URL(url).pathname;
    let lastError: ProviderError | undefined;
    for (let attempt = 1; attempt <= this.retry.maxAttempts; attempt++) {
      await this.budget.acquire(req.signal, path);
      const outcome = await this.once(url, req);
      if (outcome.kind === 'ok') return { ...outcome.response, attempts: attempt };
      lastError = outcome.error;
      if (!outcome.retryable || attempt === this.retry.maxAttempts) break;
      const backoff = this.backoff(attempt);
      const retryAfter = outcome.error.detail.retryAfterMs;
      if (retryAfter !== undefined) this.budget.pauseUntil(this.clock.now() + retryAfter, path);
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
      response = await this.doFetch(url, {
        method: req.method ?? 'GET',
        headers: {
          accept: 'application/json',
          ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(await this.options.headers?.()),
          ...req.headers,
        },
        body: req.body !== undefined ? JSON.stringify(req.body) : undefined,
        signal,
      });
      text = await response.text();
    } catch (error) {
      if (req.signal?.aborted) throw req.signal.reason as Error;
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

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
