/**
 * What exactly was wrong with a refused request, without changing the error body: spec 7 fixes the
 * body as `{"error": "<reason_code>"}`, so the detail travels beside it in one documented response
 * header, `Switchyard-Error-Detail`, an RFC 8941 dictionary such as
 * `in=query, name="from", reason=unencoded_plus`, and in the request's access-log line (with its
 * request id). `in` says where the problem is, `name` which parameter or property (absent when the
 * request names none, or when the name it sent is not a plain identifier: the header never echoes
 * arbitrary input), `reason` one token of ERROR_DETAIL_REASONS.
 * Invariant: everything written into the header comes from this closed vocabulary or passes
 * SAFE_NAME, so a caller cannot inject header content or make the gateway reflect its input.
 */

export const ERROR_DETAIL_HEADER = 'Switchyard-Error-Detail';

export const ERROR_DETAIL_LOCATIONS = ['query', 'body', 'path', 'header', 'request'] as const;

/** The closed vocabulary of `reason`, with what each means (documented in the OpenAPI header component). */
export const ERROR_DETAIL_REASONS = {
  unknown: 'the route does not declare this parameter or property',
  repeated: 'a query parameter given more than once (lists are one comma-separated parameter)',
  malformed: 'the value does not have the required form (type, pattern, date-time, id)',
  unencoded_plus: 'a date-time with a space where its offset sign belongs: a `+` in a query string must be sent as `%2B`',
  out_of_range: 'a number or date-time outside the accepted range (date-times: 0001-01-02T00:00:00Z to 9999-12-30T23:59:59.999Z)',
  not_allowed: 'a value that is not one of the documented values',
  empty_item: 'an empty item in a comma-separated list',
  too_many: 'more items than the documented limit (counted as sent, repeats included)',
  not_before_to: '`from` is not before `to`',
  not_json: 'the body is not valid JSON',
  not_object: 'the body is not a JSON object',
  too_deep: 'the body nests objects or arrays deeper than 32 levels',
  not_empty: 'a body where the route takes none (any media type or size)',
  missing_host: 'an HTTP/1.1 request without a Host header',
  unparsable: 'a request or header line that is not valid HTTP',
} as const;

export type ErrorDetailReason = keyof typeof ERROR_DETAIL_REASONS;

export interface ErrorDetail {
  in: (typeof ERROR_DETAIL_LOCATIONS)[number];
  name?: string | undefined;
  reason: ErrorDetailReason;
}

/** A name we echo: a plain identifier, as every parameter and property of ours is. */
const SAFE_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

export function formatErrorDetail(detail: ErrorDetail): string {
  const name = detail.name !== undefined && SAFE_NAME.test(detail.name) ? `, name="${detail.name}"` : '';
  return `in=${detail.in}${name}, reason=${detail.reason}`;
}

/** The OpenAPI header object every 400 response refers to (components.headers.ErrorDetail). */
export function errorDetailHeaderComponent(): Record<string, unknown> {
  const reasons = Object.entries(ERROR_DETAIL_REASONS)
    .map(([reason, meaning]) => `\`${reason}\`: ${meaning}`)
    .join('; ');
  return {
    description: [
      'What exactly was refused, beside the `{"error": …}` body (present when the gateway can say; the same detail is in the log line of the request id).',
      `An RFC 8941 dictionary: \`in\` (${ERROR_DETAIL_LOCATIONS.map((l) => `\`${l}\``).join(', ')}), \`name\` (the parameter or property, a quoted string; absent when the request names none), \`reason\`.`,
      'Example: `in=query, name="from", reason=unencoded_plus`.',
      `Reasons: ${reasons}.`,
    ].join(' '),
    schema: { type: 'string' },
  };
}
