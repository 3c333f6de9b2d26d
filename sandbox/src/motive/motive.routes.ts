/**
 * Motive route handlers: each renders one resource of the account's fleet view as a Motive list
 * (`{<plural>: [{<singular>: …}], pagination}`) or single object. Pure functions of (request,
 * account fleet, clock): nothing is stored, so any fleet size pages without memory growth.
 *
 * Invariants: `page_no` is 1-based and `per_page` defaults to 25 and is capped at 100 (motive.md §1);
 * `pagination.total` counts every row of the query; history (v3 points, driving periods) hidden by a
 * late_history scenario is left out until the clock passes it; only what happened by "now" exists.
 */
import { quirkOnVehicle } from '../common/provider-quirks.js';
import type { SimContext, SimRequest } from '../common/sim-kit.types.js';
import type { SimDriver, SimFault, SimTrip, SimVehicle } from '../fleet/fleet.types.js';
import { embeddedUser, MOTIVE_IDS, renderAdmin, renderDrivingPeriod, renderFaultCode, renderGroup, renderPoint, renderUser, renderVehicle, type Units } from './motive.render.js';

export const MOTIVE_DEFAULT_PER_PAGE = 25;
export const MOTIVE_MAX_PER_PAGE = 100;
/** v3 history ranges are at most 3 months (motive.md §5.2); 92 days covers any three calendar months. */
export const MOTIVE_V3_MAX_RANGE_DAYS = 92;
/** History cadence: a point every 5 minutes while running (the fleet adds hourly points while parked). */
export const MOTIVE_HISTORY_STEP_MS = 300_000;
/** Closed fault codes stay listed for 30 days after they cleared. */
export const MOTIVE_CLOSED_FAULT_RETENTION_MS = 30 * 86_400_000;
/** `/v1/driving_periods`: the largest end_date - start_date delta Motive accepts. */
export const MOTIVE_DRIVING_PERIODS_MAX_RANGE_DAYS = 30;
/** Driving periods default to the last 7 days when no dates are given. */
const DEFAULT_PERIOD_DAYS = 7;
const DAY_MS = 86_400_000;

export class BadRequest extends Error {}

export interface PageSlice {
  readonly offset: number;
  readonly perPage: number;
  readonly pageNo: number;
  readonly total: number;
}

function positiveInt(req: SimRequest, name: string, fallback: number): number {
  const raw = req.query.get(name);
  if (raw === null || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new BadRequest(`${name} must be a positive integer`);
  return Number(raw);
}

/** Where one page starts, with the numbers Motive reports in `pagination`. */
export function slicePage(req: SimRequest, all: readonly unknown[], maxPerPage = MOTIVE_MAX_PER_PAGE): PageSlice {
  const perPage = Math.min(positiveInt(req, 'per_page', MOTIVE_DEFAULT_PER_PAGE), maxPerPage);
  const pageNo = positiveInt(req, 'page_no', 1);
  return { offset: (pageNo - 1) * perPage, perPage, pageNo, total: all.length };
}

/** `vehicle_ids=1,2`, `vehicle_ids[]=1&vehicle_ids[]=2` (the array form is unconfirmed, so both are accepted). */
export function idFilter(req: SimRequest, name: string): Set<number> | undefined {
  const values = [...req.query.getAll(name), ...req.query.getAll(`${name}[]`)].flatMap((v) => v.split(',')).filter((v) => v.trim() !== '');
  if (values.length === 0) return undefined;
  if (values.some((v) => !/^\d+$/.test(v.trim()))) throw new BadRequest(`${name} must be integer ids`);
  return new Set(values.map((v) => Number(v.trim())));
}

/** `YYYY-MM-DD` (UTC day start, ms). */
function dateParam(req: SimRequest, name: string): number | undefined {
  const raw = req.query.get(name);
  if (raw === null || raw === '') return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(raw) ? Date.parse(`${raw}T00:00:00Z`) : NaN;
  if (Number.isNaN(ms)) throw new BadRequest(`${name} must be YYYY-MM-DD`);
  return ms;
}

/** [start of start_date, end of end_date) — Motive date ranges include the end date. */
function dateRange(req: SimRequest, nowMs: number, required: boolean): { fromMs: number; toMs: number } {
  const start = dateParam(req, 'start_date');
  const end = dateParam(req, 'end_date');
  if (required && (start === undefined || end === undefined)) throw new BadRequest('start_date and end_date are required');
  const today = Math.floor(nowMs / DAY_MS) * DAY_MS;
  const fromMs = start ?? (end ?? today) - (DEFAULT_PERIOD_DAYS - 1) * DAY_MS;
  const toMs = (end ?? today) + DAY_MS;
  if (toMs <= fromMs) throw new BadRequest('end_date is before start_date');
  return { fromMs, toMs };
}

const selected = (ctx: SimContext, filter: Set<number> | undefined): readonly SimVehicle[] =>
  filter ? ctx.fleet.vehicles().filter((v) => filter.has(MOTIVE_IDS.vehicle(v.index))) : ctx.fleet.vehicles();

const driverOf = (ctx: SimContext, index: number | null): SimDriver | null => (index === null ? null : (ctx.fleet.drivers()[index] ?? null));

export function vehicleByMotiveId(ctx: SimContext, id: string): SimVehicle | undefined {
  return /^\d+$/.test(id) ? ctx.fleet.vehicles().find((v) => MOTIVE_IDS.vehicle(v.index) === Number(id)) : undefined;
}

/**
 * Rendering is per row, so a page of a 10,000-vehicle fleet computes only its own rows' state. A
 * vehicle the `motive_unfilled_vehicles` quirk covers is one nobody filled in, as a live capture
 * shows it: `year: "0"`, empty `make` and `model`.
 */
export function vehicleRow(ctx: SimContext): (v: SimVehicle) => Record<string, unknown> {
  const now = ctx.clock.now();
  return (v) => {
    const row = renderVehicle(ctx.fleet, v, now, driverOf(ctx, ctx.fleet.stateAt(v.index, now).driverIndex));
    return quirkOnVehicle(ctx.scenarios(), 'motive_unfilled_vehicles', v.index) ? { ...row, year: '0', make: '', model: '' } : row;
  };
}

export function users(req: SimRequest, ctx: SimContext): Record<string, unknown>[] {
  const role = req.query.get('role');
  const status = req.query.get('status');
  const epoch = ctx.fleet.options.epochMs;
  const all = [...ctx.fleet.drivers().map(renderUser), renderAdmin(0, epoch), renderAdmin(1, epoch)];
  return all.filter((u) => (!role || u.role === role) && (!status || u.status === status));
}

export const groups = (ctx: SimContext): Record<string, unknown>[] => ctx.fleet.groups().map(renderGroup);

export function groupUsers(ctx: SimContext, groupId: number): Record<string, unknown>[] | undefined {
  const group = ctx.fleet.groups().find((g) => MOTIVE_IDS.group(g.index) === groupId);
  if (!group) return undefined;
  return ctx.fleet.drivers().filter((d) => d.groupIndexes.includes(group.index)).map(embeddedUser);
}

export const locationVehicles = (req: SimRequest, ctx: SimContext): readonly SimVehicle[] => selected(ctx, idFilter(req, 'vehicle_ids'));

export function locationRow(ctx: SimContext, units: Units): (v: SimVehicle) => Record<string, unknown> {
  // Motive reports whole-second times; the current point is the state at the last whole second.
  const at = Math.floor(ctx.clock.now() / 1000) * 1000;
  return (v) => {
    const state = ctx.fleet.stateAt(v.index, at);
    const { id: _pointId, ...point } = renderPoint(v, state, units);
    const driver = driverOf(ctx, state.driverIndex);
    return {
      id: MOTIVE_IDS.vehicle(v.index),
      number: v.name,
      year: String(v.year),
      make: v.make,
      model: v.model,
      vin: v.vin,
      current_location: point,
      current_driver: driver ? embeddedUser(driver) : null,
    };
  };
}

export function history(req: SimRequest, ctx: SimContext, v: SimVehicle, units: Units): Record<string, unknown>[] {
  const { fromMs, toMs } = dateRange(req, ctx.clock.now(), true);
  if (toMs - fromMs > MOTIVE_V3_MAX_RANGE_DAYS * DAY_MS) throw new BadRequest('date range must be at most 3 months');
  const now = ctx.clock.now();
  return ctx.fleet
    .sampleTimes(v.index, fromMs, Math.min(toMs, now + 1), MOTIVE_HISTORY_STEP_MS) // late_history already filtered
    .map((t) => {
      const state = ctx.fleet.stateAt(v.index, t);
      const driver = driverOf(ctx, state.driverIndex);
      return { ...renderPoint(v, state, units), driver: driver ? embeddedUser(driver) : null, eld_device: { identifier: ctx.fleet.deviceSerial(v.index, t), model: 'lbb-3.6ca' } };
    });
}

/** A driving period before rendering: pages render only their own rows. */
export interface PeriodRow {
  readonly trip: SimTrip;
  readonly vehicle: SimVehicle;
  readonly ongoing: boolean;
}

export function drivingPeriods(req: SimRequest, ctx: SimContext): PeriodRow[] {
  const { fromMs, toMs } = dateRange(req, ctx.clock.now(), false);
  // Live Motive refuses end_date - start_date over 30 days with this 400 (exactly 30 is accepted).
  if (toMs - DAY_MS - fromMs > MOTIVE_DRIVING_PERIODS_MAX_RANGE_DAYS * DAY_MS) throw new BadRequest('Date range cannot be greater than 30 days');
  const now = ctx.clock.now();
  const rows: PeriodRow[] = [];
  for (const vehicle of selected(ctx, idFilter(req, 'vehicle_ids'))) {
    // nowMs = +Infinity includes the trip in progress (rendered with end_time null); late_history is
    // applied by the account fleet (hidden trips are not returned).
    for (const trip of ctx.fleet.tripsBetween(vehicle.index, fromMs, Math.min(toMs, now + 1), Number.POSITIVE_INFINITY)) rows.push({ trip, vehicle, ongoing: trip.endMs > now });
  }
  return rows.sort((a, b) => a.trip.startMs - b.trip.startMs || a.vehicle.index - b.vehicle.index);
}

export function periodRow(ctx: SimContext, units: Units): (row: PeriodRow) => Record<string, unknown> {
  // The account fleet applies odometer_reset to the trip odometers.
  return ({ trip, vehicle, ongoing }) =>
    renderDrivingPeriod(trip, vehicle, driverOf(ctx, trip.driverIndex), { start: trip.startOdometerM, end: ongoing ? null : trip.endOdometerM }, ongoing, units);
}

export interface FaultRow {
  readonly vehicle: SimVehicle;
  readonly fault: SimFault;
}

export function faultCodes(req: SimRequest, ctx: SimContext): FaultRow[] {
  const now = ctx.clock.now();
  const status = req.query.get('status');
  const rows: FaultRow[] = [];
  for (const vehicle of selected(ctx, idFilter(req, 'vehicle_ids'))) {
    const faults = new Map<string, SimFault>();
    for (const e of ctx.fleet.faultEventsBetween(vehicle.index, now - MOTIVE_CLOSED_FAULT_RETENTION_MS, now + 1)) if (e.kind === 'cleared') faults.set(`${e.fault.key}@${e.fault.openedAtMs}`, e.fault);
    for (const f of ctx.fleet.stateAt(vehicle.index, now).activeFaults) faults.set(`${f.key}@${f.openedAtMs}`, f);
    for (const fault of [...faults.values()].sort((a, b) => a.openedAtMs - b.openedAtMs)) {
      const open = fault.clearedAtMs === null || fault.clearedAtMs > now;
      if (!status || status === (open ? 'open' : 'closed')) rows.push({ vehicle, fault });
    }
  }
  return rows;
}

export function faultRow(ctx: SimContext): (row: FaultRow) => Record<string, unknown> {
  const now = ctx.clock.now();
  return ({ vehicle, fault }) => renderFaultCode(ctx.fleet, vehicle, fault, now);
}
