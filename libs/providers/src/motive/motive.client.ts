/**
 * Motive REST client: auth, units header, page-number pagination and the v3 concurrency cap, on
 * top of the shared ProviderHttpClient (request budget, retries with full jitter, Retry-After,
 * timeouts, reason codes). Every response is validated against the adapter's own zod schema, its
 * envelope as a whole and its records one by one (a malformed record is skipped, not the page).
 *
 * Invariants: every request carries `X-Api-Key` and `X-Metric-Units: true` (motive.md §1 — units
 * are otherwise the account's preference, which is unconfirmed; the mappers still detect imperial
 * records through `metric_units`); `per_page` never exceeds Motive's 100; at most 10 `/v3/...`
 * history calls are in flight per client (motive.md §5.2).
 */
import type { AdapterOptions } from '../adapter.js';
import { ProviderHttpClient, type ProviderRequest } from '../http/provider-http-client.js';
import { parseMotiveList, type ListPage, type MotiveList, type MotivePagination } from './motive.schemas.js';

/** Motive's documented page-size maximum (default 25). */
export const MOTIVE_MAX_PER_PAGE = 100;
/** Documented cap on simultaneous `GET /v3/vehicle_locations/{id}` requests. */
export const MOTIVE_V3_MAX_CONCURRENCY = 10;

type Query = ProviderRequest['query'];

/** A counting semaphore; waiters are served in arrival order. */
export class Semaphore {
  private active = 0;
  private readonly waiters: Array<() => void> = [];
  private peakInFlight = 0;

  constructor(private readonly limit: number) {}

  get peak(): number {
    return this.peakInFlight;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiters.push(resolve));
    this.active++;
    this.peakInFlight = Math.max(this.peakInFlight, this.active);
    try {
      return await task();
    } finally {
      this.active--;
      this.waiters.shift()?.();
    }
  }
}

/**
 * The endpoint of a path for the call observer: the two paths that carry an id
 * (`/v1/groups/<id>/users`, `/v3/vehicle_locations/<id>`) with it as `{id}`, so a span name or a
 * metric label stays one per endpoint, not one per group or vehicle.
 */
export function motiveEndpoint(path: string): string {
  return path.replace(/^\/v1\/groups\/[^/]+\/users$/, '/v1/groups/{id}/users').replace(/^\/v3\/vehicle_locations\/[^/]+$/, '/v3/vehicle_locations/{id}');
}

export class MotiveClient {
  private readonly http: ProviderHttpClient;
  readonly v3Slots = new Semaphore(MOTIVE_V3_MAX_CONCURRENCY);

  constructor(options: AdapterOptions<'motive'>, fetchImpl?: typeof fetch) {
    const credentials = options.credentials;
    // An API key goes in X-Api-Key; an OAuth access token as a Bearer token (motive.md §1).
    const auth: Record<string, string> = 'apiKey' in credentials ? { 'x-api-key': credentials.apiKey } : { authorization: `Bearer ${credentials.accessToken}` };
    this.http = new ProviderHttpClient({
      baseUrl: options.baseUrl,
      budget: options.budget,
      clock: options.clock,
      retry: options.retry,
      timeoutMs: options.timeoutMs,
      random: options.random,
      fetch: fetchImpl,
      egress: options.egress,
      provider: 'motive',
      observer: options.observer,
      headers: () => ({ ...auth, 'x-metric-units': 'true' }),
    });
  }

  /** One page of a list endpoint, parsed record by record (parseMotiveList). `page` is 1-based like Motive's `page_no`. */
  async listPage<T>(path: string, list: MotiveList<T>, page: number, query: Query = {}, perPage = MOTIVE_MAX_PER_PAGE): Promise<ListPage<T>> {
    const res = await this.http.request({ path, endpoint: motiveEndpoint(path), query: { ...query, per_page: Math.min(perPage, MOTIVE_MAX_PER_PAGE), page_no: page } });
    return parseMotiveList(list, res.json, path);
  }

  /** A v3 history page, holding one of the 10 v3 slots while in flight. */
  async historyPage<T>(path: string, list: MotiveList<T>, page: number, query: Query): Promise<ListPage<T>> {
    return this.v3Slots.run(() => this.listPage(path, list, page, query));
  }
}

/**
 * The next page number, or null when done. Motive has no cursor: we stop once `page_no × per_page`
 * reaches `total`, and also on an empty page (so a `total` that is too high cannot loop forever).
 * The server's `per_page` is used, in case it capped the size we asked for. `entriesOnPage` counts
 * every entry read, skipped ones included.
 */
export function nextPageNo(pagination: MotivePagination | undefined, entriesOnPage: number): number | null {
  if (!pagination || entriesOnPage === 0) return null;
  return pagination.page_no * pagination.per_page < pagination.total ? pagination.page_no + 1 : null;
}
