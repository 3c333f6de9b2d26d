/**
 * Spec 5 rule 2 inside the orchestrator: before a sync is created, read or changed, the caller's
 * credentials — the application and the Connection-Token the gateway accepted — and operation grant
 * are read again from the projection, share-locked in the same transaction. Answers, mirroring the
 * gateway's own rules and order (docs/decisions/0005):
 * - projection older than the versions the gateway authenticated with (credentialVersion, or the
 *   tokenVersion read with the token: the gateway's event has not arrived yet), or no row at all →
 *   503 `service_unavailable`: the evidence needed to trust the call is unavailable, so it is
 *   refused rather than trusted;
 * - application revoked → 401 `unauthorized`;
 * - the active tokens unknown (a row or a caller from before the token recheck) → 503, as above;
 * - the caller's Connection-Token not among the application's active tokens for the connection
 *   (revoked since the gateway accepted it) → 401 `unauthorized`, the gateway's answer to a revoked
 *   token. The version check above is what makes "not among them" mean revoked: a projection at
 *   or past the caller's tokenVersion has seen the token's issue;
 * - no grant on the connection → 403 `connection_forbidden`; grant without the operation →
 *   403 `operation_forbidden`.
 * A projection newer than the caller's versions is fine: it is the current state, and it is what
 * gets checked.
 */
import { RpcError, type ApplicationGrantV1, type SyncCallerV1, type SyncOperationV1 } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import { ApplicationCredentialRepository, type ApplicationCredentialRow } from '../db/repositories/application-credential.repository.js';

export interface RecheckedGrant {
  credential: ApplicationCredentialRow;
  grant: ApplicationGrantV1['grants'][number];
}

const repository = new ApplicationCredentialRepository();

export async function recheckGrant(em: Em, caller: SyncCallerV1, operation: SyncOperationV1): Promise<RecheckedGrant> {
  const credential = await repository.lockForRecheck(em, caller.applicationId);
  const token = caller.connectionToken;
  if (!credential || credential.credentialVersion < caller.credentialVersion || (token && credential.tokenVersion < token.tokenVersion)) {
    throw new RpcError('service_unavailable', 'application grant projection is behind the gateway');
  }
  if (credential.revoked) throw new RpcError('unauthorized');
  if (!token || !credential.connectionTokens) throw new RpcError('service_unavailable', 'connection token cannot be rechecked');
  if (!credential.connectionTokens.some((t) => t.id === token.id && t.connectionId === caller.connectionId)) throw new RpcError('unauthorized');
  const grant = credential.grants.find((g) => g.connectionId === caller.connectionId);
  if (!grant || grant.operations.length === 0) throw new RpcError('connection_forbidden');
  if (!grant.operations.includes(operation)) throw new RpcError('operation_forbidden');
  return { credential, grant };
}
