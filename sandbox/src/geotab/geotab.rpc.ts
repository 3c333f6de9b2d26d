/**
 * The MyGeotab JSON-RPC methods the simulator serves: Authenticate, Get, GetFeed, GetCountOf and
 * ExecuteMultiCall over Device, User, Group, Trip, LogRecord, StatusData, DeviceStatusInfo,
 * FaultData, Diagnostic and FailureMode.
 *
 * Invariants: a method never throws — bad parameters are `ArgumentException`, unknown methods
 * `MissingMethodException`, both as HTTP-200 error bodies; every result is capped at 50,000 rows
 * (`resultsLimit` lowers it); a session lives SESSION_TTL_MS of simulated time and its expiry is an
 * `InvalidUserException` (the kit renders it when `account()` refuses the session).
 */
import { randomInt } from 'node:crypto';
import type { SimContext } from '../common/sim-kit.types.js';
import { applyDuplicateAndReorder, findScenario } from '../common/duplicate-reorder.js';
import { quirkOn, quirkOnVehicle } from '../common/provider-quirks.js';
import { allDiagnosticIds, decodeVersion, deviceIndexOf, diagnosticEntity, failureModeEntity, versionCeiling, versionToken, versionValue } from './geotab-ids.js';
import {
  GEOTAB_ARCHIVED_COUNT,
  GEOTAB_TRAILER_COUNT,
  iso,
  renderArchivedDevice,
  renderDevice,
  renderDeviceStatusInfo,
  renderGroups,
  renderServiceUser,
  renderTrailer,
  renderUser,
  withBareDates,
  withDistanceInMetres,
  withUnreadableEngineVin,
} from './geotab.render.js';
import { feedPage, inEffectRows, LOG_STEP_MS, rangeRows, SERIES_TYPES, type SeriesFilter, type SeriesType } from './geotab.series.js';

export const GEOTAB_MAX_RESULTS = 50_000;
/** Session lifetime in simulated time (real sessions last about two weeks; unconfirmed). */
export const SESSION_TTL_MS = 14 * 86_400_000;

export type RpcOutcome = { result: unknown } | { error: { type: string; message: string; code?: number } };

type Params = Record<string, unknown>;
const fail = (type: string, message: string, code = -32000): RpcOutcome => ({ error: { type, message, code } });
class ArgumentError extends Error {}

function isObject(x: unknown): x is Params {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function dateParam(search: Params, key: string): number | undefined {
  const raw = search[key];
  if (raw === undefined || raw === null) return undefined;
  const ms = typeof raw === 'string' ? Date.parse(raw) : NaN;
  if (Number.isNaN(ms)) throw new ArgumentError(`${key} must be an ISO date-time`);
  return ms;
}

function resultsLimit(params: Params): number {
  const raw = params['resultsLimit'];
  if (raw === undefined || raw === null) return GEOTAB_MAX_RESULTS;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1) throw new ArgumentError('resultsLimit must be a positive integer');
  return Math.min(raw, GEOTAB_MAX_RESULTS);
}

function refId(x: unknown): string | undefined {
  return typeof x === 'string' ? x : isObject(x) && typeof x['id'] === 'string' ? x['id'] : undefined;
}

/** Vehicle indexes a search selects (`deviceSearch: {id}` or all). */
function vehiclesOf(ctx: SimContext, search: Params): number[] {
  const id = refId(search['deviceSearch']);
  const all = ctx.fleet.vehicles().map((v) => v.index);
  if (id === undefined) return all;
  const index = deviceIndexOf(id);
  return index !== undefined && index < all.length ? [index] : [];
}

function seriesFilter(search: Params): SeriesFilter {
  const diagnostic = refId(search['diagnosticSearch']);
  return diagnostic ? { diagnostics: new Set([diagnostic]) } : {};
}

// ---- Entities with versions (Device, User) ------------------------------------------------------

/** The account's date quirk applied to a Device or User (bare `activeFrom`/`activeTo` dates). */
const dated = (ctx: SimContext, body: Record<string, unknown>): Record<string, unknown> => (quirkOn(ctx.scenarios(), 'geotab_bare_dates') ? withBareDates(body) : body);

function deviceEntities(ctx: SimContext): { version: bigint; body: Record<string, unknown> }[] {
  const nowMs = ctx.clock.now();
  const scenarios = ctx.scenarios();
  const devices = ctx.fleet.vehicles().map((v) => {
    // A device changes when created, updated, or its GO device is swapped (new serial).
    const swapMs = scenarios.flatMap((s) => (s.kind === 'device_swap' && s.vehicleIndex === v.index && s.atMs <= nowMs ? [s.atMs] : []));
    const version = versionValue(Math.max(v.createdAtMs, v.updatedAtMs, ...swapMs), v.index, 0);
    const body = renderDevice(ctx.fleet, v.index, nowMs, versionToken(version));
    return { version, body: dated(ctx, quirkOnVehicle(scenarios, 'geotab_unreadable_engine_vin', v.index) ? withUnreadableEngineVin(body) : body) };
  });
  const createdMs = ctx.fleet.options.epochMs;
  const trailers = !quirkOn(scenarios, 'geotab_trailers')
    ? []
    : Array.from({ length: GEOTAB_TRAILER_COUNT }, (_, n) => {
        const version = versionValue(createdMs, n, 2);
        return { version, body: dated(ctx, renderTrailer(n, createdMs, versionToken(version))) };
      });
  const archived = !quirkOn(scenarios, 'geotab_archived_devices')
    ? []
    : Array.from({ length: GEOTAB_ARCHIVED_COUNT }, (_, n) => {
        const version = versionValue(createdMs, n, 3);
        return { version, body: dated(ctx, renderArchivedDevice(n, createdMs, nowMs, versionToken(version))) };
      });
  return [...devices, ...trailers, ...archived];
}

/** Trip rows of the vehicles under quirk `geotab_trip_distance_in_metres` with their distance in metres; other rows as they are. */
function quirkedTrips(ctx: SimContext, rows: Record<string, unknown>[]): Record<string, unknown>[] {
  const scenarios = ctx.scenarios();
  if (!quirkOn(scenarios, 'geotab_trip_distance_in_metres')) return rows;
  return rows.map((row) => {
    const index = deviceIndexOf(refId(row['device']));
    return index !== undefined && quirkOnVehicle(scenarios, 'geotab_trip_distance_in_metres', index) ? withDistanceInMetres(row) : row;
  });
}

function userEntities(ctx: SimContext): { version: bigint; body: Record<string, unknown> }[] {
  const service = renderServiceUser(ctx.accountInfo.userName ?? 'service', ctx.fleet.options.epochMs);
  return [
    { version: 1n, body: dated(ctx, service) },
    ...ctx.fleet.drivers().map((d) => {
      const version = versionValue(Math.max(d.createdAtMs, d.updatedAtMs), d.index, 1);
      return { version, body: dated(ctx, renderUser(d, versionToken(version))) };
    }),
  ];
}

function matchesEntitySearch(body: Record<string, unknown>, search: Params): boolean {
  for (const key of ['id', 'name', 'serialNumber', 'vehicleIdentificationNumber', 'licensePlate'] as const) {
    if (typeof search[key] === 'string' && body[key] !== search[key]) return false;
  }
  if (typeof search['isDriver'] === 'boolean' && body['isDriver'] !== search['isDriver']) return false;
  return true;
}

// ---- Get / GetFeed ------------------------------------------------------------------------------

function get(ctx: SimContext, typeName: string, params: Params): unknown[] {
  const search = isObject(params['search']) ? params['search'] : {};
  const limit = resultsLimit(params);
  const nowMs = ctx.clock.now();
  switch (typeName) {
    case 'Device':
      return deviceEntities(ctx).map((e) => e.body).filter((b) => matchesEntitySearch(b, search)).slice(0, limit);
    case 'User':
      return userEntities(ctx).map((e) => e.body).filter((b) => matchesEntitySearch(b, search)).slice(0, limit);
    case 'Group':
      return renderGroups(ctx.fleet).filter((g) => typeof search['id'] !== 'string' || g['id'] === search['id']).slice(0, limit);
    case 'Diagnostic': {
      const id = typeof search['id'] === 'string' ? search['id'] : undefined;
      return (id ? [id] : allDiagnosticIds()).flatMap((d) => diagnosticEntity(d) ?? []).slice(0, limit);
    }
    case 'FailureMode': {
      const id = typeof search['id'] === 'string' ? search['id'] : undefined;
      return (id ? [id] : Array.from({ length: 32 }, (_, n) => `aFmi${n}`)).flatMap((f) => failureModeEntity(f) ?? []).slice(0, limit);
    }
    case 'DeviceStatusInfo':
      return vehiclesOf(ctx, search).slice(0, limit).map((v) => deviceStatus(ctx, v, nowMs));
    default: {
      if (!(SERIES_TYPES as readonly string[]).includes(typeName)) throw new ArgumentError(`Unknown typeName '${typeName}'`);
      const type = typeName as SeriesType;
      const vehicles = vehiclesOf(ctx, search);
      const fromMs = dateParam(search, 'fromDate');
      const toMs = dateParam(search, 'toDate');
      // fromDate = toDate: the value in effect at that instant (geotab.md §6.3).
      if ((type === 'StatusData' || type === 'LogRecord') && fromMs !== undefined && fromMs === toMs) return inEffectRows(ctx, type, vehicles, fromMs, seriesFilter(search), limit);
      const found = rangeRows(ctx, { type, vehicles, fromMs: fromMs ?? ctx.fleet.options.epochMs, toMs: toMs ?? nowMs, limit, filter: seriesFilter(search), includeOverlappedTrips: search['includeOverlappedTrips'] === true });
      const rows = type === 'Trip' ? quirkedTrips(ctx, found) : found;
      const scenario = findScenario(ctx.scenarios(), 'duplicate_and_reorder');
      return scenario ? applyDuplicateAndReorder(rows, [], scenario, `${ctx.account}:${typeName}:${JSON.stringify(search)}`) : rows;
    }
  }
}

/** DeviceStatusInfo: the state at the last logged point; currentStateDuration since the last drive/stop change. */
function deviceStatus(ctx: SimContext, index: number, nowMs: number): Record<string, unknown> {
  const atMs = ctx.fleet.sampleTimes(index, nowMs - 2 * 3_600_000, nowMs + 1, LOG_STEP_MS).at(-1) ?? nowMs;
  const moving = ctx.fleet.stateAt(index, atMs).engineState !== 'off';
  let sinceMs = atMs;
  if (!moving) sinceMs = ctx.fleet.tripsBetween(index, nowMs - 3 * 86_400_000, nowMs + 1, nowMs).at(-1)?.endMs ?? atMs;
  else for (let t = atMs; t > atMs - 12 * 3_600_000 && ctx.fleet.stateAt(index, t).engineState !== 'off'; t -= 300_000) sinceMs = t;
  return renderDeviceStatusInfo(ctx.fleet, index, atMs, sinceMs, nowMs);
}

function getFeed(ctx: SimContext, typeName: string, params: Params): { data: unknown[]; toVersion: string } {
  const search = isObject(params['search']) ? params['search'] : {};
  const limit = resultsLimit(params);
  const fromVersion = params['fromVersion'] === undefined || params['fromVersion'] === null ? undefined : decodeVersion(params['fromVersion']);
  if (params['fromVersion'] !== undefined && params['fromVersion'] !== null && fromVersion === undefined) throw new ArgumentError('fromVersion is not a version');
  const nowMs = ctx.clock.now();
  if ((SERIES_TYPES as readonly string[]).includes(typeName)) {
    const page = feedPage(ctx, {
      type: typeName as SeriesType,
      vehicles: vehiclesOf(ctx, search),
      fromVersion,
      seedFromMs: dateParam(search, 'fromDate') ?? ctx.fleet.options.epochMs,
      limit,
      filter: seriesFilter(search),
      seed: `${ctx.account}:${typeName}:${String(params['fromVersion'])}`,
    });
    return typeName === 'Trip' ? { ...page, data: quirkedTrips(ctx, page.data) } : page;
  }
  // Entity feeds: every entity whose version is newer, in version order.
  let entities: { version: bigint; body: Record<string, unknown> }[];
  if (typeName === 'Device') entities = deviceEntities(ctx);
  else if (typeName === 'User') entities = userEntities(ctx);
  else if (['Group', 'Diagnostic', 'DeviceStatusInfo', 'FailureMode'].includes(typeName)) entities = get(ctx, typeName, { search }).map((body) => ({ version: 1n, body: body as Record<string, unknown> }));
  else throw new ArgumentError(`Unknown typeName '${typeName}'`);
  const after = fromVersion ?? 0n;
  const sorted = entities.filter((e) => e.version > after).sort((a, b) => (a.version < b.version ? -1 : a.version > b.version ? 1 : 0));
  const page = sorted.slice(0, limit);
  const toVersion = page.length >= limit ? (page.at(-1)?.version as bigint) : versionCeiling(nowMs);
  let data = page.map((e) => e.body);
  const scenario = findScenario(ctx.scenarios(), 'duplicate_and_reorder');
  if (scenario && fromVersion !== undefined) {
    const tail = entities.filter((e) => e.version <= fromVersion).sort((a, b) => (a.version < b.version ? -1 : 1)).slice(-scenario.overlap).map((e) => e.body);
    data = applyDuplicateAndReorder(data, tail, scenario, `${ctx.account}:${typeName}:${String(params['fromVersion'])}`);
  }
  return { data, toVersion: versionToken(toVersion) };
}

// ---- Dispatch -----------------------------------------------------------------------------------

export function authenticate(ctx: SimContext, params: Params): RpcOutcome {
  const { userName, password } = ctx.accountInfo;
  if (params['userName'] !== userName || params['password'] !== password) return fail('InvalidUserException', 'Incorrect login credentials');
  const nowMs = ctx.clock.now();
  for (const [id, s] of ctx.sessions) if (s.expiresAtMs <= nowMs) ctx.sessions.delete(id);
  // Session ids look like MyGeotab's: a long decimal number.
  const sessionId = `${randomInt(100_000_000, 999_999_999)}${randomInt(100_000_000, 999_999_999)}`;
  ctx.sessions.set(sessionId, { account: ctx.account, userName: userName as string, expiresAtMs: nowMs + SESSION_TTL_MS });
  return { result: { credentials: { database: ctx.account, sessionId, userName }, path: 'ThisServer' } };
}

/** One non-multi call. `typeName` checks for missing_permission happen in the definition. */
export function call(ctx: SimContext, method: unknown, params: unknown): RpcOutcome {
  if (!isObject(params)) return fail('ArgumentException', 'params must be an object');
  const typeName = params['typeName'];
  try {
    switch (method) {
      case 'Get':
        if (typeof typeName !== 'string') return fail('ArgumentException', 'typeName is required');
        return { result: get(ctx, typeName, params) };
      case 'GetFeed':
        if (typeof typeName !== 'string') return fail('ArgumentException', 'typeName is required');
        return { result: getFeed(ctx, typeName, params) };
      case 'GetCountOf':
        if (typeof typeName !== 'string') return fail('ArgumentException', 'typeName is required');
        return { result: get(ctx, typeName, { ...params, resultsLimit: undefined }).length };
      case 'GetSystemTimeUtc':
        return { result: iso(ctx.clock.now()) };
      default:
        return fail('MissingMethodException', `The method "${String(method)}" could not be found. Verify the method name and ensure all method parameters are included.`, -32601);
    }
  } catch (error) {
    if (error instanceof ArgumentError) return fail('ArgumentException', error.message);
    throw error;
  }
}
