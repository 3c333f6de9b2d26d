/**
 * The hook through which whoever runs an adapter sees each HTTP exchange with a provider — traces
 * (provider-call-spans.ts) and metrics hang on it, the HTTP client knows neither. One call is one
 * attempt: a retry after a 429 or a 5xx is another call (`attempt` 2, 3, …); the redirects of one
 * attempt belong to it.
 * Invariant: nothing the observer is given can hold a credential — no headers, no body, no query
 * string (some providers take keys there); the URL is its origin and path only.
 */
import type { Provider } from '@switchyard/domain';
import type { ProviderError } from '../errors.js';

export interface ProviderCall {
  /** The provider the client speaks to; absent for a client built without one (tests). */
  readonly provider: Provider | undefined;
  readonly method: string;
  /** Scheme, host and port of the request (`https://api.samsara.com`). */
  readonly origin: string;
  /** The request's path, without its query string. */
  readonly path: string;
  /**
   * Low-cardinality name of the endpoint, for names and labels: the path with its ids as `{id}`
   * (Motive's `/v1/groups/{id}/users`), or the JSON-RPC method (Geotab's `GetFeed`).
   */
  readonly endpoint: string;
  /** 1 for the first attempt of a request. */
  readonly attempt: number;
}

export interface ProviderCallOutcome {
  /** The HTTP status of the last response, when one arrived. */
  readonly status?: number;
  /** Why the attempt failed (a retry may follow); absent when it succeeded. */
  readonly error?: ProviderError;
}

export interface ProviderCallObserver {
  /** Called as an attempt starts; the returned function is called once, when it ends. */
  start(call: ProviderCall): (outcome: ProviderCallOutcome) => void;
}

/** One observer telling each of `observers` (metrics and spans side by side); the absent ones are left out. */
export function allObservers(...observers: (ProviderCallObserver | undefined)[]): ProviderCallObserver | undefined {
  const present = observers.filter((o): o is ProviderCallObserver => o !== undefined);
  if (present.length <= 1) return present[0];
  return {
    start(call) {
      const ends = present.map((o) => o.start(call));
      return (outcome) => {
        for (const end of ends) end(outcome);
      };
    },
  };
}
