/**
 * The request rate each provider account is budgeted, and the account key its budget row is
 * stored under. Numbers from shared/providers/*.md; a bucket of rate r and burst b lets through at
 * most r·t + b requests in any window t, so "r + b ≤ the per-second limit" keeps every one-second
 * window under the provider's limit whatever window the provider counts in.
 *
 * - Samsara: 150 req/s per API token and 200 req/s per organization (samsara.md "Rate limits") —
 *   the lower, 150, binds one token: 140/s + burst 10 = 150 in any second. Per-endpoint tiers
 *   (vehicles 25/s, trips stream 5/s, drivers 100/min) are lower still: each is its own shared
 *   bucket (PROVIDER_TIERS) taken before the account's, by the same r + b rule (trips 4/s + 1,
 *   vehicles 20/s + 5, drivers 1.5/s + 10 = 100 in any minute), and a 429 on a tiered path pauses
 *   only that tier. Two tokens of one organization can together exceed the 200/s org limit (we
 *   cannot see the org from a token): 429s handle it.
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

/** A per-endpoint limit below the account's: requests whose URL path `matches` also take a token of the tier. */
export interface EndpointTier extends BudgetRate {
  /** Stable name, part of the tier's budget key (never a credential). */
  name: string;
  matches(path: string): boolean;
}

/** Matches `endpoint` at the end of the path (a base URL may carry a prefix). */
const endpoint =
  (suffix: string) =>
  (path: string): boolean =>
    path === suffix || path.endsWith(suffix);

export const PROVIDER_TIERS: Readonly<Record<Provider, readonly EndpointTier[]>> = {
  samsara: [
    { name: 'trips-stream', matches: endpoint('/trips/stream'), ratePerSecond: 4, burst: 1 },
    { name: 'fleet-vehicles', matches: endpoint('/fleet/vehicles'), ratePerSecond: 20, burst: 5 },
    { name: 'fleet-drivers', matches: (p) => endpoint('/fleet/drivers')(p) || /\/fleet\/drivers\/[^/]+$/.test(p), ratePerSecond: 1.5, burst: 10 },
  ],
  // Geotab's per-method limits are not visible in the path (every call POSTs to /apiv1); Motive publishes none.
  geotab: [],
  motive: [],
};

/** What identifies the rate-limited account: the token for Samsara and Motive, database + user for Geotab. */
function accountIdentity<P extends Provider>(provider: P, credentials: ProviderCredentials[P]): string {
  if (provider === 'samsara') return (credentials as ProviderCredentials['samsara']).apiToken;
  if (provider === 'motive') {
    const motive = credentials as ProviderCredentials['motive'];
    return 'apiKey' in motive ? motive.apiKey : motive.accessToken;
  }
  const geotab = credentials as ProviderCredentials['geotab'];
  // Geotab counts per user and database; the password is not part of the identity (a rotated
  // password keeps the same budget).
  return `${geotab.database}\u0000${geotab.userName.toLowerCase()}`;
}

export function budgetAccountKey<P extends Provider>(provider: P, credentials: ProviderCredentials[P]): string {
  return accountKey(provider, accountIdentity(provider, credentials));
}

/**
 * The budget of a connection whose credentials are a refreshable OAuth grant: its access token
 * changes at every refresh, so the grant — one customer authorization of one account, i.e. the
 * connection — is the identity (two OAuth connections of one account get two budgets).
 */
export function oauthGrantBudgetKey(provider: Provider, connectionId: string): string {
  return accountKey(provider, `oauth-grant\u0000${connectionId}`);
}

function accountKey(provider: Provider, identity: string): string {
  const digest = createHash('sha256').update(`${provider}\u0000${identity}`).digest('hex');
  return `${provider}:${digest.slice(0, 16)}`;
}
