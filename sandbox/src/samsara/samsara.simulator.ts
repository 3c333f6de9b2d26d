/**
 * The Samsara REST v2 simulator as a SimulatorDefinition for the kit: bearer tokens are accounts,
 * errors are `{message, requestId}`, rate limits are Samsara's published ones, and the routes render
 * the shared fleet in Samsara's shapes and units (see the route files). The kit does the server,
 * scenarios and control API; this file only names the dialect and dispatches.
 *
 * Rate limits (samsara.md §1): 150 req/s per token, 200 req/s per org (an account is one org with one
 * token here, so both buckets apply to the same requests, as they would for a single-token org), and
 * the per-endpoint tiers the SDK states: GET /fleet/vehicles 25/s, /fleet/drivers 100/min, /trips/stream
 * 5/s. Endpoints without a stated tier get only the global limits.
 */
import type { RateLimit, SimContext, SimErrorKind, SimRequest, SimResponse, SimulatorDefinition } from '../common/sim-kit.types.js';
import { getDriver, getTag, getVehicle, listDrivers, listTags, listVehicles } from './samsara-directory.routes.js';
import { csvParam, SamsaraRequestError, samsaraError } from './samsara-http.js';
import { makeStatsRoutes } from './samsara-stats.routes.js';
import { makeTripRoutes } from './samsara-trips.routes.js';

export interface SamsaraSimulatorOptions {
  /** Cap on `limit` for vehicles, drivers, tags (default 512, Samsara's maximum). */
  maxPageSize?: number;
  /** Vehicles per stats snapshot / feed page (default 512). */
  statsPageSize?: number;
  /** Vehicles per stats history page (default 50). */
  historyPageSize?: number;
  /** Trips per /trips/stream page (default 512). */
  tripsPageSize?: number;
  /** Sample step of history and feed points while driving (default 60 s). */
  historyStepMs?: number;
}

const ENDPOINT_TIERS: readonly { match: (path: string) => boolean; name: string; ratePerSecond: number; burst: number }[] = [
  { match: (p) => p === '/fleet/vehicles', name: 'GET /fleet/vehicles', ratePerSecond: 25, burst: 25 },
  { match: (p) => p === '/fleet/drivers' || p.startsWith('/fleet/drivers/'), name: 'drivers', ratePerSecond: 100 / 60, burst: 100 },
  { match: (p) => p === '/trips/stream', name: 'GET /trips/stream', ratePerSecond: 5, burst: 5 },
];

function bearerToken(req: SimRequest): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return match?.[1];
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

export function createSamsaraSimulator(options: SamsaraSimulatorOptions = {}): SimulatorDefinition {
  const directory = { maxPageSize: options.maxPageSize ?? 512 };
  const stats = makeStatsRoutes({
    statsPageSize: options.statsPageSize ?? 512,
    historyPageSize: options.historyPageSize ?? 50,
    historyStepMs: options.historyStepMs ?? 60_000,
  });
  const trips = makeTripRoutes({ tripsPageSize: options.tripsPageSize ?? 512 });

  function route(req: SimRequest, ctx: SimContext): SimResponse {
    const path = req.path.replace(/\/+$/, '') || '/';
    switch (path) {
      case '/fleet/vehicles':
        return listVehicles(req, ctx, directory);
      case '/fleet/drivers':
        return listDrivers(req, ctx, directory);
      case '/tags':
        return listTags(req, ctx, directory);
      case '/fleet/vehicles/stats':
        return stats.snapshot(req, ctx);
      case '/fleet/vehicles/stats/feed':
        return stats.feed(req, ctx);
      case '/fleet/vehicles/stats/history':
        return stats.history(req, ctx);
      case '/trips/stream':
        return trips.stream(req, ctx);
      case '/v1/fleet/trips':
        return trips.legacy(req, ctx);
    }
    const one = /^\/(fleet\/vehicles|fleet\/drivers|tags)\/([^/]+)$/.exec(path);
    if (one) {
      const id = decodeURIComponent(one[2] as string);
      return one[1] === 'fleet/vehicles' ? getVehicle(id, ctx) : one[1] === 'fleet/drivers' ? getDriver(id, ctx) : getTag(id, ctx);
    }
    return samsaraError('not_found', { message: `no route for GET ${req.path}` });
  }

  return {
    provider: 'samsara',
    account: (req) => bearerToken(req),
    error: (kind: SimErrorKind, _req, extra) => samsaraError(kind, extra),
    rateLimits(req, account): RateLimit[] {
      const limits: RateLimit[] = [
        { key: `token:${account}`, ratePerSecond: 150, burst: 150 },
        { key: `org:${account}`, ratePerSecond: 200, burst: 200 },
      ];
      const tier = ENDPOINT_TIERS.find((t) => t.match(req.path));
      if (tier) limits.push({ key: `org:${account}:${tier.name}`, ratePerSecond: tier.ratePerSecond, burst: tier.burst });
      return limits;
    },
    async handle(req, ctx) {
      if (req.method !== 'GET') return { status: 405, body: { message: `method ${req.method} not allowed`, requestId: 'sim' } };
      try {
        return route(req, ctx);
      } catch (error) {
        if (error instanceof SamsaraRequestError) return error.response;
        throw error;
      }
    },
    recordsOf(body) {
      if (!isObject(body)) return undefined;
      if (Array.isArray(body.data)) return body.data;
      if (isObject(body.data)) return [body.data];
      if (Array.isArray(body.trips)) return body.trips;
      return undefined;
    },
    matchKey: (req) => req.path,
    // A stats request names its stat types (§5.1), so a scenario can refuse some of them.
    typeNames: (req) => (req.path.startsWith('/fleet/vehicles/stats') ? (csvParam(req, 'types') ?? []) : []),
  };
}

/** The simulator with Samsara's real page sizes. */
export const samsaraSimulator: SimulatorDefinition = createSamsaraSimulator();
