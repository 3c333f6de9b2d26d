/**
 * The request rate each provider account is budgeted, and the account key its budget row is
 * stored under. Numbers from shared/providers/*.md; a bucket of rate r and burst b lets through at
 * most r·t + b requests in any window t, so "r + b ≤ the per-second limit" keeps every one-second
 * window under the provider's limit whatever window the provider counts in.
 *
 * - Samsara: 150 req/s per API token and 200 req/s per organization (samsara.md "Rate limits") —
 *   the lower, 150, binds one token: 140/s + burst 10 = 150 in any second. Per-endpoint tiers
 *   (vehicles 25/s, trips stream 5/s, drivers 100/min) are lower still and enforced by Samsara;
 *   their 429s pause the whole account through Retry-After. Two tokens of one organization can
 *   together exceed the 200/s org limit (we cannot see the org from a token): 429s handle it.
 * - Geotab: limits are per (method, type, user, database) — Get 900/min, GetFeed 60/min per type,
 *   Authenticate 10/min (geotab.md §1.4) — and enforced by Geotab with OverLimitException +
 *   Retry-After. One overall budget cannot encode per-method limits, so it is a conservative
 *   ceiling: 8/s + burst 2 = 10 requests in any second (Get alone allows 15/s; an ExecuteMultiCall
 *   counts as one request).
 * - Motive: no published limit (motive.md, unconfirmed). Conservative: 16/s + burst 4 = 20 in any
 *   second, the rate Motive's own v3 location limit suggests, well under the simulator's 50/s.
 *
 * Invariant: the key is `<provider>:<first 16 hex of SHA-256 over the account identity>` — stable
 * for one account, never the credential (nor reversible to it); every connection on the same
 * provider account shares it, so they share one budget.
 */
import { createHash } from 'node:crypto';
import type { Provider } from '@switchyard/domain';
import type { ProviderCredentials } from '@switchyard/providers';

export interface BudgetRate {
  ratePerSecond: number;
  burst: number;
}

export const PROVIDER_RATES: Readonly<Record<Provider, BudgetRate>> = {
  samsara: { ratePerSecond: 140, burst: 10 },
  geotab: { ratePerSecond: 8, burst: 2 },
  motive: { ratePerSecond: 16, burst: 4 },
};

/** What identifies the rate-limited account: the token for Samsara and Motive, database + user for Geotab. */
function accountIdentity<P extends Provider>(provider: P, credentials: ProviderCredentials[P]): string {
  if (provider === 'samsara') return (credentials as ProviderCredentials['samsara']).apiToken;
  if (provider === 'motive') return (credentials as ProviderCredentials['motive']).apiKey;
  const geotab = credentials as ProviderCredentials['geotab'];
  // Geotab counts per user and database; the password is not part of the identity (a rotated
  // password keeps the same budget).
  return `${geotab.database}\u0000${geotab.userName.toLowerCase()}`;
}

export function budgetAccountKey<P extends Provider>(provider: P, credentials: ProviderCredentials[P]): string {
  const digest = createHash('sha256').update(`${provider}\u0000${accountIdentity(provider, credentials)}`).digest('hex');
  return `${provider}:${digest.slice(0, 16)}`;
}
