/**
 * The provider-hosted OAuth leg of the connect page (spec 4.3 rule 4; decision 0022): the authorize
 * URL the customer is sent to, and the server-to-server code exchange, to the configured token URL
 * only. Samsara takes the client credentials as HTTP Basic; Motive as form fields (samsara.md and
 * motive.md §1). The answer's tokens are returned to the caller to verify and seal; nothing here
 * logs them, and a failure is a reason code only (the provider's body is never echoed).
 */
import type { OAuthClient } from '../config.js';

export type OAuthProviderName = 'samsara' | 'motive';

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

export type ExchangeOutcome = { ok: true; accessToken: string; refreshToken?: string } | { ok: false; reason: string };

export async function exchangeCode(provider: OAuthProviderName, client: OAuthClient, code: string, redirectUri: string): Promise<ExchangeOutcome> {
  const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (provider === 'samsara') headers.authorization = `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;
  else {
    form.set('client_id', client.clientId);
    form.set('client_secret', client.clientSecret);
  }
  let res: Response;
  try {
    res = await fetch(client.tokenUrl, { method: 'POST', headers, body: form, redirect: 'error', signal: AbortSignal.timeout(10_000) });
  } catch {
    return { ok: false, reason: 'provider_unavailable' };
  }
  if (res.status >= 500) return { ok: false, reason: 'provider_unavailable' };
  if (!res.ok) return { ok: false, reason: 'provider_auth_required' };
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    return { ok: false, reason: 'provider_response_changed' };
  }
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const accessToken = record.access_token;
  const refreshToken = record.refresh_token;
  if (typeof accessToken !== 'string' || accessToken.length === 0) return { ok: false, reason: 'provider_response_changed' };
  return { ok: true, accessToken, ...(typeof refreshToken === 'string' && refreshToken ? { refreshToken } : {}) };
}
