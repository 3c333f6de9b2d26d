/**
 * The statuses every operation can answer because of how a request arrives rather than what it
 * asks, added to the document in one place (openapi/document.ts `finish`):
 * - 400: a request Node's parser or the router refuses (`malformed_request`: a malformed header
 *   line, no Host header) can name any path; every 400 carries the `Switchyard-Error-Detail` header
 *   (components.headers.ErrorDetail, http/error-detail.ts);
 * - 408 `request_timeout` and 431 `headers_too_large` (http/client-error.ts);
 * - 413 `payload_too_large` and 415 `unsupported_media_type` on every operation that takes a body
 *   (decision 0008: answered while the body is read, before authentication). Operations that take
 *   none answer any body with their documented 400 `invalid_body` instead.
 */
import type { OpenAPIObject } from '@nestjs/swagger';
import { ERROR_DETAIL_HEADER, errorDetailHeaderComponent } from '../http/error-detail.js';

const ERROR_REF = { $ref: '#/components/schemas/ErrorBody' };
const DETAIL_REF = { $ref: '#/components/headers/ErrorDetail' };
const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ERROR_REF } } });

const MALFORMED = 'A request that is not valid HTTP, e.g. a malformed header line or no Host header (`malformed_request`).';

/** Text for the document's description: the request-reading rules a client cannot see in the schemas. */
export const REQUEST_RULES_TEXT = [
  'Errors name what was wrong in the `Switchyard-Error-Detail` response header (e.g. `in=query, name="from", reason=unencoded_plus`); the body stays `{"error": …}`.',
  'Date-times in requests are RFC 3339 with `Z` or a numeric offset, in either letter case, between 0001-01-02T00:00:00Z and 9999-12-30T23:59:59.999Z; in a query string send `+` as `%2B`.',
  'Ids are read case-insensitively after their prefix (Crockford base32): `vcl_0abc…` is `vcl_0ABC…`; responses use the uppercase form.',
  'Comma-separated lists (id filters, `expand`) refuse empty items; a repeated value counts once, but limits count the items as sent.',
  'One trailing slash is ignored (`/v1/syncs/` is `/v1/syncs`).',
].join('\n');

interface Operation {
  requestBody?: unknown;
  responses: Record<string, { description?: string; headers?: Record<string, unknown>; content?: unknown }>;
}

export function documentRequestErrors(document: OpenAPIObject): void {
  document.components = { ...document.components, headers: { ...document.components?.headers, ErrorDetail: errorDetailHeaderComponent() } };
  for (const item of Object.values(document.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const op = item[method] as Operation | undefined;
      if (!op) continue;
      const bad = (op.responses['400'] ??= errorResponse(MALFORMED));
      if (!bad.description?.includes('`malformed_request`')) bad.description = `${bad.description ?? ''} ${MALFORMED}`.trim();
      bad.headers = { ...bad.headers, [ERROR_DETAIL_HEADER]: DETAIL_REF };
      op.responses['408'] ??= errorResponse('The request line and headers did not arrive in time (`request_timeout`); the connection is closed.');
      op.responses['431'] ??= errorResponse('The request line and headers exceed 16 KiB, e.g. a very long cursor or id (`headers_too_large`).');
      if (op.requestBody !== undefined) {
        op.responses['413'] ??= errorResponse('The body exceeds the accepted size (`payload_too_large`); answered while the body is read, before authentication.');
        op.responses['415'] ??= errorResponse('A body with a Content-Type other than `application/json` (`unsupported_media_type`); answered before authentication.');
      }
    }
  }
}
