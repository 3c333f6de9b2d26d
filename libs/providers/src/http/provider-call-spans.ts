/**
 * A client span per provider HTTP attempt (OpenTelemetry HTTP client conventions), from the call
 * observer (provider-call-observer.ts): `GET /fleet/vehicles/stats`, with the provider, the
 * endpoint, the status and, for a failure, the reason code — child of whatever span is active (the
 * collector's job).
 * Invariant: an attribute holds only what the observer is given — origin, path, method, status,
 * reason code — so no credential (Authorization or X-Api-Key headers, Geotab's password in the
 * body, a key in a query string) can reach a span. `url.full` is origin + path: the query string
 * is left out on purpose (provider-call-spans.spec.ts fails when it is kept).
 * The trace context is not sent to the provider: a third party learns nothing of our traces.
 */
import { SpanKind, SpanStatusCode, type Attributes, type Tracer } from '@opentelemetry/api';
import type { ProviderCallObserver } from './provider-call-observer.js';

/** Our attribute for the provider's name (no semantic convention names one). */
export const PROVIDER_ATTRIBUTE = 'switchyard.provider';

export function providerCallSpans(tracer: Tracer): ProviderCallObserver {
  return {
    start(call) {
      const origin = new URL(call.origin);
      const attributes: Attributes = {
        'http.request.method': call.method,
        'url.full': `${call.origin}${call.path}`,
        'url.path': call.path,
        'url.template': call.endpoint,
        'server.address': origin.hostname,
        'server.port': Number(origin.port) || (origin.protocol === 'https:' ? 443 : 80),
        [PROVIDER_ATTRIBUTE]: call.provider ?? 'unknown',
      };
      if (call.attempt > 1) attributes['http.request.resend_count'] = call.attempt - 1;
      const span = tracer.startSpan(`${call.method} ${call.endpoint}`, { kind: SpanKind.CLIENT, attributes });
      return ({ status, error }) => {
        if (status !== undefined) span.setAttribute('http.response.status_code', status);
        if (error) {
          span.setAttribute('error.type', error.code);
          span.setStatus({ code: SpanStatusCode.ERROR, message: error.code });
        }
        span.end();
      };
    },
  };
}
