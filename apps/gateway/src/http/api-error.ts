/**
 * The only error type gateway code throws on purpose. It carries a reason code from the closed
 * table in libs/contracts (so its status is fixed there, never chosen ad hoc), optional headers
 * such as Retry-After, and optionally what exactly was wrong (error-detail.ts), which the error
 * filter sends as the `Switchyard-Error-Detail` header and writes into the request's log line.
 */
import type { ErrorCode } from '@switchyard/contracts';
import type { ErrorDetail } from './error-detail.js';

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly headers: Record<string, string> = {},
    readonly detail?: ErrorDetail,
  ) {
    super(code);
    this.name = 'ApiError';
  }
}

/** A 400 naming its parameter: `invalid(code, 'query', 'from', 'out_of_range')`. */
export function invalid(code: ErrorCode, where: ErrorDetail['in'], name: string | undefined, reason: ErrorDetail['reason']): ApiError {
  return new ApiError(code, {}, { in: where, ...(name !== undefined ? { name } : {}), reason });
}
