/**
 * Provider failures as the spec's reason codes (section 7, "reason codes carried in data"). An
 * adapter throws only ProviderError; the orchestrator stores `code` on the connection's health and
 * never turns a failure into data.
 */
import type { ProviderReasonCode } from '@switchyard/domain';

export class ProviderError extends Error {
  constructor(
    readonly code: ProviderReasonCode,
    readonly detail: { status?: number; retryAfterMs?: number; message?: string; path?: string } = {},
  ) {
    super(`${code}${detail.status ? ` (HTTP ${detail.status})` : ''}${detail.message ? `: ${detail.message}` : ''}`);
    this.name = 'ProviderError';
  }
}

/** HTTP status → reason code, for responses that are final (after retries). */
export function reasonForStatus(status: number): ProviderReasonCode {
  if (status === 401) return 'provider_auth_required';
  if (status === 403) return 'provider_scope_mismatch';
  if (status === 429) return 'provider_throttled';
  if (status >= 500) return 'provider_unavailable';
  return 'provider_config_invalid';
}
