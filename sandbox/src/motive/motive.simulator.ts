/**
 * The Motive dialect for the simulator kit (shared/providers/motive.md): `X-Api-Key` accounts (or an
 * OAuth bearer token), versioned REST paths, double-wrapped lists with `page_no`/`per_page`
 * pagination, units chosen by the `X-Metric-Units` header, and errors as `{error_message}`.
 *
 * Invariants: handlers never throw (a bad parameter is a 400 in the dialect); the units of a
 * response are metric only when the request sent `X-Metric-Units: true` — anything else gets
 * imperial, which is how a client that forgets the header (or a server that ignores it) is exercised;
 * fields named for their unit (`start_kilometers`) are km in both. `/v1/driving_periods` refuses a
 * range over 30 days with Motive's own 400 body.
 */
import type { RateLimit, SimContext, SimErrorKind, SimRequest, SimResponse, SimulatorDefinition } from '../common/sim-kit.types.js';
import { MOTIVE_IDS, type Units } from './motive.render.js';
import { BadRequest, drivingPeriods, faultCodes, faultRow, periodRow, groups, groupUsers, history, locationRow, locationVehicles, MOTIVE_MAX_PER_PAGE, slicePage, users, vehicleByMotiveId, vehicleRow } from './motive.routes.js';
import { findScenario, pageWithScenario } from '../common/duplicate-reorder.js';

/**
 * Motive publishes no rate limit (unconfirmed, motive.md §1). We pick 50 requests/s per key with a
 * burst of 100 — generous for a sync, easily hit by a client that ignores 429 — and a separate 20/s
 * bucket for v3 history, which Motive restricts to 10 concurrent calls.
 */
export const MOTIVE_RATE_PER_KEY = { ratePerSecond: 50, burst: 100 } as const;
export const MOTIVE_V3_RATE = { ratePerSecond: 20, burst: 20 } as const;

/** Envelope keys per list path (for field_change); single-object responses use the singular key alone. */
const ENVELOPES: ReadonlyArray<readonly [plural: string, singular: string]> = [
  ['vehicles', 'vehicle'],
  ['users', 'user'],
  ['groups', 'group'],
  ['vehicle_locations', 'vehicle_location'],
  ['driving_periods', 'driving_period'],
  ['fault_codes', 'fault_code'],
];

const STATUS: Readonly<Record<SimErrorKind, number>> = { unauthorized: 401, forbidden: 403, rate_limited: 429, server_error: 500, not_found: 404, bad_request: 400 };
const MESSAGES: Readonly<Record<SimErrorKind, string>> = {
  unauthorized: 'Invalid or expired API key',
  forbidden: 'The API key does not have permission to access this resource',
  rate_limited: 'Too many requests, please try again later',
  server_error: 'Internal server error',
  not_found: 'Not found',
  bad_request: 'Bad request',
};

function unitsOf(req: SimRequest): Units {
  return req.headers['x-metric-units']?.trim().toLowerCase() === 'true' ? 'metric' : 'imperial';
}

export interface MotiveSimulatorOptions {
  /** Largest `per_page` served (Motive: 100); tests lower it so small fleets span several pages. */
  readonly maxPerPage?: number;
}

type ErrorFn = SimulatorDefinition['error'];

function listPage<T>(plural: string, singular: string, req: SimRequest, ctx: SimContext, all: readonly T[], maxPerPage: number, render: (row: T) => unknown): SimResponse {
  const page = slicePage(req, all, maxPerPage);
  // duplicate_and_reorder: the page repeats the previous page's tail and is shuffled, seeded per page so a retry answers the same.
  const scenario = findScenario(ctx.scenarios(), 'duplicate_and_reorder');
  const rows = pageWithScenario(all, page.offset, page.perPage, scenario, `${ctx.account}:${req.path}:${page.pageNo}`);
  return {
    status: 200,
    body: {
      [plural]: rows.map((row) => ({ [singular]: render(row) })),
      pagination: { per_page: page.perPage, page_no: page.pageNo, total: page.total },
    },
  };
}

function route(req: SimRequest, ctx: SimContext, error: ErrorFn, maxPerPage: number): SimResponse {
  const units = unitsOf(req);
  const list = <T>(plural: string, singular: string, all: readonly T[], render: (row: T) => unknown = (row) => row) => listPage(plural, singular, req, ctx, all, maxPerPage, render);
  const parts = req.path.replace(/\/+$/, '').split('/').slice(1); // ['v1', 'vehicles', …]
  const [version, resource, id, sub] = parts;
  const notFound = error('not_found', req);
  if (req.method !== 'GET') return error('bad_request', req, { message: 'Only GET is simulated' });
  if (version === 'v1' && resource === 'companies' && !id) return { status: 200, body: { companies: [{ company: { id: 5001, name: 'Simulated Fleet Co', time_zone: 'Central Time (US & Canada)' } }] } };
  if (version === 'v1' && resource === 'vehicles') {
    if (!id) return list('vehicles', 'vehicle', ctx.fleet.vehicles(), vehicleRow(ctx));
    const v = vehicleByMotiveId(ctx, id);
    return v && !sub ? { status: 200, body: { vehicle: vehicleRow(ctx)(v) } } : notFound;
  }
  if (version === 'v1' && resource === 'users') {
    if (!id) return list('users', 'user', users(req, ctx));
    const user = users(req, ctx).find((u) => String(u.id) === id);
    return user && !sub ? { status: 200, body: { user } } : notFound;
  }
  if (version === 'v1' && resource === 'groups') {
    if (!id) return list('groups', 'group', groups(ctx));
    if (sub === 'users' && /^\d+$/.test(id)) {
      const members = groupUsers(ctx, Number(id));
      return members ? list('users', 'user', members) : notFound;
    }
    return notFound;
  }
  if (version === 'v1' && resource === 'vehicle_locations' && !id) return list('vehicles', 'vehicle', locationVehicles(req, ctx), locationRow(ctx, units));
  if (version === 'v3' && resource === 'vehicle_locations' && id && !sub) {
    const v = vehicleByMotiveId(ctx, id);
    return v ? list('vehicle_locations', 'vehicle_location', history(req, ctx, v, units)) : notFound;
  }
  if (version === 'v1' && resource === 'driving_periods' && !id) return list('driving_periods', 'driving_period', drivingPeriods(req, ctx), periodRow(ctx, units));
  if (version === 'v1' && resource === 'fault_codes' && !id) return list('fault_codes', 'fault_code', faultCodes(req, ctx), faultRow(ctx));
  return notFound;
}

const motiveError: ErrorFn = (kind, _req, extra) => {
  // The error body is unconfirmed (motive.md §1); `{error_message}` is the plausible form it names.
  const headers: Record<string, string> = {};
  // HTTP delta-seconds are whole seconds; round up so a client never retries before the bucket refills.
  if (kind === 'rate_limited') headers['retry-after'] = String(Math.max(1, Math.ceil(extra?.retryAfterSeconds ?? 1)));
  return { status: STATUS[kind], headers, body: { error_message: extra?.message ?? MESSAGES[kind] } };
};

export function createMotiveSimulator(options: MotiveSimulatorOptions = {}): SimulatorDefinition {
  const maxPerPage = Math.max(1, Math.min(options.maxPerPage ?? MOTIVE_MAX_PER_PAGE, MOTIVE_MAX_PER_PAGE));
  return {
    provider: 'motive',

    account(req) {
      const key = req.headers['x-api-key']?.trim();
      if (key) return key;
      const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
      return bearer?.[1];
    },

    error: motiveError,

    rateLimits(req, account): readonly RateLimit[] {
      const limits: RateLimit[] = [{ key: `key:${account}`, ...MOTIVE_RATE_PER_KEY }];
      if (req.path.startsWith('/v3/')) limits.push({ key: `v3:${account}`, ...MOTIVE_V3_RATE });
      return limits;
    },

    async handle(req, ctx) {
      try {
        return route(req, ctx, motiveError, maxPerPage);
      } catch (failure) {
        if (failure instanceof BadRequest) return motiveError('bad_request', req, { message: failure.message });
        return motiveError('server_error', req);
      }
    },

    // Records are the list entries `{vehicle: {…}}` (or the single-object body), so field_change paths
    // read like the wire: `vehicle.vin`, `driving_period.end_kilometers`.
    recordsOf(body) {
      if (body === null || typeof body !== 'object') return undefined;
      const b = body as Record<string, unknown>;
      for (const [plural, singular] of ENVELOPES) {
        if (Array.isArray(b[plural])) return b[plural] as unknown[];
        if (b[singular] !== null && typeof b[singular] === 'object' && !Array.isArray(b[singular])) return [b];
      }
      return undefined;
    },

    matchKey: (req) => req.path,
  };
}

/** The Motive simulator with Motive's own page-size cap (100). */
export const motiveSimulator: SimulatorDefinition = createMotiveSimulator();

/** The Motive id of a fleet vehicle (for tests and the sandbox credentials file). */
export const motiveVehicleId = MOTIVE_IDS.vehicle;
