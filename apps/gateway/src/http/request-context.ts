/**
 * Per-request plumbing on the Fastify instance: a request id (the caller's `x-request-id` when it is
 * a short printable token, else a new uuid) echoed in the response header and set as the
 * correlation id of everything the request causes; one access-log line per request (method,
 * route, status, duration — never headers, so credentials cannot leak); HTTP metrics.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Counter, Histogram, type Registry } from 'prom-client';
import { correlationIdFrom, enterCorrelation, traceparentFrom, type Logger } from '@switchyard/service-kit';
import { frameworkErrors } from './error.filter.js';

export function requestIdFor(req: { headers: Record<string, unknown> }): string {
  return correlationIdFrom(req.headers['x-request-id']);
}

/** Fastify server options the gateway needs: our request ids, and router errors in our shape. */
export const gatewayFastifyOptions = { genReqId: requestIdFor, requestIdHeader: false, frameworkErrors } as const;

export function installRequestContext(fastify: FastifyInstance, logger: Logger, registry: Registry) {
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  fastify.addHook('onRequest', (req, reply, done) => {
    enterCorrelation({ correlationId: req.id, traceparent: traceparentFrom(headerString(req, 'traceparent')) });
    reply.header('x-request-id', req.id);
    done();
  });
  fastify.addHook('onResponse', (req, reply, done) => {
    const route = routeOf(req);
    const seconds = reply.elapsedTime / 1000;
    requests.inc({ method: req.method, route, status: String(reply.statusCode) });
    duration.observe({ method: req.method, route }, seconds);
    if (route !== '/healthz' && route !== '/readyz') {
      logger.info({ requestId: req.id, method: req.method, route, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
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
