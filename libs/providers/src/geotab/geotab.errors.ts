/**
 * MyGeotab exception types → the spec's provider reason codes. Keyed by `error.data.type` (the
 * .NET exception name), never by the JSON-RPC `code`, which is -32000 for nearly everything.
 * Invariant: every type maps to exactly one code; an unknown type is `provider_unavailable` (we do
 * not know it is our fault) and is never retried by the client.
 */
import type { ProviderReasonCode } from '@switchyard/domain';

/**
 * Message fragments MyGeotab uses when the database itself does not exist or is misnamed
 * (unconfirmed wording; a wrong database is a configuration problem, not an outage).
 */
const UNKNOWN_DATABASE = /database .*(not (be )?found|does not exist|unknown)|unknown database|no such database/i;

export function geotabErrorReason(type: string, message: string, phase: 'authenticate' | 'session'): ProviderReasonCode {
  switch (type) {
    case 'InvalidUserException':
      // Authenticate refused (wrong user/password, revoked account) or a session the server no
      // longer accepts after one re-authentication.
      return 'provider_auth_required';
    case 'OverLimitException':
      return 'provider_throttled';
    case 'DbUnavailableException':
      return UNKNOWN_DATABASE.test(message) ? 'provider_config_invalid' : 'provider_unavailable';
    case 'DatabaseNotFoundException':
      return 'provider_config_invalid';
    case 'MissingMethodException':
      // The server no longer knows a method we call: the API changed under us.
      return 'provider_response_changed';
    case 'ArgumentException':
    case 'ArgumentNullException':
    case 'ArgumentOutOfRangeException':
    case 'InvalidCastException':
      return 'provider_config_invalid';
    default:
      // Missing permission (the service account's clearance lacks a securable): the exact type name
      // is unconfirmed (InvalidPermissionsException / InvalidPermissionException / SecurityException
      // all seen in third-party code), so match the family.
      if (/permission|security|accessdenied|unauthorizedaccess/i.test(type)) return phase === 'authenticate' ? 'provider_auth_required' : 'provider_scope_mismatch';
      return 'provider_unavailable';
  }
}
