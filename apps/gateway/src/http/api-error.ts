/**
 * The only error type gateway code throws on purpose. It carries a reason code from the closed
 * table in libs/contracts (so its status is fixed there, never chosen ad hoc) and optional headers
 * such as Retry-After.
 */
import type { ErrorCode } from '@switchyard/contracts';

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly headers: Record<string, string> = {},
  ) {
    super(code);
    this.name = 'ApiError';
  }
}
