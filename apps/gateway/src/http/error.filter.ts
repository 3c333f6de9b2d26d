/**
 * The one exception filter: every error leaves the gateway as `{"error": "<reason_code>"}` with the
 * status the contracts table assigns to that code. Framework errors (unknown route, body too large,
 * wrong media type, malformed JSON, malformed URL) are translated by their Fastify/Nest identity;
 * an unmatched request whose path exists with other methods is 405 with `Allow`; anything
 * unexpected is a 500 `internal_error` whose body says nothing internal (a database that cannot be
 * reached, or past its statement deadline, is 503 `service_unavailable` instead) — the request id is in the
 * `x-request-id` header and in the single log line written for it. Every 503 carries `Retry-After`.
 * A 4xx that knows what exactly was wrong says so in the `Switchyard-Error-Detail` header
 * (error-detail.ts) and in the request's access-log line (`errorOutcomeOf`), never in the body.
 * A route that takes no body (`@RouteConfig(NO_BODY_ROUTE)`: retry, cancel) answers every body it
 * is sent — JSON or not, within the size limit or over it — with 400 `invalid_body` (spec 4.1 rule
 * 7): the 415 and 413 Fastify raises while reading such a body become that 400.
 */
import { ArgumentsHost, Catch, HttpException, type ExceptionFilter } from '@nestjs/common';
import { statusOf, type ErrorCode } from '@switchyard/contracts';
import { RpcError } from '@switchyard/messaging';
import { answersUnavailable, type Logger } from '@switchyard/service-kit';
import { ApiError } from './api-error.js';
import { ERROR_DETAIL_HEADER, formatErrorDetail, type ErrorDetail } from './error-detail.js';
import type { RouteTable } from './route-table.js';

interface ReplyLike {
  sent?: boolean;
  status(code: number): ReplyLike;
  header(name: string, value: string): ReplyLike;
  send(body: unknown): void;
}
interface RequestLike {
  id?: string;
  method?: string;
  url?: string;
  /** Set by Fastify for a matched route; absent in the not-found handler. */
  routeOptions?: { url?: string; config?: unknown };
}

/** The Fastify route config of a route that takes no body: `@RouteConfig(NO_BODY_ROUTE)` (@nestjs/platform-fastify). */
export const NO_BODY_ROUTE = { body: 'none' } as const;

const takesNoBody = (request: RequestLike): boolean => (request.routeOptions?.config as { body?: unknown } | undefined)?.body === NO_BODY_ROUTE.body;

/** What an error answer said, kept per request for its access-log line (request-context.ts). */
const outcomes = new WeakMap<object, { error: ErrorCode; detail?: string }>();

export function errorOutcomeOf(request: object): { error: ErrorCode; detail?: string } | undefined {
  return outcomes.get(request);
}

/** Fastify's own error codes for request-shape failures, mapped to ours. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_body',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_body',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_body',
  FST_ERR_VALIDATION: 'invalid_body',
  // Router failures, answered before any hook runs (see `frameworkErrors`): a percent-encoding that
  // does not decode, and a path parameter over the router's 100-character limit — no id of ours is
  // that long, so no resource can live there.
  FST_ERR_BAD_URL: 'invalid_path',
  // Unreachable while maxParamLength exceeds Node's header limit (request-context.ts); kept so an
  // over-long id could only ever be what any malformed id is.
  FST_ERR_MAX_PARAM_LENGTH: 'invalid_path',
};

/** What each of those framework errors was about. */
const FASTIFY_DETAILS: Record<string, ErrorDetail> = {
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { in: 'header', name: 'content-length', reason: 'malformed' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { in: 'body', reason: 'not_json' },
  FST_ERR_CTP_INVALID_JSON_BODY: { in: 'body', reason: 'not_json' },
  FST_ERR_BAD_URL: { in: 'path', reason: 'malformed' },
  FST_ERR_MAX_PARAM_LENGTH: { in: 'path', reason: 'malformed' },
};

/** Context RPC error codes that are safe to pass through to clients as-is. */
export function codeFromRpc(error: RpcError): ErrorCode {
  try {
    statusOf(error.code as ErrorCode);
    return error.code as ErrorCode;
  } catch {
    return 'internal_error';
  }
}

export interface Classified {
  code: ErrorCode;
  headers: Record<string, string>;
  unexpected: boolean;
  detail?: ErrorDetail;
}

export function classify(error: unknown): Classified {
  if (error instanceof ApiError) return { code: error.code, headers: error.headers, unexpected: false, ...(error.detail ? { detail: error.detail } : {}) };
  // The bus unreachable or timing out; PostgreSQL down, restarting, refusing connections, out of
  // pool slots or past its statement or lock deadline: a dependency outage, never the client's
  // fault nor a bug (docs/reliability.md) — the same rule as every context's request/reply handler.
  if (answersUnavailable(error)) return { code: 'service_unavailable', headers: {}, unexpected: false };
  if (error instanceof RpcError) {
    const code = codeFromRpc(error);
    return { code, headers: {}, unexpected: code === 'internal_error' };
  }
  const fastifyCode = (error as { code?: unknown } | null)?.code;
  if (typeof fastifyCode === 'string' && FASTIFY_CODES[fastifyCode]) {
    const detail = FASTIFY_DETAILS[fastifyCode];
    return { code: FASTIFY_CODES[fastifyCode], headers: {}, unexpected: false, ...(detail ? { detail } : {}) };
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const byStatus: Record<number, ErrorCode> = {
      400: 'invalid_body',
      404: 'not_found',
      405: 'method_not_allowed',
      413: 'payload_too_large',
      415: 'unsupported_media_type',
    };
    const code = byStatus[status];
    if (code) return { code, headers: {}, unexpected: false };
  }
  return { code: 'internal_error', headers: {}, unexpected: true };
}

/**
 * `Retry-After` of every 503 that sets none itself (`service_unavailable`: a context, the bus or
 * the database did not answer; `gate_disabled`): about one default RPC deadline, the time a
 * restarted context or a NATS reconnect takes, so clients back off instead of retrying at once.
 */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

function send(request: RequestLike, reply: ReplyLike, code: ErrorCode, headers: Record<string, string>, detail?: ErrorDetail): void {
  for (const [name, value] of Object.entries(headers)) reply.header(name, value);
  const detailText = detail ? formatErrorDetail(detail) : undefined;
  if (detailText) reply.header(ERROR_DETAIL_HEADER.toLowerCase(), detailText);
  outcomes.set(request, { error: code, ...(detailText ? { detail: detailText } : {}) });
  if (statusOf(code) === 503 && !Object.keys(headers).some((name) => name.toLowerCase() === 'retry-after')) {
    reply.header('retry-after', String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));
  }
  reply.status(statusOf(code)).header('content-type', 'application/json; charset=utf-8').send({ error: code });
}

/**
 * Fastify's `frameworkErrors` option: the router rejects a malformed URL or an over-long parameter
 * before onRequest runs (so no request-id hook, no Nest filter); without this option Fastify
 * writes its own `{statusCode, code, message}` body.
 */
export function frameworkErrors(error: unknown, request: RequestLike, reply: ReplyLike): void {
  reply.header('x-request-id', request.id ?? '');
  const { code, headers, detail } = classify(error);
  if (code === 'internal_error') return send(request, reply, 'invalid_path', headers, { in: 'path', reason: 'malformed' });
  send(request, reply, code, headers, detail);
}

/** A 413 or 415 on a route that takes no body is that route's 400 `invalid_body`: any body is refused alike. */
function bodyRefusal(request: RequestLike, classified: Classified): Classified {
  if (!takesNoBody(request) || (classified.code !== 'payload_too_large' && classified.code !== 'unsupported_media_type')) return classified;
  return { code: 'invalid_body', headers: {}, unexpected: false, detail: { in: 'body', reason: 'not_empty' } };
}

@Catch()
export class ErrorFilter implements ExceptionFilter {
  constructor(
    private readonly logger: Logger,
    private readonly routes?: RouteTable,
  ) {}

  catch(error: unknown, host: ArgumentsHost) {
    const http = host.switchToHttp();
    const reply = http.getResponse<ReplyLike>();
    const request = http.getRequest<RequestLike>();
    const { code, headers, unexpected, detail } = bodyRefusal(request, classify(error));
    if (unexpected) {
      this.logger.error({ err: error, requestId: request.id, method: request.method, url: request.url }, 'unexpected error');
    }
    if (reply.sent) return;
    if (code === 'not_found' && !request.routeOptions?.url && this.routes) {
      const allowed = this.routes.methodsFor(request.url ?? '');
      if (allowed.length > 0) return send(request, reply, 'method_not_allowed', { allow: allowed.join(', ') });
    }
    send(request, reply, code, headers, detail);
  }
}
