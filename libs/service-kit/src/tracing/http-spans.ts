/**
 * HTTP server spans of a service's Fastify app, by `@fastify/otel` with the service's own tracer
 * provider: one SERVER span per request named `POST /v1/syncs` (method and route template), a
 * child span for the route handler (Nest's), inside which every bus request of the request is made.
 * The plugin function is applied to the instance directly, before Nest registers its routes (a
 * `register()` would load lazily, after them), so every route is wrapped and the span's onRequest
 * hook runs before ours — the gateway's request context reads the active span (request-context.ts).
 *
 * Invariants: `url.path` is the path only (the plugin records the raw URL, query string
 * included; a caller may put anything there); no exception is recorded (messages can quote input:
 * the status code says enough); health and metrics probes make no spans.
 */
import type { Span } from '@opentelemetry/api';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceTracing } from './service-tracing.js';

/** Probes every orchestrator scrapes every few seconds: no trace is wanted of them. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

export function traceHttp(fastify: FastifyInstance, tracing: ServiceTracing): void {
  const instrumentation = new FastifyOtelInstrumentation({
    recordExceptions: false,
    instrumentHooks: false,
    ignorePaths: ({ url }: { url: string }) => UNTRACED_PATHS.has(pathOf(url)),
    requestHook: (span: Span, request: FastifyRequest) => {
      span.updateName(`${request.method} ${request.routeOptions.url ?? 'unmatched'}`);
      span.setAttribute('url.path', pathOf(request.url));
    },
  });
  instrumentation.setTracerProvider(tracing.provider);
  instrumentation.plugin()(fastify, {}, () => undefined);
}
