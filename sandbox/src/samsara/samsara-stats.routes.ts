/**
 * Vehicle stats (§5): `/fleet/vehicles/stats` (snapshot, singular `engineState`/`fuelPercent` keys),
 * `/fleet/vehicles/stats/feed` and `/fleet/vehicles/stats/history` (plural arrays). `types` is
 * required and takes at most 3 values; stats, not vehicles, decide what is omitted (a vehicle with no
 * data for a type has no key). Pages are sets of vehicles (the server picks the size; Samsara's is
 * unconfirmed), so one vehicle's series never straddles two pages.
 * Readings: the snapshot reports the state at the last whole minute ≤ `time` (the gateway's report
 * cadence); history and feed report at the fleet's sample times (every `historyStepMs` while driving,
 * hourly when parked), minus what `late_history` hides. faultCodes points are the complete active set
 * after each fault transition; the snapshot's point is the latest transition within 30 days, or an
 * explicit empty set 30 days back when there was none (no occurrence lasts longer than ~13 days).
 */
import type { SimContext, SimRequest, SimResponse } from '../common/sim-kit.types.js';
import { quirkOnVehicle } from '../common/provider-quirks.js';
import type { SimVehicle, VehicleState } from '../fleet/fleet.types.js';
import { orgVehicles } from './samsara-directory.routes.js';
import { badRequest, csvParam, ok, paginate, SamsaraRequestError, timeParam, type PageOf } from './samsara-http.js';
import { decodeSimCursor, encodeSimCursor, samsaraVehicleId, vehicleIndexOf } from './samsara-ids.js';
import { faultCodesPoint, SAMSARA_STAT_TYPES, SNAPSHOT_KEY, statPoint, withOemCodeWithoutIdentifier, type SamsaraStatType } from './samsara-render.js';

export interface StatsOptions {
  /** Vehicles per stats page (snapshot and feed). */
  readonly statsPageSize: number;
  /** Vehicles per history page. */
  readonly historyPageSize: number;
  /** History / feed sample step while driving. */
  readonly historyStepMs: number;
}

const FAULT_LOOKBACK_MS = 30 * 24 * 3600 * 1000;
type Json = Record<string, unknown>;

function typesParam(req: SimRequest): SamsaraStatType[] {
  const types = csvParam(req, 'types');
  if (!types || types.length === 0) throw new SamsaraRequestError(badRequest('types is required'));
  if (types.length > 3) throw new SamsaraRequestError(badRequest('types accepts at most 3 values'));
  const unknown = types.find((t) => !(SAMSARA_STAT_TYPES as readonly string[]).includes(t));
  if (unknown) throw new SamsaraRequestError(badRequest(`unknown stat type ${unknown}`));
  const decorations = csvParam(req, 'decorations');
  if (decorations && decorations.length > 2) throw new SamsaraRequestError(badRequest('decorations accepts at most 2 values'));
  return [...new Set(types)] as SamsaraStatType[];
}

function selectedVehicles(req: SimRequest, ctx: SimContext): readonly SimVehicle[] {
  const ids = csvParam(req, 'vehicleIds');
  const all = orgVehicles(ctx);
  if (!ids) return all;
  const wanted = new Set(ids.map(vehicleIndexOf));
  return all.filter((v) => wanted.has(v.index));
}

/** A faultCodes point as the account's quirks shape it (an OEM code without identifier). */
const withQuirks = (ctx: SimContext, v: SimVehicle, point: Json): Json =>
  quirkOnVehicle(ctx.scenarios(), 'samsara_oem_code_without_identifier', v.index) ? withOemCodeWithoutIdentifier(point) : point;

/** faultCodes points in [fromMs, toMs): one per transition time, the active set just after it. */
function faultPoints(ctx: SimContext, v: SimVehicle, fromMs: number, toMs: number): Json[] {
  const times = [...new Set(ctx.fleet.faultEventsBetween(v.index, fromMs, toMs).map((e) => e.tMs))];
  return times.map((t) => withQuirks(ctx, v, faultCodesPoint(v, t, ctx.fleet.stateAt(v.index, t).activeFaults)));
}

function snapshotFaults(ctx: SimContext, v: SimVehicle, tMs: number): Json {
  const last = faultPoints(ctx, v, tMs - FAULT_LOOKBACK_MS, tMs + 1).at(-1);
  return last ?? withQuirks(ctx, v, faultCodesPoint(v, Math.max(v.createdAtMs, tMs - FAULT_LOOKBACK_MS), []));
}

/** Series item for `v` with points at `times`, keyed the feed/history way. */
function seriesItem(ctx: SimContext, v: SimVehicle, types: readonly SamsaraStatType[], times: readonly number[], faults: () => Json[]): Json | undefined {
  const item: Json = { id: samsaraVehicleId(v.index), name: v.name };
  // States only when a sampled stat is asked for: a faultCodes-only history of weeks needs none.
  const states: VehicleState[] = types.some((t) => t !== 'faultCodes') ? times.map((t) => ctx.fleet.stateAt(v.index, t)) : [];
  let any = false;
  for (const type of types) {
    const points = type === 'faultCodes' ? faults() : states.map((s) => statPoint(v, type, s)).filter((p): p is Json => p !== undefined);
    if (points.length) {
      item[type] = points;
      any = true;
    }
  }
  return any ? item : undefined;
}

export function makeStatsRoutes(options: StatsOptions) {
  const page = <T>(req: SimRequest, ctx: SimContext, all: readonly T[], size: number): PageOf<T> => paginate(req, ctx, all, size);

  function snapshot(req: SimRequest, ctx: SimContext): SimResponse {
    const types = typesParam(req);
    const now = ctx.clock.now();
    const t = Math.min(timeParam(req, 'time', false) ?? now, now);
    const at = Math.floor(t / 60_000) * 60_000;
    const { records, pagination } = page(req, ctx, selectedVehicles(req, ctx), options.statsPageSize);
    const data = records.map((v) => {
      const state = ctx.fleet.stateAt(v.index, at);
      const item: Json = { id: samsaraVehicleId(v.index), name: v.name };
      for (const type of types) {
        const point = type === 'faultCodes' ? snapshotFaults(ctx, v, t) : statPoint(v, type, state);
        if (point) item[SNAPSHOT_KEY[type] ?? type] = point;
      }
      return item;
    });
    return ok({ data, pagination });
  }

  function history(req: SimRequest, ctx: SimContext): SimResponse {
    const types = typesParam(req);
    const from = timeParam(req, 'startTime', true);
    const to = Math.min(timeParam(req, 'endTime', true), ctx.clock.now() + 1);
    if (to < from) return badRequest('endTime must not be before startTime');
    const { records, pagination } = page(req, ctx, selectedVehicles(req, ctx), options.historyPageSize);
    const data = records
      .map((v) => {
        const times = types.some((t) => t !== 'faultCodes') ? ctx.fleet.sampleTimes(v.index, from, to, options.historyStepMs) : [];
        return seriesItem(ctx, v, types, times, () => faultPoints(ctx, v, from, to));
      })
      .filter((x): x is Json => x !== undefined);
    return ok({ data, pagination });
  }

  /**
   * Feed: the first call returns each vehicle's latest point; later calls with `after` return only the
   * points since the previous round. Cursor = (delivered-up-to + 1 (0 = first round), this round's end
   * (0 = not started), vehicle offset), so all pages of one round share one end time.
   */
  function feed(req: SimRequest, ctx: SimContext): SimResponse {
    const types = typesParam(req);
    const now = ctx.clock.now();
    const decoded = decodeSimCursor(req.query.get('after'), 'feed', 3);
    if (decoded === 'bad') return badRequest('Invalid value for parameter after: not a feed cursor');
    const [sinceP1, untilRaw, offset] = (decoded ?? [0, 0, 0]) as [number, number, number];
    const until = untilRaw === 0 ? now : untilRaw;
    const first = sinceP1 === 0;
    const vehicles = selectedVehicles(req, ctx);
    const data = vehicles
      .slice(offset, offset + options.statsPageSize)
      .map((v) => {
        const times = first ? [Math.floor(until / 60_000) * 60_000] : ctx.fleet.sampleTimes(v.index, sinceP1, until + 1, options.historyStepMs);
        return seriesItem(ctx, v, types, times, () => (first ? [snapshotFaults(ctx, v, until)] : faultPoints(ctx, v, sinceP1, until + 1)));
      })
      .filter((x): x is Json => x !== undefined);
    const more = offset + options.statsPageSize < vehicles.length;
    // hasNextPage false = caught up: the next poll (≥ 5 s later, §5.1) starts after `until`.
    const endCursor = more ? encodeSimCursor('feed', sinceP1, until, offset + options.statsPageSize) : encodeSimCursor('feed', until + 1, 0, 0);
    return ok({ data, pagination: { endCursor, hasNextPage: more } });
  }

  return { snapshot, history, feed };
}
