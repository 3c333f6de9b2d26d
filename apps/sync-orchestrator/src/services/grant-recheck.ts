/**
 * Spec 5 rule 2 inside the orchestrator: before a sync is created, read or changed, the caller's
 * credential and operation grant are read again from the projection, share-locked in the same
 * transaction. Answers, mirroring the gateway's own rules (docs/decisions/0005):
 * - projection older than the credentialVersion the gateway authenticated with (the gateway's event
 *   has not arrived yet), or no row at all → 503 `service_unavailable`: the evidence needed to
 *   trust the call is unavailable, so it is refused rather than trusted;
 * - application revoked → 401 `unauthorized`;
 * - no grant on the connection → 403 `connection_forbidden`; grant without the operation →
 *   403 `operation_forbidden`.
 * A projection newer than the caller's version is fine: it is the current grant, and it is what
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
  if (!credential || credential.credentialVersion < caller.credentialVersion) {
    throw new RpcError('service_unavailable', 'application grant projection is behind the gateway');
  }
  if (credential.revoked) throw new RpcError('unauthorized');
  const grant = credential.grants.find((g) => g.connectionId === caller.connectionId);
  if (!grant || grant.operations.length === 0) throw new RpcError('connection_forbidden');
  if (!grant.operations.includes(operation)) throw new RpcError('operation_forbidden');
  return { credential, grant };
}
