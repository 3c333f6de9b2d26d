/**
 * One webhook attempt on the wire (decision 0042): POST the stored body with the Standard Webhooks
 * headers through the provider egress transport (libs/providers egressFetch under
 * webhookEgressPolicy: in production https to a public host only, every resolved address checked
 * where the socket connects; the sandbox allows loopback), and classify the answer.
 * - A 2xx whose status line arrives within the deadline (15 s) is a delivery. Its body is read up
 *   to 64 KiB, then the response is dropped; what it says does not matter.
 * - Redirects are never followed (the transport does not follow them): a 3xx is a failure,
 *   `redirect_refused`.
 * - `Retry-After` (seconds or an HTTP date) of a failed answer is handed back, so the schedule waits
 *   at least that long.
 * Invariant: the error vocabulary is closed (WebhookAttempt.error) and a failure never carries the
 * receiver's text, the URL's query or a secret into the delivery log.
 */
import { egressFetch, EgressRefusedError, parseRetryAfter, type EgressPolicy, type ProviderFetch } from '@switchyard/providers';

/** How much of a response body is read before it is dropped. */
export const WEBHOOK_RESPONSE_READ_LIMIT = 64 * 1024;

export type AttemptError = 'timeout' | 'connection_failed' | 'egress_refused' | 'redirect_refused' | 'http_status';

export interface AttemptResult {
  status: number | null;
  latencyMs: number;
  error: AttemptError | null;
  retryAfterMs: number | null;
}

export interface WebhookRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

export class WebhookSender {
  private readonly fetch: ProviderFetch;

  constructor(
    policy: EgressPolicy,
    private readonly timeoutMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.fetch = egressFetch(policy);
  }

  async send(request: WebhookRequest): Promise<AttemptResult> {
    const started = this.now();
    const elapsed = () => Math.max(0, Math.round(this.now() - started));
    const deadline = AbortSignal.timeout(this.timeoutMs);
    let response: Response;
    try {
      response = await this.fetch(request.url, {
        method: 'POST',
        headers: { 'content-type': 'application/cloudevents+json', 'user-agent': 'Switchyard-Webhooks/1', ...request.headers },
        body: request.body,
        signal: deadline,
        redirect: 'manual',
      });
    } catch (error) {
      return { status: null, latencyMs: elapsed(), error: failureOf(error, deadline), retryAfterMs: null };
    }
    const status = response.status;
    const latencyMs = elapsed();
    await drain(response);
    if (status >= 200 && status < 300) return { status, latencyMs, error: null, retryAfterMs: null };
    const retryAfter = parseRetryAfter(response.headers.get('retry-after'), Date.now()) ?? null;
    return { status, latencyMs, error: status >= 300 && status < 400 ? 'redirect_refused' : 'http_status', retryAfterMs: retryAfter };
  }
}

function failureOf(error: unknown, deadline: AbortSignal): AttemptError {
  if (error instanceof EgressRefusedError) return 'egress_refused';
  if (deadline.aborted) return 'timeout';
  return 'connection_failed';
}

/** Reads at most WEBHOOK_RESPONSE_READ_LIMIT bytes of the body, then lets the connection go. */
async function drain(response: Response): Promise<void> {
  const reader = response.body?.getReader();
  if (!reader) return;
  let read = 0;
  try {
    while (read <= WEBHOOK_RESPONSE_READ_LIMIT) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // A body cut off or past the deadline: the status already decided the attempt.
  }
}
