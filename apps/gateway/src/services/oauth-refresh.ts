/**
 * Keeps a connection's OAuth grant alive (decision 0027): provider-access
 * (handlers/provider-access.handler.ts) refreshes the sealed access token with the sealed refresh
 * token when a collector reports that the provider refused it (`rejectedTokenHash` equal to the
 * stored token's hash: reactive) or when the stored expiry is less than PROACTIVE_REFRESH_MARGIN_MS
 * away (proactive).
 *
 * Invariants:
 * - one refresh at a time per connection across every gateway process: the refresh runs in a
 *   transaction holding the connection's advisory lock (db/repositories/oauth-grant.repository.ts),
 *   held only around the token call (TOKEN_REQUEST_TIMEOUT_MS) and the write. Providers rotate
 *   refresh tokens (a used one answers `invalid_grant`), so two concurrent refreshes would make one
 *   of them fail and report a healthy grant as needing reconnection;
 * - under the lock the row's seal is read again: unless it is still the seal the decision was made
 *   on (same token, same expiry, so the reason still holds), another process refreshed meanwhile
 *   or a reconnect replaced the grant, and the caller answers the current row without calling the
 *   provider;
 * - the new credentials are written by a compare-and-swap on that seal: a reconnect that committed
 *   while the token call ran wins, and the refreshed tokens are dropped. The configuration
 *   revision is not bumped (the connection's configuration did not change; collectors key their
 *   cache on it and ask again on a 401 anyway);
 * - sealed credentials hold the access token under the provider's key (`apiToken` for Samsara,
 *   `accessToken` for Motive), `refreshToken` (the new one, or the old when the answer has none)
 *   and `accessTokenExpiresAt` (ISO 8601, when the provider gave `expires_in`). The credential
 *   schemas of libs/messaging strip the last two, so collectors never receive them;
 * - outcomes: a reactive refresh the provider refuses is `provider_auth_required` (reconnect), one
 *   it cannot answer is `provider_unavailable`; a proactive one that fails only logs a warning and
 *   the still-valid credentials are answered. Logs name the connection, provider, reason and new
 *   expiry, never a token.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Provider } from '@switchyard/domain';
import { RpcError } from '@switchyard/messaging';
import { isDatabaseDeadline, type Em } from '@switchyard/persistence';
import type { ServiceRuntime } from '@switchyard/service-kit';
import type { GatewaySettings, OAuthClient } from '../config.js';
import { lockGrantRefresh, sealedCredentials, swapSealedCredentials } from '../db/repositories/oauth-grant.repository.js';
import { requestToken, type OAuthProviderName } from './connect-session-oauth.js';
import type { SecretBox } from './secret-box.js';

/**
 * A proactive refresh starts when the stored access token expires in less than this: long enough
 * that a collector's run started now finishes on a valid token, short against the providers'
 * common one-hour lifetime (samsara.md §1), so a grant refreshes about once per lifetime.
 */
export const PROACTIVE_REFRESH_MARGIN_MS = 5 * 60_000;

/** Where each provider's sealed credentials keep the OAuth access token. */
export const ACCESS_TOKEN_KEY = { samsara: 'apiToken', motive: 'accessToken' } as const satisfies Record<OAuthProviderName, string>;

/**
 * The credentials sealed for a grant from a token answer (at connect and at every refresh): the
 * access token under the provider's key, the refresh token (the answer's, else `keptRefreshToken`:
 * a refresh answer may omit it) and the expiry when the provider gave one.
 */
export function grantCredentials(provider: OAuthProviderName, answer: { accessToken: string; refreshToken?: string; expiresAt?: Date }, keptRefreshToken?: string): Record<string, string> {
  const refreshToken = answer.refreshToken ?? keptRefreshToken;
  return {
    [ACCESS_TOKEN_KEY[provider]]: answer.accessToken,
    ...(refreshToken ? { refreshToken } : {}),
    ...(answer.expiresAt ? { accessTokenExpiresAt: answer.expiresAt.toISOString() } : {}),
  };
}

export type RefreshReason = 'rejected' | 'expiring';

/** A grant the gateway can refresh: the stored refresh token and the provider's registered OAuth client. */
export interface RefreshableGrant {
  provider: OAuthProviderName;
  client: OAuthClient;
  refreshToken: string;
}

/** The opened credentials as a record (anything else fits no provider and is refused later by its schema). */
export const credentialRecord = (opened: unknown): Record<string, unknown> =>
  typeof opened === 'object' && opened !== null && !Array.isArray(opened) ? (opened as Record<string, unknown>) : {};

/** `refreshable` of the reply: the credentials carry a refresh token and the provider's OAuth client is configured. */
export function refreshableGrant(provider: Provider, credentials: Record<string, unknown>, settings: Pick<GatewaySettings, 'oauth'>): RefreshableGrant | undefined {
  const { refreshToken } = credentials;
  if (provider === 'geotab' || typeof refreshToken !== 'string' || refreshToken.length === 0) return undefined;
  const client = settings.oauth?.[provider];
  return client ? { provider, client, refreshToken } : undefined;
}

/** Constant-time: is `rejectedTokenHash` (SHA-256, base64url) the hash of `token`? */
function isHashOf(rejectedTokenHash: string, token: string): boolean {
  const rejected = Buffer.from(rejectedTokenHash, 'base64url');
  const stored = createHash('sha256').update(token, 'utf8').digest();
  return rejected.length === stored.length && timingSafeEqual(rejected, stored);
}

/** Why the stored credentials should be refreshed now, if at all. */
export function refreshReason(provider: OAuthProviderName, credentials: Record<string, unknown>, rejectedTokenHash: string | undefined, now: number): RefreshReason | undefined {
  const token = credentials[ACCESS_TOKEN_KEY[provider]];
  if (rejectedTokenHash !== undefined && typeof token === 'string' && isHashOf(rejectedTokenHash, token)) return 'rejected';
  const { accessTokenExpiresAt } = credentials;
  const expiresAt = typeof accessTokenExpiresAt === 'string' ? Date.parse(accessTokenExpiresAt) : Number.NaN;
  return expiresAt - now < PROACTIVE_REFRESH_MARGIN_MS ? 'expiring' : undefined;
}

type Attempt =
  | { kind: 'refreshed'; accessTokenExpiresAt?: string }
  | { kind: 'superseded' }
  | { kind: 'replaced' }
  | { kind: 'failed'; reason: 'provider_unavailable' | 'provider_auth_required' | 'provider_response_changed' };

export class OAuthRefresh {
  constructor(
    private readonly runtime: ServiceRuntime,
    private readonly secrets: SecretBox,
  ) {}

  /**
   * Refreshes `grant` of `connectionId` if the row still holds `seenSeal` once the connection's
   * refresh lock is taken. Resolves when the row holds the credentials to answer (refreshed, or
   * current); throws RpcError when a reactive refresh fails.
   */
  async refresh(connectionId: string, grant: RefreshableGrant, seenSeal: string, reason: RefreshReason): Promise<void> {
    const { provider } = grant;
    let attempt: Attempt;
    try {
      attempt = await this.runtime.orm.em.fork().transactional((em) => this.attempt(em, connectionId, grant, seenSeal));
    } catch (error) {
      // E.g. waiting behind a refresh longer than DB_LOCK_TIMEOUT_MS: the proactive caller still has valid credentials.
      if (reason === 'expiring' && isDatabaseDeadline(error)) {
        this.runtime.logger.warn({ connectionId, provider, reason }, 'OAuth refresh skipped: the database did not answer in time');
        return;
      }
      throw error;
    }
    const log = this.runtime.logger;
    switch (attempt.kind) {
      case 'refreshed':
        log.info({ connectionId, provider, reason, accessTokenExpiresAt: attempt.accessTokenExpiresAt ?? null }, 'OAuth grant refreshed');
        return;
      case 'superseded':
        return;
      case 'replaced':
        log.info({ connectionId, provider, reason }, 'OAuth refresh dropped: the connection’s credentials were replaced meanwhile');
        return;
      case 'failed':
        log.warn({ connectionId, provider, reason, code: attempt.reason }, 'OAuth refresh failed');
        if (reason === 'expiring') return;
        if (attempt.reason === 'provider_auth_required') throw new RpcError('provider_auth_required', 'the OAuth grant could not be refreshed; reconnect the connection');
        throw new RpcError('provider_unavailable', 'the provider’s token endpoint did not answer the refresh; try again later');
    }
  }

  private async attempt(em: Em, connectionId: string, grant: RefreshableGrant, seenSeal: string): Promise<Attempt> {
    await lockGrantRefresh(em, connectionId);
    // The same seal: the same token and expiry, so the reason to refresh still holds.
    if ((await sealedCredentials(em, connectionId)) !== seenSeal) return { kind: 'superseded' };
    const answer = await requestToken(grant.provider, grant.client, { grant_type: 'refresh_token', refresh_token: grant.refreshToken });
    if (!answer.ok) return { kind: 'failed', reason: answer.reason };
    const next = grantCredentials(grant.provider, answer, grant.refreshToken);
    const { accessTokenExpiresAt } = next;
    const swapped = await swapSealedCredentials(em, connectionId, seenSeal, this.secrets.seal(JSON.stringify(next), connectionId));
    return swapped ? { kind: 'refreshed', ...(accessTokenExpiresAt ? { accessTokenExpiresAt } : {}) } : { kind: 'replaced' };
  }
}
