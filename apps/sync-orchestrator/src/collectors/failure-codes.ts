/**
 * What a failed provider call means to collection (pure; used by the collector loop, the
 * telemetry lanes and the on-demand refresh): the reason code of an error, whether the unit is
 * re-leased for it, and how a failure of the extended-telemetry lane is handled.
 */
import { BusTimeoutError, BusUnavailableError, RpcError } from '@switchyard/messaging';
import { ProviderError } from '@switchyard/providers';

/** Codes after which the unit is re-leased (bounded); any other provider code fails the sync at once. */
export const RETRYABLE_CODES: ReadonlySet<string> = new Set(['provider_throttled', 'provider_unavailable', 'bus_unavailable', 'collector_error']);

/**
 * The failure code of a job error: the ProviderError code, the gateway's provider_config_invalid,
 * the gateway's provider_auth_required / provider_unavailable when it could not refresh an OAuth
 * grant, bus_unavailable when the bus refused or could not be reached (a retry-later, never the
 * sync's fault), else collector_error.
 */
export function failureCode(error: unknown): string {
  if (error instanceof ProviderError) return error.code;
  if (error instanceof BusUnavailableError || error instanceof BusTimeoutError) return 'bus_unavailable';
  if (error instanceof RpcError && (error.code === 'provider_config_invalid' || error.code === 'not_found')) return 'provider_config_invalid';
  // The gateway could not refresh an OAuth grant: refused (reconnect) or the token endpoint was down.
  if (error instanceof RpcError && (error.code === 'provider_auth_required' || error.code === 'provider_unavailable')) return error.code;
  return 'collector_error';
}

/**
 * How a failure while asking for the extended metrics (telemetry-lanes.ts) is handled:
 * - `refused`: the provider refused or could not serve the extended fields (a 403 on extended stat
 *   types is `provider_scope_mismatch`; also a config or response-shape failure of that call). The
 *   listing ends there: the core readings already published stand, the unit completes, and the
 *   code is reported under the `extended` health scope only (spec 4.4: an optional metric never
 *   degrades odometer or location);
 * - `retry`: a passing failure (throttled, unavailable, bus, collector): the job fails retryably as
 *   any job does, and is reported under `extended` only; the re-leased unit resumes in the
 *   extended lane (its cursor says so);
 * - `fail`: revoked credentials (`provider_auth_required`) are the connection's, not the extended
 *   fields': the job fails as any job does, under both scopes.
 */
export function extendedLaneFailure(error: unknown): 'refused' | 'retry' | 'fail' {
  const code = failureCode(error);
  if (code === 'provider_auth_required') return 'fail';
  if (RETRYABLE_CODES.has(code)) return 'retry';
  return error instanceof ProviderError ? 'refused' : 'fail';
}
