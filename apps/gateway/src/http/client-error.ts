/**
 * Answers to requests Node's HTTP parser refuses before Fastify sees them (the server's
 * `clientError` event, Fastify's `clientErrorHandler` option): request line and headers over 16 KiB
 * (431 `headers_too_large`: a very long URL, cursor or header), headers not complete within the
 * server's headers timeout (408 `request_timeout`), and anything else that is not valid HTTP — a
 * malformed header line, a bad method or request target, conflicting framing headers (400
 * `malformed_request`). Fastify's default handler writes its own `{"error": "Bad Request", …}`
 * bodies; these are the contract's `{"error": "<reason_code>"}` with a fresh `x-request-id`, the
 * same detail header as every other 400, and one log line carrying that id. The connection is
 * closed afterwards: after a parse error the rest of the byte stream has no reliable framing.
 */
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { statusOf, type ErrorCode } from '@switchyard/contracts';
import type { Logger } from '@switchyard/service-kit';
import { ERROR_DETAIL_HEADER, formatErrorDetail, type ErrorDetail } from './error-detail.js';

const REASON_PHRASES: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

export function clientErrorAnswer(error: { code?: string }): { code: ErrorCode; detail?: ErrorDetail } {
  if (error.code === 'HPE_HEADER_OVERFLOW') return { code: 'headers_too_large' };
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'HPE_HEADERS_TIMEOUT') return { code: 'request_timeout' };
  return { code: 'malformed_request', detail: { in: 'request', reason: 'unparsable' } };
}

/** The raw response bytes for a client error (HTTP/1.1, JSON, closes the connection). */
export function clientErrorResponse(code: ErrorCode, requestId: string, detail?: ErrorDetail): string {
  const status = statusOf(code);
  const body = JSON.stringify({ error: code });
  const headers = [
    `HTTP/1.1 ${status} ${REASON_PHRASES[status] ?? 'Error'}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(body)}`,
    `x-request-id: ${requestId}`,
    ...(detail ? [`${ERROR_DETAIL_HEADER.toLowerCase()}: ${formatErrorDetail(detail)}`] : []),
    'connection: close',
  ];
  return `${headers.join('\r\n')}\r\n\r\n${body}`;
}

/** Where client errors are logged, per Fastify instance (the handler is a server option, the runtime logger exists only once the app is built). */
const loggers = new WeakMap<object, Logger>();

export function logClientErrorsTo(fastify: object, logger: Logger): void {
  loggers.set(fastify, logger);
}

/** The `clientErrorHandler` Fastify option; Fastify calls it with `this` bound to its instance. */
export function contractClientErrorHandler(this: unknown, error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody to answer (https://nodejs.org/api/http.html#event-clienterror).
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { code, detail } = clientErrorAnswer(error);
  const requestId = randomUUID();
  const logger = typeof this === 'object' && this !== null ? loggers.get(this) : undefined;
  logger?.info({ requestId, status: statusOf(code), error: code, parserCode: error.code, ...(detail ? { detail: formatErrorDetail(detail) } : {}) }, 'client error');
  // As Node's and Fastify's own handlers do: write what fits, then close.
  if (socket.writable) socket.write(clientErrorResponse(code, requestId, detail));
  socket.destroy();
}
