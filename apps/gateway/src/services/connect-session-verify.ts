/**
 * Verifying what a customer entered on the connect page against the provider before anything is
 * stored (spec 4.3; decision 0022): one cheap read through the provider adapter of libs/providers,
 * over real HTTP to the configured base URL only (never to a host the customer typed), with one
 * attempt and a short timeout so the page answers while the customer waits. Outside the sandbox
 * the adapter runs under the production egress policy (allow-listed https provider hosts on
 * public addresses; Geotab's named server included — libs/providers egress.ts).
 * Outcome: the provider identity to record, or the provider reason code (never a secret, never the
 * provider's message, which could echo input).
 */
import { createHash } from 'node:crypto';
import type { Environment, Provider } from '@switchyard/domain';
import { createGeotabAdapter, egressPolicyFor, createMotiveAdapter, createSamsaraAdapter, ProviderError, type ProviderAdapter, type ProviderCallObserver, type ProviderCredentials } from '@switchyard/providers';

export type VerifyOutcome = { ok: true; identity: string } | { ok: false; reason: string };

const VERIFY_OPTIONS = { timeoutMs: 10_000, retry: { maxAttempts: 1 } };

/** A stable, non-secret name of the account behind a token: its SHA-256 fingerprint. */
const fingerprint = (secret: string) => createHash('sha256').update(secret).digest('hex').slice(0, 16);

export async function verifyProviderCredentials<P extends Provider>(
  provider: P,
  baseUrl: string,
  credentials: ProviderCredentials[P],
  environment: Environment,
  oauth = false,
  /** Every attempt's metrics and, when the gateway traces, its span (decisions 0040, 0041). */
  observer?: ProviderCallObserver,
): Promise<VerifyOutcome> {
  const options = { ...VERIFY_OPTIONS, egress: egressPolicyFor(provider, environment), ...(observer ? { observer } : {}) };
  let adapter: ProviderAdapter;
  let identity: string;
  if (provider === 'samsara') {
    const c = credentials as ProviderCredentials['samsara'];
    adapter = createSamsaraAdapter({ provider: 'samsara', baseUrl, credentials: c, ...options });
    identity = `samsara:${oauth ? 'oauth' : 'token'}:${fingerprint(c.apiToken)}`;
  } else if (provider === 'geotab') {
    const c = credentials as ProviderCredentials['geotab'];
    adapter = createGeotabAdapter({ provider: 'geotab', baseUrl, credentials: c, ...options });
    identity = `geotab:${c.database}:${c.userName}`;
  } else {
    const c = credentials as ProviderCredentials['motive'];
    adapter = createMotiveAdapter({ provider: 'motive', baseUrl, credentials: c, ...options });
    identity = `motive:${'apiKey' in c ? 'key' : 'oauth'}:${fingerprint('apiKey' in c ? c.apiKey : c.accessToken)}`;
  }
  try {
    await adapter.vehicles(null);
    return { ok: true, identity };
  } catch (error) {
    return { ok: false, reason: error instanceof ProviderError ? error.code : 'provider_unavailable' };
  }
}
