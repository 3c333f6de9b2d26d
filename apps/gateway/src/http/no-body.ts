/**
 * Routes that take no body (retry, cancel, connect-session create, refresh): with
 * `@RouteConfig(NO_BODY_ROUTE)` (error.filter.ts) a body Fastify cannot parse or that is over the
 * size limit is already 400 `invalid_body` while it is read; `requireNoBody` refuses a parsed one
 * (JSON, even `{}`) the same way in the handler.
 */
import { ApiError } from './api-error.js';

export function requireNoBody(req: object): void {
  if ((req as { body?: unknown }).body !== undefined) throw new ApiError('invalid_body', {}, { in: 'body', reason: 'not_empty' });
}
