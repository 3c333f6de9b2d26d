/**
 * Samsara HTTP client: bearer auth, cursor pagination and response validation on top of the shared
 * ProviderHttpClient (request budget, Retry-After, jittered backoff, timeouts, reason codes).
 * Invariant: every record that reaches a mapper has passed its zod schema, and a page that claims
 * `hasNextPage` with an empty cursor is refused (`provider_response_changed`) rather than looped on.
 * The page structure (envelope, pagination) is checked as a whole; records one by one with the shared
 * parseRecords (http/parse.ts): a record that fails its schema is reported in `skipped` with its id
 * and the first problem's path, and the rest of the page is used. Only when every record of a
 * non-empty page fails is it a response change.
 * The token travels only in the Authorization header and never appears in errors.
 */
import { z } from 'zod';
import type { AdapterOptions, SkippedRecord } from '../adapter.js';
import { ProviderError } from '../errors.js';
import { PageRecords, parseProviderResponse, parseRecords } from '../http/parse.js';
import { ProviderHttpClient, type ProviderRequest } from '../http/provider-http-client.js';
import { systemClock, type Clock } from '../http/request-budget.js';
import { samsaraEnvelope, samsaraLegacyTripSchema, type SamsaraLegacyTrip } from './samsara.schemas.js';

const samsaraLegacyTripsEnvelope = z.looseObject({ trips: z.array(z.unknown()) });

/** Default and maximum `limit` of /fleet/vehicles, /fleet/drivers and /tags (§1 Pagination). */
export const SAMSARA_MAX_PAGE_SIZE = 512;
/** The legacy trips window may span at most 90 days (§6.2). */
export const SAMSARA_LEGACY_TRIPS_MAX_WINDOW_MS = 90 * 24 * 3600 * 1000;

export type SamsaraQuery = NonNullable<ProviderRequest['query']>;

export interface SamsaraPage<T> {
  readonly data: readonly T[];
  /** Records that failed their schema, with why (the rest of the page is in `data`). */
  readonly skipped: readonly SkippedRecord[];
  /** null when Samsara reports no further page. */
  readonly after: string | null;
}

/** Validates a `{data, pagination}` body, records one by one (parseRecords); also used by the fixture tests. */
export function parseSamsaraPage<S extends z.ZodType>(item: S, json: unknown, path: string): SamsaraPage<z.output<S>> {
  const body = parseProviderResponse(samsaraEnvelope(z.unknown()), json, path);
  const { endCursor, hasNextPage } = body.pagination;
  if (hasNextPage && endCursor === '') {
    throw new ProviderError('provider_response_changed', { path, message: 'pagination.hasNextPage without an endCursor' });
  }
  const { data, skipped } = parseRecords(item, body.data, { path, prefix: 'data' });
  return { data, skipped, after: hasNextPage ? endCursor : null };
}

export class SamsaraClient {
  readonly clock: Clock;
  private readonly http: ProviderHttpClient;

  constructor(options: Omit<AdapterOptions<'samsara'>, 'provider'>) {
    this.clock = options.clock ?? systemClock;
    const token = options.credentials.apiToken;
    this.http = new ProviderHttpClient({
      baseUrl: options.baseUrl,
      budget: options.budget,
      retry: options.retry,
      timeoutMs: options.timeoutMs,
      clock: options.clock,
      random: options.random,
      egress: options.egress,
      provider: 'samsara',
      observer: options.observer,
      headers: () => ({ authorization: `Bearer ${token}` }),
    });
  }

  /** One page of a `{data, pagination}` endpoint, validated item by item against `item`. */
  async page<S extends z.ZodType>(path: string, item: S, query: SamsaraQuery, after: string | null): Promise<SamsaraPage<z.output<S>>> {
    const response = await this.http.request({ path, query: { ...query, ...(after ? { after } : {}) } });
    return parseSamsaraPage(item, response.json, path);
  }

  /**
   * Legacy `/v1/fleet/trips` for one vehicle (ids are ints there). Windows longer than 90 days are
   * split; the endpoint has no pagination. The `{trips}` envelope is checked as a whole, each trip
   * into `page` (PageRecords): a malformed legacy trip only costs its stream trip the enrichment, and
   * is reported; the all-fail rule is the page's.
   */
  async legacyTrips(vehicleId: string, startMs: number, endMs: number, page: PageRecords): Promise<SamsaraLegacyTrip[]> {
    // The endpoint takes an int: an id that is not a safe integer cannot be sent, so there is no legacy data for it.
    if (!/^\d+$/.test(vehicleId) || !Number.isSafeInteger(Number(vehicleId))) return [];
    const trips: SamsaraLegacyTrip[] = [];
    for (let from = startMs; from < endMs; from += SAMSARA_LEGACY_TRIPS_MAX_WINDOW_MS) {
      const to = Math.min(endMs, from + SAMSARA_LEGACY_TRIPS_MAX_WINDOW_MS);
      const path = '/v1/fleet/trips';
      const response = await this.http.request({ path, query: { vehicleId, startMs: from, endMs: to } });
      const body = parseProviderResponse(samsaraLegacyTripsEnvelope, response.json, path);
      trips.push(...page.parse(samsaraLegacyTripSchema, body.trips, { path, prefix: 'trips', idOf: () => vehicleId }).data);
    }
    return trips;
  }
}
