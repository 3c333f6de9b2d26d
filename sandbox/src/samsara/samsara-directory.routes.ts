/**
 * `/fleet/vehicles`, `/fleet/drivers`, `/tags` (and their `/{id}` forms) over the shared fleet.
 * Samsara has no vehicle status field, so a vehicle the fleet marks inactive is simply not in the
 * org (listed vehicles are the active ones, as the adapter assumes). Drivers are listed per
 * `driverActivationStatus` (active by default), one status per request (§3).
 */
import type { SimContext, SimRequest, SimResponse } from '../common/sim-kit.types.js';
import type { SimDriver, SimGroup, SimVehicle } from '../fleet/fleet.types.js';
import { csvParam, enumParam, limitParam, ok, paginate, samsaraError, timeParam } from './samsara-http.js';
import { driverIndexOf, tagIndexOf, vehicleIndexOf } from './samsara-ids.js';
import { quirkOn, quirkOnVehicle } from '../common/provider-quirks.js';
import { renderDriver, renderSparseVehicle, renderTag, renderVehicle } from './samsara-render.js';

export interface DirectoryOptions {
  /** Server-side cap on `limit` (Samsara: 512; tests use less to exercise pagination). */
  readonly maxPageSize: number;
}

/** Active vehicles: the ones a Samsara org lists. */
export function orgVehicles(ctx: SimContext): readonly SimVehicle[] {
  return ctx.fleet.vehicles().filter((v) => v.active);
}

const members = new WeakMap<readonly SimGroup[], Map<number, { vehicles: SimVehicle[]; drivers: SimDriver[] }>>();
function membersOf(ctx: SimContext, group: number): { vehicles: SimVehicle[]; drivers: SimDriver[] } {
  const groups = ctx.fleet.groups();
  let index = members.get(groups);
  if (!index) {
    // Inverted once per fleet: O(vehicles + drivers) instead of a scan per tag.
    index = new Map(groups.map((g) => [g.index, { vehicles: [] as SimVehicle[], drivers: [] as SimDriver[] }]));
    for (const v of orgVehicles(ctx)) for (const g of v.groupIndexes) index.get(g)?.vehicles.push(v);
    for (const d of ctx.fleet.drivers()) for (const g of d.groupIndexes) index.get(g)?.drivers.push(d);
    members.set(groups, index);
  }
  return index.get(group) ?? { vehicles: [], drivers: [] };
}

/** `tagIds` (direct membership) and `parentTagIds` (membership in the tag or any descendant). */
function tagFilter(req: SimRequest, ctx: SimContext): ((groupIndexes: readonly number[]) => boolean) | undefined {
  const tagIds = csvParam(req, 'tagIds')?.map(tagIndexOf);
  const parentIds = csvParam(req, 'parentTagIds')?.map(tagIndexOf);
  if (!tagIds && !parentIds) return undefined;
  const wanted = new Set<number>(tagIds?.filter((i): i is number => i !== undefined));
  if (parentIds) {
    const groups = ctx.fleet.groups();
    const under = (g: SimGroup | undefined, roots: Set<number>): boolean => !!g && (roots.has(g.index) || (g.parentIndex !== null && under(groups[g.parentIndex], roots)));
    const roots = new Set(parentIds.filter((i): i is number => i !== undefined));
    for (const g of groups) if (under(g, roots)) wanted.add(g.index);
  }
  return (groupIndexes) => groupIndexes.some((g) => wanted.has(g));
}

/** A listed vehicle, sparse when the account's `samsara_sparse_vehicles` quirk covers it. */
function vehicleJson(ctx: SimContext, v: SimVehicle, nowMs: number) {
  return quirkOnVehicle(ctx.scenarios(), 'samsara_sparse_vehicles', v.index) ? renderSparseVehicle(v) : renderVehicle(ctx.fleet, v, nowMs);
}

const driverJson = (ctx: SimContext, d: SimDriver) => renderDriver(ctx.fleet, d, quirkOn(ctx.scenarios(), 'samsara_national_phones'));

export function listVehicles(req: SimRequest, ctx: SimContext, options: DirectoryOptions): SimResponse {
  const now = ctx.clock.now();
  const size = limitParam(req, options.maxPageSize);
  const updatedAfter = timeParam(req, 'updatedAfterTime', false);
  const createdAfter = timeParam(req, 'createdAfterTime', false);
  const inTags = tagFilter(req, ctx);
  const all = orgVehicles(ctx).filter(
    (v) => (updatedAfter === undefined || v.updatedAtMs > updatedAfter) && (createdAfter === undefined || v.createdAtMs > createdAfter) && (!inTags || inTags(v.groupIndexes)),
  );
  const page = paginate(req, ctx, all, size);
  return ok({ data: page.records.map((v) => vehicleJson(ctx, v, now)), pagination: page.pagination });
}

export function getVehicle(id: string, ctx: SimContext): SimResponse {
  const index = vehicleIndexOf(id);
  const v = index !== undefined && index < ctx.fleet.vehicles().length ? ctx.fleet.vehicle(index) : undefined;
  return v?.active ? ok({ data: vehicleJson(ctx, v, ctx.clock.now()) }) : samsaraError('not_found', { message: `vehicle ${id} not found` });
}

export function listDrivers(req: SimRequest, ctx: SimContext, options: DirectoryOptions): SimResponse {
  const size = limitParam(req, options.maxPageSize);
  const status = enumParam(req, 'driverActivationStatus', ['active', 'deactivated'] as const, 'active');
  const updatedAfter = timeParam(req, 'updatedAfterTime', false);
  const inTags = tagFilter(req, ctx);
  const all = ctx.fleet
    .drivers()
    .filter((d) => d.active === (status === 'active') && (updatedAfter === undefined || d.updatedAtMs > updatedAfter) && (!inTags || inTags(d.groupIndexes)));
  const page = paginate(req, ctx, all, size);
  return ok({ data: page.records.map((d) => driverJson(ctx, d)), pagination: page.pagination });
}

export function getDriver(id: string, ctx: SimContext): SimResponse {
  const index = driverIndexOf(id);
  const d = index !== undefined ? ctx.fleet.drivers()[index] : undefined;
  return d ? ok({ data: driverJson(ctx, d) }) : samsaraError('not_found', { message: `driver ${id} not found` });
}

export function listTags(req: SimRequest, ctx: SimContext, options: DirectoryOptions): SimResponse {
  const size = limitParam(req, options.maxPageSize);
  const page = paginate(req, ctx, ctx.fleet.groups(), size);
  return ok({ data: page.records.map((g) => renderTag(ctx.fleet, g, membersOf(ctx, g.index))), pagination: page.pagination });
}

export function getTag(id: string, ctx: SimContext): SimResponse {
  const index = tagIndexOf(id);
  const g = index !== undefined ? ctx.fleet.groups()[index] : undefined;
  return g ? ok({ data: renderTag(ctx.fleet, g, membersOf(ctx, g.index)) }) : samsaraError('not_found', { message: `tag ${id} not found` });
}
