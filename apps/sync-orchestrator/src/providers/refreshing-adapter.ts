/**
 * The adapter of a connection whose credentials are a refreshable OAuth grant (the gateway's
 * provider-access reply says `refreshable`): when the provider refuses the access token (401,
 * `provider_auth_required`), it asks for fresh credentials naming the refused token (the gateway
 * refreshes the grant once, under its per-connection lock — decision 0027) and repeats the same
 * call once with the new adapter. Every method is a read of one page at a given cursor, so
 * repeating it is the same request again; a unit's job never notices an expiry.
 *
 * Invariants: one call is repeated at most once (a second 401 after a refresh is the provider's
 * answer, thrown as it is); concurrent calls refused with the same token share one renewal, and a
 * call refused with a token already replaced uses the replacement without asking again; a failed
 * renewal (the gateway's `provider_auth_required`: the customer must reconnect; or a bus error) is
 * thrown to the caller and the next refused call tries again. The access token stays inside this
 * object and the factory (adapter-factory.ts); nothing here logs it.
 */
import { ProviderError, type ProviderAdapter } from '@switchyard/providers';

/** One set of credentials: the adapter built on them and their OAuth access token (none once a reconnect replaced the grant with a key). */
export interface Granted {
  readonly adapter: ProviderAdapter;
  readonly accessToken: string | undefined;
}

/** `renew(rejectedToken)`: fresh credentials from the gateway, naming the token the provider refused (undefined: just the current ones). */
export function refreshingAdapter(initial: Granted, renew: (rejectedToken: string | undefined) => Promise<Granted>): ProviderAdapter {
  let current = initial;
  let renewal: { from: Granted; next: Promise<Granted> } | undefined;

  const renewed = (refused: Granted): Promise<Granted> => {
    if (current !== refused) return Promise.resolve(current);
    if (renewal?.from === refused) return renewal.next;
    const next = renew(refused.accessToken).then((granted) => {
      if (current === refused) current = granted;
      return current;
    });
    renewal = { from: refused, next };
    // A failed renewal is not kept: the next refused call asks again.
    next.catch(() => {
      if (renewal?.next === next) renewal = undefined;
    });
    return next;
  };

  async function call<T>(read: (adapter: ProviderAdapter) => Promise<T>): Promise<T> {
    const used = current;
    try {
      return await read(used.adapter);
    } catch (error) {
      if (!(error instanceof ProviderError && error.code === 'provider_auth_required')) throw error;
      return read((await renewed(used)).adapter);
    }
  }

  return {
    provider: initial.adapter.provider,
    capabilities: initial.adapter.capabilities,
    vehicles: (cursor) => call((a) => a.vehicles(cursor)),
    drivers: (cursor) => call((a) => a.drivers(cursor)),
    groups: (cursor) => call((a) => a.groups(cursor)),
    trips: (query) => call((a) => a.trips(query)),
    latestTelemetry: (query) => call((a) => a.latestTelemetry(query)),
    telemetryHistory: (query) => call((a) => a.telemetryHistory(query)),
    faults: (query) => call((a) => a.faults(query)),
  };
}
