/**
 * The one exception filter: every error leaves the gateway as `{"error": "<reason_code>"}` with the
 * status the contracts table assigns to that code. Framework errors (unknown route, body too large,
 * wrong media type, malformed JSON, malformed URL) are translated by their Fastify/Nest identity;
 * an unmatched request whose path exists with other methods is 405 with `Allow`; anything
 * unexpected is a 500 `internal_error` whose body says nothing internal — the request id is in the
 * `x-request-id` header and in the single log line written for it. Every 503 carries `Retry-After`.
 */
import { ArgumentsHost, Catch, HttpException, type ExceptionFilter } from '@nestjs/common';
import { statusOf, type ErrorCode } from '@switchyard/contracts';
import { BusTimeoutError, BusUnavailableError, RpcError } from '@switchyard/messaging';
import type { Logger } from '@switchyard/service-kit';
import { ApiError } from './api-error.js';
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
  routeOptions?: { url?: string };
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
  FST_ERR_MAX_PARAM_LENGTH: 'not_found',
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

export function classify(error: unknown): { code: ErrorCode; headers: Record<string, string>; unexpected: boolean } {
  if (error instanceof ApiError) return { code: error.code, headers: error.headers, unexpected: false };
  if (error instanceof BusTimeoutError || error instanceof BusUnavailableError) return { code: 'service_unavailable', headers: {}, unexpected: false };
  if (error instanceof RpcError) {
    const code = codeFromRpc(error);
    return { code, headers: {}, unexpected: code === 'internal_error' };
  }
  const fastifyCode = (error as { code?: unknown } | null)?.code;
  if (typeof fastifyCode === 'string' && FASTIFY_CODES[fastifyCode]) return { code: FASTIFY_CODES[fastifyCode], headers: {}, unexpected: false };
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

function send(reply: ReplyLike, code: ErrorCode, headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) reply.header(name, value);
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
  const { code, headers } = classify(error);
  send(reply, code === 'internal_error' ? 'invalid_path' : code, headers);
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
    const { code, headers, unexpected } = classify(error);
    if (unexpected) {
      this.logger.error({ err: error, requestId: request.id, method: request.method, url: request.url }, 'unexpected error');
    }
    if (reply.sent) return;
    if (code === 'not_found' && !request.routeOptions?.url && this.routes) {
      const allowed = this.routes.methodsFor(request.url ?? '');
      if (allowed.length > 0) return send(reply, 'method_not_allowed', { allow: allowed.join(', ') });
    }
    send(reply, code, headers);
  }
}
