/**
 * The closed table of HTTP error reason codes: each code, its status and one line on what it means.
 * Every error body is `{ "error": "<code>" }` (spec 7). Invariant: the table is a single `as const`
 * object checked with `satisfies`, so a code cannot exist without a status and the gateway's
 * exception filter can switch over `ErrorCode` exhaustively. One name per meaning: e.g. every 401 is
 * `unauthorized`, whatever was wrong with the credential (saying which part was wrong helps attackers).
 * Data reason codes (provider_throttled, …) are not here: they travel inside 200 responses, and so
 * are internal reasons such as a receipt's or a scheduled run's `connection_disconnected`.
 * Every code here is one a gateway path answers today (directly or passed through from a context's
 * RPC error), or one spec 7 names for a route not built yet (the connect-session 409s, the 429 of
 * refresh and sessions): the OpenAPI ErrorBody enum is this table, so a code no path emits would
 * promise clients an answer they never get.
 */

/** The HTTP statuses an error may carry. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 408 | 409 | 413 | 415 | 422 | 429 | 431 | 500 | 503;

export const ERROR_CODES = {
  // 400: the request itself is malformed.
  invalid_query: { status: 400, description: 'A query parameter is unknown, repeated, malformed or out of range.' },
  invalid_body: { status: 400, description: 'The JSON body is malformed, fails its schema, or is present where the route takes none.' },
  invalid_cursor: { status: 400, description: 'The cursor is malformed, tampered, expired, or was issued for other filters, grant or connection.' },
  cursor_beyond_retention: { status: 400, description: 'Fault events: the stored cursor points before the oldest retained transition (90 days); re-read the open faults and start the feed again without a cursor.' },
  invalid_path: { status: 400, description: 'A path parameter does not have the format of its id (e.g. not a vcl_ id).' },
  conflicting_selectors: { status: 400, description: 'The sync create body combines selectors (startFrom and fractional days); spec 4.1 rule 1.' },
  unknown_metric: { status: 400, description: 'History: `metric` is missing or not one of the telemetry metrics of the catalog.' },
  reversed_window: { status: 400, description: 'History and usage reports: `startTime` is not before `endTime`.' },
  window_too_long: { status: 400, description: 'History and usage reports: the window spans more than the documented cap (history 31 days, usage reports 93 days).' },
  invalid_time_zone: { status: 400, description: 'Usage reports: `interval` was given without `timeZone`, or `timeZone` is not an IANA time zone name.' },
  too_many_intervals: { status: 400, description: 'Usage reports: `interval=hour` over a window longer than 31 days.' },
  cursor_parameters_changed: { status: 400, description: 'History: a well-formed cursor was passed with another metric or window than the walk it continues.' },
  empty_interval: { status: 400, description: 'The requested collection interval is empty (a startFrom not before the request time, or a trip-only sync whose window holds no time).' },
  malformed_request: { status: 400, description: 'The HTTP request itself does not parse: a malformed request or header line, or no Host header (answered before routing, on every path).' },
  // 401 / 403 / 404: who may see what (spec 5 rule 4).
  unauthorized: { status: 401, description: 'The credential is missing, unknown, revoked, or of the wrong scheme for this route.' },
  connection_forbidden: { status: 403, description: 'Sync routes: the credential has no grant for the connection named by the Connection-Token.' },
  operation_forbidden: { status: 403, description: 'Sync routes: the credential lacks the explicit operation grant (create, retry or cancel).' },
  history_forbidden: { status: 403, description: 'Sync create: an explicit selector reaches before now and the grant has no history permission (decision 0008).' },
  not_found: { status: 404, description: 'The resource does not exist or is not visible to this credential (connection routes answer 404, not 403).' },
  method_not_allowed: { status: 405, description: 'The path exists but not with this method.' },
  request_timeout: { status: 408, description: 'The request line and headers did not arrive in time; the connection is closed.' },
  // 409: the request is valid but conflicts with the state of the connection.
  provider_requests_not_supported: { status: 409, description: 'A sync create body carries a non-empty providerRequests (spec 4.1 rule 2).' },
  unsupported_purpose: { status: 409, description: 'The sync requires work this provider or connection cannot do; nothing was created (spec 4.1 rule 5).' },
  too_many_open_syncs: { status: 409, description: 'The application already has the most open (requested or in progress) syncs it may have (catalog `limits.openSyncsPerApplication`); nothing was created, and a sync asked to retry stays failed. Create or retry again once one has completed or failed.' },
  empty_selection: { status: 409, description: 'The connection has no explicitly approved vehicles, so a sync would collect nothing; nothing was created (spec 4.1 rule 5).' },
  pause_connection_before_connect: { status: 409, description: 'A connect session needs the connection paused first (spec 4.3 rule 2).' },
  too_many_webhook_endpoints: { status: 409, description: 'Webhook endpoints (an addition beyond the contract): the application already has the most endpoints it may have (20); delete one first.' },
  geotab_account_setup_required: { status: 409, description: 'The Geotab service account and database binding are not prepared (spec 4.3 rule 3).' },
  // 413 / 415 / 422.
  payload_too_large: { status: 413, description: 'The request body exceeds the accepted size.' },
  unsupported_media_type: { status: 415, description: 'A body was sent with a Content-Type other than application/json.' },
  sync_state_conflict: { status: 422, description: 'Retry needs a failed sync; cancel needs requested or in_progress (spec 3 rules 1-2).' },
  sync_plan_too_large: { status: 422, description: 'The sync plan exceeds 10,000 units or 4 MiB; approved work is never truncated (spec 4.1 rule 8).' },
  // 429 / 431 / 5xx.
  rate_limited: { status: 429, description: 'Refresh or session rate limit reached; the Retry-After header says when to try again.' },
  headers_too_large: { status: 431, description: 'The request line and headers together exceed the server limit (16 KiB), e.g. a very long URL or cursor.' },
  gate_disabled: { status: 503, description: 'The feature gate for this operation is off (sync operations are default off, spec 5 rule 2).' },
  service_unavailable: { status: 503, description: 'A service, the message bus or the database did not answer in time; retry later.' },
  internal_error: { status: 500, description: 'An unexpected failure; the body names no internals and the request id is in the response headers.' },
} as const satisfies Record<string, { readonly status: ErrorStatus; readonly description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;
export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as ErrorCode[];

/** The one error body shape of spec 7. */
export interface ErrorBody {
  readonly error: ErrorCode;
}

export function statusOf(code: ErrorCode): ErrorStatus {
  return ERROR_CODES[code].status;
}

export function isErrorCode(v: unknown): v is ErrorCode {
  return typeof v === 'string' && Object.hasOwn(ERROR_CODES, v);
}

export function errorBody(code: ErrorCode): ErrorBody {
  return { error: code };
}

/** Codes with the given status, e.g. to document every 409 of a route in OpenAPI. */
export function codesWithStatus(status: ErrorStatus): ErrorCode[] {
  return ERROR_CODE_LIST.filter((c) => ERROR_CODES[c].status === status);
}
