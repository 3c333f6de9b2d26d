/**
 * Who is calling, as established by a guard, attached to the request for controllers to read.
 * `credentialVersion` feeds cursor bindings: revoking or changing a grant bumps it, so cursors
 * issued before the change stop working (spec 4.1 rule 6). `accessEpoch` is the connection's: every
 * disconnect bumps it, so cursors issued before a disconnect stay refused after re-activation.
 */
export type ConsumerPermission = 'read' | 'manage' | 'history';
export const CONSUMER_PERMISSIONS: readonly ConsumerPermission[] = ['read', 'manage', 'history'];

export type SyncOperation = 'sync.create' | 'sync.read' | 'sync.retry' | 'sync.cancel';
export const SYNC_OPERATIONS: readonly SyncOperation[] = ['sync.create', 'sync.read', 'sync.retry', 'sync.cancel'];

export interface ConsumerPrincipal {
  kind: 'consumer';
  consumerKeyId: string;
  connectionId: string;
  permissions: ConsumerPermission[];
  credentialVersion: number;
  accessEpoch: number;
}

export interface ApplicationPrincipal {
  kind: 'application';
  applicationId: string;
  environment: 'sandbox' | 'production';
  connectionId: string;
  operations: SyncOperation[];
  history: boolean;
  credentialVersion: number;
  accessEpoch: number;
  /** The Connection-Token the call came with: a credential too, so sync cursors are bound to it (spec 4.1 rule 6). */
  connectionTokenId: string;
  /** The application's token version read with the secret: the orchestrator's recheck tells a revoked token from one it has not seen yet by it. */
  tokenVersion: number;
}

/**
 * An application authenticated by its secret alone (`sk_…`, no Connection-Token): the webhook
 * endpoint routes, which belong to the application, not to one of its connections (decision 0042).
 */
export interface ApplicationOwnerPrincipal {
  kind: 'application-owner';
  applicationId: string;
  environment: 'sandbox' | 'production';
  credentialVersion: number;
}

export type Principal = ConsumerPrincipal | ApplicationPrincipal | ApplicationOwnerPrincipal;

export interface AuthenticatedRequest {
  headers: Record<string, string | string[] | undefined>;
  params: Record<string, string | undefined>;
  /** Node's request: its rawHeaders keep every header line (Node keeps only the first Authorization in `headers`). */
  raw?: { rawHeaders: string[] };
  principal?: Principal;
}

/**
 * The request's Authorization header, or undefined — which every scheme refuses with 401 — when
 * it arrived more than once: Node keeps only the first line, so `pt_good` then `pt_bad` would
 * otherwise authenticate silently as the first (issue 18). Two Connection-Token lines are already
 * joined into one value that parses as no token.
 */
export function authorizationOf(req: AuthenticatedRequest): unknown {
  const lines = req.raw?.rawHeaders.filter((name, i) => i % 2 === 0 && name.toLowerCase() === 'authorization').length ?? 0;
  return lines > 1 ? undefined : req.headers.authorization;
}
