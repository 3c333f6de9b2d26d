/**
 * The provider-hosted OAuth leg of the connect page (spec 4.3 rule 4; decision 0022) and of the
 * grant's upkeep (decision 0027): the authorize URL the customer is sent to, and one
 * server-to-server token request for both grants — `authorization_code` at connect,
 * `refresh_token` when the access token expires (services/oauth-refresh.ts).
 *
 * Invariants of `requestToken`: it calls the configured token URL only (never a host from the
 * request or the provider's answer: no SSRF), follows no redirect, gives up after 10 s; Samsara
 * takes the client credentials as HTTP Basic, Motive as form fields (samsara.md and motive.md §1).
 * The answer's tokens are returned to the caller to verify and seal; nothing here logs them, and a
 * failure is a reason code only (the provider's body is never echoed). `expires_in` (a positive
 * number of seconds) becomes the access token's expiry instant; without it the expiry is unknown.
 */
import type { OAuthClient } from '../config.js';

export type OAuthProviderName = 'samsara' | 'motive';

/** Deadline of one token request (the refresh holds its connection's lock at most this long). */
export const TOKEN_REQUEST_TIMEOUT_MS = 10_000;

export function authorizeUrl(provider: OAuthProviderName, client: OAuthClient, redirectUri: string, state: string): string {
  const url = new URL(client.authorizeUrl);
  url.searchParams.set('client_id', client.clientId);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('state', state);
  // Motive asks for scopes (their names are unconfirmed in the reference); read-only fleet data.
  if (provider === 'motive') url.searchParams.set('scope', 'vehicles.read');
  return url.toString();
}

/** The grant's own form fields (RFC 6749 §4.1.3 and §6). */
export type TokenGrant = { grant_type: 'authorization_code'; code: string; redirect_uri: string } | { grant_type: 'refresh_token'; refresh_token: string };

/**
 * `provider_unavailable`: no answer, a timeout, a redirect, 408, 429 or 5xx (try again later);
 * `provider_auth_required`: any other refusal (400 `invalid_grant`, 401 `invalid_client`: the grant
 * or the client is no good); `provider_response_changed`: a 2xx without a usable access token.
 */
export type TokenOutcome =
  | { ok: true; accessToken: string; refreshToken?: string; expiresAt?: Date }
  | { ok: false; reason: 'provider_unavailable' | 'provider_auth_required' | 'provider_response_changed' };

export async function requestToken(provider: OAuthProviderName, client: OAuthClient, grant: TokenGrant, now: () => number = Date.now): Promise<TokenOutcome> {
  const form = new URLSearchParams(grant);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (provider === 'samsara') headers.authorization = `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;
  else {
    form.set('client_id', client.clientId);
    form.set('client_secret', client.clientSecret);
  }
  let text: string;
  try {
    // The deadline covers reading the body too.
    const res = await fetch(client.tokenUrl, { method: 'POST', headers, body: form, redirect: 'error', signal: AbortSignal.timeout(TOKEN_REQUEST_TIMEOUT_MS) });
    if (res.status >= 500 || res.status === 408 || res.status === 429) return { ok: false, reason: 'provider_unavailable' };
    if (!res.ok) return { ok: false, reason: 'provider_auth_required' };
    text = await res.text();
  } catch {
    return { ok: false, reason: 'provider_unavailable' };
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'provider_response_changed' };
  }
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const { access_token: accessToken, refresh_token: refreshToken, expires_in: expiresIn } = record;
  if (typeof accessToken !== 'string' || accessToken.length === 0) return { ok: false, reason: 'provider_response_changed' };
  const expiresAt = typeof expiresIn === 'number' && expiresIn > 0 ? new Date(now() + expiresIn * 1000) : undefined;
  return {
    ok: true,
    accessToken,
    ...(typeof refreshToken === 'string' && refreshToken ? { refreshToken } : {}),
    // Infinity or an absurd lifetime makes an invalid Date: treated as no expiry given.
    ...(expiresAt && !Number.isNaN(expiresAt.getTime()) ? { expiresAt } : {}),
  };
}
