/**
 * The status rules of spec section 5, in one place:
 * - a wrong, unknown, revoked or malformed credential is 401 `unauthorized`; a `pt_` consumer key
 *   on a sync route is 401 too (rule 1), and so is an application secret on a connection route;
 * - connection routes: no grant for the connection, or a grant without the needed permission,
 *   is 404 `not_found`, byte-for-byte the answer for a connection that does not exist (rule 4);
 * - sync routes: the Connection-Token must belong to the calling application (else 401); a
 *   sandbox application reaching a production connection (or the reverse) is 403
 *   `connection_forbidden`; a missing operation grant 403 `operation_forbidden`; a missing history
 *   grant 403 `history_forbidden` (rules 2 and 4);
 * - a disconnected connection has its local access disabled (spec 3: "the disconnect operation
 *   disables the connection's local access and collection"): every grant on it is treated as
 *   absent — connection routes answer 404 `not_found`, sync routes 403 `connection_forbidden`,
 *   byte-identical to a connection the caller holds no grant on. Re-activating the connection
 *   restores access; cursors issued before the disconnect stay refused, because they are bound to
 *   the connection's access epoch, which every disconnect bumps (docs/decisions/0013).
 * Credential order is fixed (authenticate first, then authorize) so a caller without a valid
 * credential learns nothing about which connections exist.
 */
import { Injectable } from '@nestjs/common';
import { isUuid } from '@switchyard/domain';
import { AuthRepository, type ConnectionAccess } from '../db/repositories/auth.repository.js';
import { ApiError } from '../http/api-error.js';
import { bearerToken, credentialMatches, parseCredential } from '../services/credential-format.js';
import { PrincipalCache, type CachedLookup } from './principal-cache.js';
import { RequestRateLimiter, type RateSubjectKind } from './request-rate-limiter.js';
import { CONSUMER_PERMISSIONS, SYNC_OPERATIONS, type ApplicationOwnerPrincipal, type ApplicationPrincipal, type ConsumerPermission, type ConsumerPrincipal, type SyncOperation } from './principal.js';

/** The one rule of "local access disabled": a grant on a disconnected connection authorizes nothing. */
function accessDisabled(connection: ConnectionAccess): boolean {
  return connection.status === 'disconnected';
}

@Injectable()
export class AuthService {
  constructor(
    private readonly repo: AuthRepository,
    private readonly limiter: RequestRateLimiter,
    private readonly cache: PrincipalCache,
  ) {}

  /**
   * The rows of a presented token, verified: from the principal cache (principal-cache.ts) when it
   * matched before, else looked up and compared with the stored hash in constant time; an unknown,
   * mismatched or revoked token is 401 `unauthorized` and never cached.
   */
  private async verified<T extends { secretHash: Buffer; revoked: boolean }>(lookup: CachedLookup, token: string, scope: string, load: () => Promise<T | undefined>): Promise<T> {
    const cached = this.cache.get<T>(lookup, token, scope);
    if (cached) return cached;
    const since = this.cache.mark();
    const row = await load();
    if (!row || !credentialMatches(token, row.secretHash) || row.revoked) throw new ApiError('unauthorized');
    this.cache.set(lookup, token, scope, row, since);
    return row;
  }

  /**
   * The request rate limit (issue 14): once the credential is verified — so an unknown credential
   * costs no bucket — one token of its bucket (in memory, request-rate-limiter.ts), else 429
   * `rate_limited` with `Retry-After`.
   */
  private limitRate(kind: RateSubjectKind, id: string): void {
    const taken = this.limiter.take(kind, id);
    if (!taken.allowed) throw new ApiError('rate_limited', { 'Retry-After': String(taken.retryAfterSeconds) });
  }

  async consumer(authorization: unknown, connectionId: string | undefined, permission: ConsumerPermission): Promise<ConsumerPrincipal> {
    const parsed = parseCredential(bearerToken(authorization));
    if (!parsed || parsed.kind !== 'consumerKey') throw new ApiError('unauthorized');
    const validConnection = connectionId !== undefined && isUuid(connectionId);
    const row = await this.verified('consumerKey', parsed.token, validConnection ? connectionId : '', () => this.repo.consumerKey(parsed.lookupId, validConnection ? connectionId : null));
    this.limitRate('key', row.id);
    if (!validConnection || !row.permissions || !row.connection || accessDisabled(row.connection) || !row.permissions.includes(permission)) throw new ApiError('not_found');
    return {
      kind: 'consumer',
      consumerKeyId: row.id,
      connectionId,
      permissions: row.permissions.filter((p): p is ConsumerPermission => (CONSUMER_PERMISSIONS as readonly string[]).includes(p)),
      credentialVersion: row.credentialVersion,
      accessEpoch: row.connection.accessEpoch,
    };
  }

  /** Connection-independent reads (the catalog): any valid, unrevoked consumer key. */
  async consumerKeyOnly(authorization: unknown): Promise<{ consumerKeyId: string }> {
    const parsed = parseCredential(bearerToken(authorization));
    if (!parsed || parsed.kind !== 'consumerKey') throw new ApiError('unauthorized');
    const row = await this.verified('consumerKey', parsed.token, '', () => this.repo.consumerKey(parsed.lookupId, null));
    this.limitRate('key', row.id);
    return { consumerKeyId: row.id };
  }

  /** The application of a presented secret (`sk_sandbox_…` of a sandbox one, `sk_prod_…` of a production one), rate-limited; else 401. */
  private async applicationOf(authorization: unknown) {
    const secret = parseCredential(bearerToken(authorization));
    if (!secret || (secret.kind !== 'sandboxSecret' && secret.kind !== 'prodSecret')) throw new ApiError('unauthorized');
    const app = await this.verified('application', secret.token, '', () => this.repo.application(secret.lookupId));
    const expectedEnv = secret.kind === 'sandboxSecret' ? 'sandbox' : 'production';
    if (app.environment !== expectedEnv) throw new ApiError('unauthorized');
    this.limitRate('app', app.id);
    return app;
  }

  /** Routes of the application itself (webhook endpoints): the secret alone, no Connection-Token. */
  async applicationOwner(authorization: unknown): Promise<ApplicationOwnerPrincipal> {
    const app = await this.applicationOf(authorization);
    return { kind: 'application-owner', applicationId: app.id, environment: app.environment, credentialVersion: app.credentialVersion };
  }

  async application(authorization: unknown, connectionTokenHeader: unknown, operation: SyncOperation, needsHistory = false): Promise<ApplicationPrincipal> {
    const app = await this.applicationOf(authorization);

    const tokenValue = typeof connectionTokenHeader === 'string' ? connectionTokenHeader.trim() : undefined;
    const token = parseCredential(tokenValue);
    if (!token || token.kind !== 'connectionToken') throw new ApiError('unauthorized');
    const row = await this.verified('connectionToken', token.token, '', () => this.repo.connectionToken(token.lookupId));
    if (row.applicationId !== app.id) throw new ApiError('unauthorized');

    if (row.connectionEnvironment !== app.environment) throw new ApiError('connection_forbidden');
    if (!row.operations || accessDisabled(row.connection)) throw new ApiError('connection_forbidden');
    if (!row.operations.includes(operation)) throw new ApiError('operation_forbidden');
    if (needsHistory && !row.history) throw new ApiError('history_forbidden');
    return {
      kind: 'application',
      applicationId: app.id,
      environment: app.environment,
      connectionId: row.connectionId,
      operations: row.operations.filter((o): o is SyncOperation => (SYNC_OPERATIONS as readonly string[]).includes(o)),
      history: row.history ?? false,
      credentialVersion: app.credentialVersion,
      accessEpoch: row.connection.accessEpoch,
      connectionTokenId: row.id,
      tokenVersion: app.tokenVersion,
    };
  }
}
