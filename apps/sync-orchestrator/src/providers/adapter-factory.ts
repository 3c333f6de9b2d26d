/**
 * Builds the ProviderAdapter a collector uses for one connection: asks the gateway for the
 * connection's provider and credentials (`gateway.connection.provider-access`, sealed to a key pair
 * made for that one request and opened here), then creates the
 * provider's adapter on the configured base URL (real provider, or a simulator in the sandbox),
 * with the account's shared PgRequestBudget, the configured timeout and the deployment's egress
 * policy (outside `SWITCHYARD_ENV=sandbox`: allow-listed https provider hosts on public addresses,
 * Geotab's named server included — libs/providers egress.ts).
 *
 * Caching: an adapter (and the credentials inside it) is reused for `ADAPTER_CACHE_TTL_MS`
 * (default 60 s) and only while the connection-config projection's revision is the one it was
 * built at — the gateway bumps the revision on every configuration change, so a paused or
 * re-configured connection gets a fresh adapter on the next call. Credentials changed without a
 * revision bump are picked up within the TTL, or at once through `invalidate` (a collector calls
 * it after `provider_auth_required`). Budgets are per account and live as long as the factory, so
 * every connection of one account in this process shares one budget queue.
 *
 * OAuth grants (the reply says `refreshable`): the adapter is wrapped by `refreshingAdapter`, so a
 * 401 asks the gateway again naming the refused token (it refreshes the grant once; decision 0027)
 * and the call is repeated with the new credentials. Their budget is keyed by the connection, not
 * by the access token, which changes at every refresh (provider-rates.ts `oauthGrantBudgetKey`).
 *
 * Invariant: credentials never leave this file except inside the adapter; nothing here logs them.
 */
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Environment, Provider } from '@switchyard/domain';
import { PROVIDER_CREDENTIAL_SCHEMAS, providerAccessRequest, type ProviderAccessV1, RPCS } from '@switchyard/messaging';
import type { z } from 'zod';
import { allObservers, createGeotabAdapter, createMotiveAdapter, createSamsaraAdapter, egressPolicyFor, providerCallSpans, type ProviderAdapter, type ProviderCallObserver, type ProviderCredentials } from '@switchyard/providers';
import { ConnectionConfigStore, providerCallMetrics, RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { loadSyncOrchestratorSettings, SYNC_ORCHESTRATOR_SETTINGS, type SyncOrchestratorSettings } from '../config.js';
import { PgRequestBudget } from './pg-request-budget.js';
import { budgetAccountKey, oauthGrantBudgetKey, PROVIDER_RATES, PROVIDER_TIERS } from './provider-rates.js';
import { refreshingAdapter, type Granted } from './refreshing-adapter.js';

// The bus schema and the adapters' credential type must stay one shape: this fails to compile if not.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _credentialShapesAgree: Same<z.output<(typeof PROVIDER_CREDENTIAL_SCHEMAS)['samsara']>, ProviderCredentials['samsara']> &
  Same<z.output<(typeof PROVIDER_CREDENTIAL_SCHEMAS)['motive']>, ProviderCredentials['motive']> &
  Same<z.output<(typeof PROVIDER_CREDENTIAL_SCHEMAS)['geotab']>, ProviderCredentials['geotab']> &
  Same<Extract<ProviderAccessV1, { provider: 'samsara' }>['credentials'], ProviderCredentials['samsara']> = true;

export interface ConnectionAdapter {
  readonly connectionId: string;
  readonly provider: Provider;
  readonly environment: Environment;
  /** The connection's status when the credentials were read (collectors still check the projection). */
  readonly status: ProviderAccessV1['status'];
  /** The configuration revision the adapter was built at. */
  readonly revision: number;
  readonly adapter: ProviderAdapter;
  /** The account's shared budget (`budget.accountKey` is `<provider>:<hash>`, safe to log). */
  readonly budget: PgRequestBudget;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface CacheEntry {
  built: Promise<ConnectionAdapter>;
  /** Projection revision seen when the entry was made (null: no projection row yet). */
  projectionRevision: number | null;
  expiresAt: number;
}

@Injectable()
export class ProviderAdapterFactory {
  private readonly settings: SyncOrchestratorSettings;
  private readonly cache = new Map<string, CacheEntry>();
  private readonly budgets = new Map<string, PgRequestBudget>();
  private readonly projection: ConnectionConfigStore;
  /** Every provider attempt counted and timed (decision 0041), and a client span per attempt when tracing is on (decision 0040). */
  private readonly observer: ProviderCallObserver | undefined;

  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    @Optional() @Inject(SYNC_ORCHESTRATOR_SETTINGS) settings?: SyncOrchestratorSettings,
  ) {
    this.settings = settings ?? loadSyncOrchestratorSettings(process.env);
    this.projection = new ConnectionConfigStore(runtime.orm);
    this.observer = allObservers(providerCallMetrics(runtime.metrics), runtime.tracing && providerCallSpans(runtime.tracing.tracer));
  }

  /** The adapter for `connectionId`, cached (see the header). Rejects with the gateway's RpcError (`not_found`, `provider_config_invalid`) or a bus error. */
  async adapterFor({ connectionId }: { connectionId: string }): Promise<ConnectionAdapter> {
    const projectionRevision = await this.projectionRevision(connectionId);
    const now = Date.now();
    const cached = this.cache.get(connectionId);
    if (cached && cached.expiresAt > now && cached.projectionRevision === projectionRevision) return cached.built;
    const built = this.build(connectionId);
    const entry: CacheEntry = { built, projectionRevision, expiresAt: now + this.settings.adapterCacheTtlMs };
    this.cache.set(connectionId, entry);
    // A failed build is not cached: the next call asks the gateway again.
    built.catch(() => {
      if (this.cache.get(connectionId) === entry) this.cache.delete(connectionId);
    });
    return built;
  }

  /** Forget the cached adapter (e.g. after `provider_auth_required`: credentials may have been rotated). */
  invalidate(connectionId: string): void {
    this.cache.delete(connectionId);
  }

  private async build(connectionId: string): Promise<ConnectionAdapter> {
    const access = await this.access(connectionId);
    const budget = this.budgetFor(access);
    const first = this.adapterOn(access, budget);
    const adapter = access.refreshable ? refreshingAdapter(first, async (rejectedToken) => this.adapterOn(await this.access(connectionId, rejectedToken), budget)) : first.adapter;
    return { connectionId, provider: access.provider, environment: access.environment, status: access.status, revision: access.revision, adapter, budget };
  }

  /** The gateway's answer for one connection; `rejectedToken`: the access token a provider refused (the gateway refreshes the grant). */
  private async access(connectionId: string, rejectedToken?: string): Promise<ProviderAccessV1> {
    // A fresh key pair per request: the gateway seals the credentials to it (decision 0024).
    const sealed = providerAccessRequest(connectionId, rejectedToken);
    return sealed.open(await this.runtime.bus.request(RPCS.gateway.providerAccess, sealed.request, { timeoutMs: this.settings.providerAccessTimeoutMs }));
  }

  /** The provider's adapter on `access`'s credentials, and its OAuth access token if it has one. */
  private adapterOn(access: ProviderAccessV1, budget: PgRequestBudget): Granted {
    const common = {
      baseUrl: this.settings.providerBaseUrls[access.provider],
      budget,
      timeoutMs: this.settings.providerTimeoutMs,
      egress: egressPolicyFor(access.provider, this.runtime.environment),
      observer: this.observer,
    };
    const adapter =
      access.provider === 'samsara'
        ? createSamsaraAdapter({ ...common, provider: 'samsara', credentials: access.credentials })
        : access.provider === 'motive'
          ? createMotiveAdapter({ ...common, provider: 'motive', credentials: access.credentials })
          : createGeotabAdapter({ ...common, provider: 'geotab', credentials: access.credentials });
    return { adapter, accessToken: oauthAccessToken(access) };
  }

  private budgetFor(access: ProviderAccessV1): PgRequestBudget {
    const accountKey = access.refreshable ? oauthGrantBudgetKey(access.provider, access.connectionId) : budgetAccountKey(access.provider, access.credentials);
    let budget = this.budgets.get(accountKey);
    if (!budget) {
      const logger = this.runtime.logger;
      budget = new PgRequestBudget(this.runtime.orm, {
        accountKey,
        provider: access.provider,
        ...PROVIDER_RATES[access.provider],
        tiers: PROVIDER_TIERS[access.provider],
        onError: (error) => logger.warn({ err: error, accountKey }, 'provider pause could not be shared; it holds in this process only'),
      });
      this.budgets.set(accountKey, budget);
    }
    return budget;
  }

  private async projectionRevision(connectionId: string): Promise<number | null> {
    // A malformed id has no projection row; the gateway answers it with invalid_request.
    if (!UUID.test(connectionId)) return null;
    return (await this.projection.get(connectionId))?.revision ?? null;
  }
}

/** The bearer token an OAuth grant gives (Samsara's `apiToken`, Motive's `accessToken`); none for keys and Geotab logins. */
function oauthAccessToken(access: ProviderAccessV1): string | undefined {
  if (access.provider === 'samsara') return access.credentials.apiToken;
  if (access.provider === 'motive' && 'accessToken' in access.credentials) return access.credentials.accessToken;
  return undefined;
}
