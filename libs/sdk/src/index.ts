// @switchyard/sdk: a typed client of the Switchyard API (docs/decisions/0035-typescript-sdk.md).
import { bindMethods } from './generated/openapi.js';
import { Runtime, type ClientOptions } from './runtime.js';
export { signWebhook, verifyWebhook, WebhookVerificationError, type HeadersLike, type VerifyWebhookOptions, type WebhookEvent, type WebhookVerificationReason } from './webhooks.js';

export type * from './generated/openapi.js';
export { API_VERSION, METHOD_NAMES, OPERATIONS, REASON_CODES } from './generated/openapi.js';
export {
  Paged,
  RETRY_STATUSES,
  SwitchyardApiError,
  SwitchyardConnectionError,
  SwitchyardError,
  SwitchyardTimeoutError,
  nextCursor,
  serializeQuery,
  type ClientOptions,
  type FetchLike,
  type ItemOf,
  type PageOf,
  type PagedOperationId,
  type RequestOptions,
  type RetryOptions,
} from './runtime.js';

/**
 * A client: one method per operation, grouped by resource (`client.trips.list(connectionId, { expand: ['vehicle'] })`),
 * and `client.request(operationId, path, query, body)` for any operation by its id.
 */
export function createClient(options: ClientOptions) {
  const runtime = new Runtime(options);
  return { ...bindMethods(runtime), request: runtime.call.bind(runtime) };
}

export type SwitchyardClient = ReturnType<typeof createClient>;
