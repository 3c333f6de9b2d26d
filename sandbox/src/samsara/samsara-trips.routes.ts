/**
 * Trips (§6): `/trips/stream` (current API: no id, distance or driver; `queryBy` picks the timestamp
 * the window filters on; trips in progress have no end) and the legacy `/v1/fleet/trips` (one vehicle
 * per call, epoch ms, ≤ 90 days, no pagination, ongoing trips end at Long.MAX_VALUE).
 * Trips are the fleet's driving intervals, so every field agrees with `stateAt` and `tripsBetween`.
 */
import type { SimContext, SimRequest, SimResponse } from '../common/sim-kit.types.js';
import type { SimTrip, SimVehicle } from '../fleet/fleet.types.js';
import { quirkOn } from '../common/provider-quirks.js';
import { orgVehicles } from './samsara-directory.routes.js';
import { badRequest, csvParam, enumParam, intParam, ok, paginate, samsaraError, timeParam } from './samsara-http.js';
import { vehicleIndexOf } from './samsara-ids.js';
import { renderLegacyTrip, renderStreamTrip } from './samsara-render.js';

export interface TripsOptions {
  /** Trips per `/trips/stream` page (server-chosen in Samsara, unconfirmed). */
  readonly tripsPageSize: number;
}

const NINETY_DAYS_MS = 90 * 24 * 3600 * 1000;
/** Trips never last two days, so looking back that far finds every trip updated inside a window. */
const UPDATE_LOOKBACK_MS = 2 * 24 * 3600 * 1000;
const FOREVER = Number.MAX_SAFE_INTEGER;

/** Completed and in-progress trips of `v` starting in [fromMs, toMs), as of `nowMs`. */
function tripsStarting(ctx: SimContext, v: SimVehicle, fromMs: number, toMs: number, nowMs: number): SimTrip[] {
  // nowMs = FOREVER keeps the trip in progress (tripsBetween drops it otherwise); the future is cut here.
  return ctx.fleet.tripsBetween(v.index, fromMs, Math.min(toMs, nowMs + 1), FOREVER).filter((t) => t.startMs <= nowMs);
}

const updatedAt = (t: SimTrip, nowMs: number): number => (t.endMs <= nowMs ? t.endMs + 35_000 : t.startMs + 30_000);

export function makeTripRoutes(options: TripsOptions) {
  function stream(req: SimRequest, ctx: SimContext): SimResponse {
    const now = ctx.clock.now();
    const from = timeParam(req, 'startTime', true);
    const to = timeParam(req, 'endTime', false) ?? now + 1;
    const queryBy = enumParam(req, 'queryBy', ['updatedAtTime', 'tripStartTime'] as const, 'updatedAtTime');
    const completion = enumParam(req, 'completionStatus', ['inProgress', 'completed', 'all'] as const, 'all');
    const includeAsset = req.query.get('includeAsset') === 'true';
    const ids = csvParam(req, 'ids');
    // Samsara's reference marks `ids` required; an organisation was seen answering 404 without it.
    if (!ids && quirkOn(ctx.scenarios(), 'samsara_trip_stream_ids_required')) return samsaraError('not_found', { message: 'ids is required' });
    if (ids && ids.length > 50) return badRequest('ids accepts at most 50 asset ids');
    const wanted = ids ? new Set(ids.map(vehicleIndexOf)) : undefined;
    const vehicles = orgVehicles(ctx).filter((v) => !wanted || wanted.has(v.index));

    const all: { v: SimVehicle; t: SimTrip }[] = [];
    for (const v of vehicles) {
      const trips =
        queryBy === 'tripStartTime'
          ? tripsStarting(ctx, v, from, to, now)
          : tripsStarting(ctx, v, from - UPDATE_LOOKBACK_MS, to, now).filter((t) => updatedAt(t, now) >= from && updatedAt(t, now) < to);
      for (const t of trips) {
        const done = t.endMs <= now;
        if (completion === 'all' || (completion === 'completed') === done) all.push({ v, t });
      }
    }
    all.sort((a, b) => a.t.startMs - b.t.startMs || a.v.index - b.v.index);
    const { records, pagination } = paginate(req, ctx, all, options.tripsPageSize);
    return ok({ data: records.map(({ v, t }) => renderStreamTrip(ctx.fleet, v, t, now, includeAsset)), pagination });
  }

  function legacy(req: SimRequest, ctx: SimContext): SimResponse {
    const now = ctx.clock.now();
    const vehicleId = intParam(req, 'vehicleId');
    const startMs = intParam(req, 'startMs');
    const endMs = intParam(req, 'endMs');
    if (vehicleId === undefined || startMs === undefined || endMs === undefined) return badRequest('vehicleId, startMs and endMs are required');
    if (endMs < startMs || endMs - startMs > NINETY_DAYS_MS) return badRequest('the window must be at most 90 days');
    const index = vehicleIndexOf(String(vehicleId));
    const v = index !== undefined && index < ctx.fleet.vehicles().length ? ctx.fleet.vehicle(index) : undefined;
    if (!v?.active) return samsaraError('not_found', { message: `vehicle ${vehicleId} not found` });
    return ok({ trips: tripsStarting(ctx, v, startMs, endMs, now).map((t) => renderLegacyTrip(v, t, now)) });
  }

  return { stream, legacy };
}
