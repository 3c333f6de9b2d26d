import { describe, expect, it } from '@jest/globals';
import { codesWithStatus, ERROR_CODE_LIST, ERROR_CODES, errorBody, isErrorCode, statusOf, type ErrorCode } from './error-codes.js';

describe('error code table', () => {
  it('maps every code to a real HTTP error status with a description', () => {
    for (const code of ERROR_CODE_LIST) {
      const { status, description } = ERROR_CODES[code];
      expect(Number.isInteger(status) && status >= 400 && status <= 599).toBe(true);
      expect(description.length).toBeGreaterThan(10);
    }
  });

  it('uses snake_case codes only', () => {
    for (const code of ERROR_CODE_LIST) expect(code).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
  });

  it('keeps the statuses the spec and the brief fix', () => {
    const expected: Partial<Record<ErrorCode, number>> = {
      not_found: 404,
      unauthorized: 401,
      connection_forbidden: 403,
      operation_forbidden: 403,
      history_forbidden: 403,
      invalid_query: 400,
      invalid_body: 400,
      invalid_cursor: 400,
      invalid_path: 400,
      payload_too_large: 413,
      unsupported_media_type: 415,
      method_not_allowed: 405,
      provider_requests_not_supported: 409,
      pause_connection_before_connect: 409,
      geotab_account_setup_required: 409,
      sync_state_conflict: 422,
      rate_limited: 429,
      service_unavailable: 503,
      gate_disabled: 503,
      internal_error: 500,
    };
    for (const [code, status] of Object.entries(expected)) expect(statusOf(code as ErrorCode)).toBe(status);
  });

  it('lists no code that no path answers (the OpenAPI ErrorBody enum is this table)', () => {
    // A 403 is always connection_/operation_/history_forbidden; a disconnected connection is 404 or 403
    // (decision 0013), its `connection_disconnected` is a receipt and scheduler reason, not an HTTP error.
    for (const dead of ['forbidden', 'management_forbidden', 'conflict', 'invalid_header', 'not_acceptable', 'enrollment_unavailable', 'connection_disconnected']) expect({ dead, listed: isErrorCode(dead) }).toEqual({ dead, listed: false });
  });

  it('answers helpers', () => {
    expect(isErrorCode('invalid_cursor')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode('provider_throttled')).toBe(false); // a data reason code, not an HTTP error
    expect(errorBody('rate_limited')).toEqual({ error: 'rate_limited' });
    expect(codesWithStatus(422).sort()).toEqual(['sync_plan_too_large', 'sync_state_conflict']);
  });

  it('has no 409 for a closed gate: spec 7 makes a disabled gate on the sync routes a 503 (gate_disabled)', () => {
    expect(statusOf('gate_disabled')).toBe(503);
    expect(codesWithStatus(409).sort()).toEqual(
      ['empty_selection', 'geotab_account_setup_required', 'pause_connection_before_connect', 'provider_requests_not_supported', 'too_many_open_syncs', 'too_many_webhook_endpoints', 'unsupported_purpose'].sort(),
    );
  });
});
