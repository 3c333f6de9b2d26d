/**
 * Per-request plumbing on the Fastify instance: a request id (the caller's `x-request-id` when it is
 * a short printable token, else a new uuid) echoed in the response header and set as the
 * correlation id of everything the request causes; one access-log line per request (method,
 * route, status, duration — never headers, so credentials cannot leak — and, for an error, its
 * reason code and what exactly was wrong); HTTP metrics.
 * A request without a Host header reaches Fastify (`requireHostHeader: false`; Node's own check
 * would answer an empty 400) and is refused here in the contract's shape.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { activeTraceparent, correlationIdFrom, enterCorrelation, traceparentFrom, type Logger, type ServiceMetrics } from '@switchyard/service-kit';
import { ApiError } from './api-error.js';
import { contractClientErrorHandler } from './client-error.js';
import { errorOutcomeOf, frameworkErrors } from './error.filter.js';

export function requestIdFor(req: { headers: Record<string, unknown> }): string {
  return correlationIdFrom(req.headers['x-request-id']);
}

/**
 * Longest path parameter the router passes to a route: above Node's 16 KiB limit on the request
 * line and headers, so every id that arrives at all reaches its route and gets that route's answer
 * to a malformed id (400 `invalid_path` for entity ids, 404 for connection and sync ids), whatever
 * its length; Fastify's default (100) made a 101-character id a 404 from the router.
 */
export const MAX_PARAM_LENGTH = 16_384;

/**
 * Fastify server options the gateway needs: our request ids; router, parser and client errors in
 * our shape; one trailing slash ignored (`/v1/syncs/` is `/v1/syncs`, as most HTTP clients and
 * proxies treat them alike; the document lists the paths without it).
 */
/**
 * Slow-client limits (issue 14; docs/reliability.md): a request's headers must arrive within
 * 10 s and the whole request (headers and body) within 30 s, else 408 `request_timeout`
 * (client-error.ts) and the connection is closed; Node checks both every second. None of them
 * bounds how long a response may take.
 *
 * An idle keep-alive connection is closed after 72 s (Fastify's default): longer than the idle
 * timeout of the load balancers in front of a gateway (60 s is common), and than clients keep
 * idle sockets, because whoever closes an idle connection second races a request sent on it —
 * the client gets ECONNRESET. With 5 s, an integrator's client (Node's fetch keeps sockets for
 * the server's hint minus 1–2 s) whose event loop stalled a moment reused a socket the gateway
 * had just closed: seen as ECONNRESET in the cross-connection suite under CI load.
 */
export const HTTP_LIMITS = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 72_000, checkIntervalMs: 1_000 } as const;

export const gatewayFastifyOptions = {
  genReqId: requestIdFor,
  requestIdHeader: false,
  frameworkErrors,
  clientErrorHandler: contractClientErrorHandler,
  routerOptions: { maxParamLength: MAX_PARAM_LENGTH, ignoreTrailingSlash: true },
  requestTimeout: HTTP_LIMITS.requestTimeoutMs,
  keepAliveTimeout: HTTP_LIMITS.keepAliveTimeoutMs,
  http: { requireHostHeader: false, headersTimeout: HTTP_LIMITS.headersTimeoutMs, connectionsCheckingInterval: HTTP_LIMITS.checkIntervalMs },
} as const;

export function installRequestContext(fastify: FastifyInstance, logger: Logger, metrics: ServiceMetrics) {
  fastify.addHook('onRequest', (req, reply, done) => {
    // With tracing on, the request's span (http-spans.ts, a child of the caller's traceparent when
    // it sent one) is the trace every log line and message of the request names.
    enterCorrelation({ correlationId: req.id, traceparent: activeTraceparent() ?? traceparentFrom(headerString(req, 'traceparent')) });
    reply.header('x-request-id', req.id);
    // RFC 9112 3.2: an HTTP/1.1 request without Host is a 400.
    if (req.raw.httpVersion === '1.1' && req.headers.host === undefined) return done(new ApiError('malformed_request', {}, { in: 'header', name: 'host', reason: 'missing_host' }));
    done();
  });
  fastify.addHook('onResponse', (req, reply, done) => {
    const route = routeOf(req);
    const seconds = reply.elapsedTime / 1000;
    // RED per route (metrics catalog: http_requests_total, http_request_duration_seconds); the children are kept by label values.
    metrics.child('httpRequests', req.method, route, String(reply.statusCode)).inc();
    metrics.child('httpRequestDuration', req.method, route).observe(seconds);
    if (route !== '/healthz' && route !== '/readyz') {
      const outcome = reply.statusCode >= 400 ? errorOutcomeOf(req) : undefined;
      logger.info({ requestId: req.id, method: req.method, route, status: reply.statusCode, ms: Math.round(reply.elapsedTime), ...outcome }, 'request');
    }
    done();
  });
}

function routeOf(req: FastifyRequest): string {
  return req.routeOptions?.url ?? 'unmatched';
}

function headerString(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === 'string' && v.length <= 512 ? v : undefined;
}
