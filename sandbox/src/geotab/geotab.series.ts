/**
 * The Geotab simulator's time-series records (LogRecord, StatusData, FaultData, Trip) and their
 * data feed. Nothing is stored: a record is a pure function of (account fleet, vehicle, time), and
 * a feed page is found by walking arrival time from the version it resumes at.
 *
 * Invariants:
 * - Versions order records by ARRIVAL at the server, not by record time (geotab.md §6.1). A record
 *   normally arrives at its own time (a trip when it stops); a record hidden by a late_history
 *   scenario arrives after `availableAtMs`, the window replayed 60× faster than real time, so it
 *   shows up in the feed after records that are newer than it — as buffered device data does.
 * - A page never holds a record that has not arrived by the clock's now; a caught-up page returns
 *   `toVersion` = "everything up to now", so the next call returns only later arrivals.
 * - Data a vehicle lacks (odometer, fuel) has no StatusData rows at all.
 */
import type { AccountFleet, SimContext } from '../common/sim-kit.types.js';
import { findScenario, applyDuplicateAndReorder } from '../common/duplicate-reorder.js';
import type { Scenario } from '../common/scenario.types.js';
import { arrivalMsOf, KNOWN_DIAGNOSTICS, versionCeiling, versionToken, versionValue, type KnownDiagnosticId } from './geotab-ids.js';
import { renderFaultData, renderLogRecord, renderStatusData, renderTrip } from './geotab.render.js';

export type SeriesType = 'LogRecord' | 'StatusData' | 'FaultData' | 'Trip';
export const SERIES_TYPES: readonly SeriesType[] = ['LogRecord', 'StatusData', 'FaultData', 'Trip'];

/** GPS cadence while driving (the fleet adds trip start/end and hourly parked points). */
export const LOG_STEP_MS = 60_000;
/** Engine-data cadence while running. */
export const STATUS_STEP_MS = 300_000;
/** Late records arrive this many times faster than they were recorded. */
export const LATE_REPLAY_FACTOR = 60;
const DAY_MS = 86_400_000;
/** Longest trip the simulator looks back for when a query window cuts one. */
const MAX_TRIP_MS = DAY_MS;
const FEED_CHUNK_MS: Readonly<Record<SeriesType, number>> = { LogRecord: 6 * 3_600_000, StatusData: 6 * 3_600_000, FaultData: 7 * DAY_MS, Trip: 7 * DAY_MS };

export interface SeriesRecord {
  /** Record time (Trip: start). */
  readonly timeMs: number;
  /** When it reaches the server (Trip: stop); remapped for late history. */
  arrivalMs: number;
  readonly index: number;
  readonly slot: number;
  readonly build: (version: string) => Record<string, unknown> | undefined;
}

export interface SeriesFilter {
  diagnostics?: ReadonlySet<string>;
}

/** Records of one vehicle whose record time lies in [fromMs, toMs), ordered by time. */
export function seriesOf(type: SeriesType, fleet: AccountFleet, index: number, fromMs: number, toMs: number, nowMs: number, filter: SeriesFilter = {}): SeriesRecord[] {
  const upTo = Math.min(toMs, nowMs + 1);
  if (upTo <= fromMs) return [];
  const vehicle = fleet.vehicle(index);
  const out: SeriesRecord[] = [];
  if (type === 'LogRecord') {
    for (const t of fleet.sampleTimes(index, fromMs, upTo, LOG_STEP_MS)) {
      out.push({ timeMs: t, arrivalMs: t, index, slot: t % LOG_STEP_MS === 0 ? 0 : 1, build: (version) => renderLogRecord(fleet, index, t, version) });
    }
  } else if (type === 'StatusData') {
    const diagnostics = KNOWN_DIAGNOSTICS.map((d, n) => [d.id, n] as const).filter(([id]) => {
      if (filter.diagnostics && !filter.diagnostics.has(id)) return false;
      if (id === 'DiagnosticOdometerId' && !vehicle.hasOdometer) return false;
      return !(id === 'DiagnosticFuelLevelId' && !vehicle.reportsFuel);
    });
    if (diagnostics.length === 0) return [];
    for (const t of fleet.sampleTimes(index, fromMs, upTo, STATUS_STEP_MS)) {
      for (const [id, n] of diagnostics) {
        out.push({ timeMs: t, arrivalMs: t, index, slot: n * 2 + (t % STATUS_STEP_MS === 0 ? 0 : 1), build: (version) => renderStatusData(fleet, index, t, id as KnownDiagnosticId, version) });
      }
    }
  } else if (type === 'FaultData') {
    // A fault is reported when it opens and again at every ignition-on (trip start) while present.
    const events = fleet.faultEventsBetween(index, fromMs, upTo).filter((e) => e.kind === 'opened');
    for (const e of events) out.push({ timeMs: e.tMs, arrivalMs: e.tMs, index, slot: 0, build: (version) => renderFaultData(index, e.fault, e.tMs, 1, version) });
    for (const trip of fleet.tripsBetween(index, fromMs, upTo, Number.MAX_SAFE_INTEGER)) {
      const active = [...fleet.stateAt(index, trip.startMs).activeFaults].filter((f) => f.openedAtMs < trip.startMs).sort((a, b) => a.key.localeCompare(b.key));
      active.forEach((fault, n) => out.push({ timeMs: trip.startMs, arrivalMs: trip.startMs, index, slot: 1 + n, build: (version) => renderFaultData(index, fault, trip.startMs, 1, version) }));
    }
    out.sort((a, b) => a.timeMs - b.timeMs || a.slot - b.slot);
  } else {
    const trips = fleet.tripsBetween(index, fromMs, upTo + 2 * DAY_MS, nowMs);
    trips.forEach((trip, n) => {
      if (trip.startMs >= upTo) return;
      const nextStart = trips[n + 1]?.startMs;
      out.push({ timeMs: trip.startMs, arrivalMs: trip.endMs, index, slot: 0, build: (version) => renderTrip(fleet, trip, nextStart !== undefined && nextStart <= nowMs ? nextStart : undefined, version) });
    });
  }
  return out;
}

type Late = Extract<Scenario, { kind: 'late_history' }>;

function lateWindows(ctx: SimContext): Late[] {
  return ctx.scenarios().filter((s): s is Late => s.kind === 'late_history');
}

/** Records of all `vehicles` that ARRIVE in [fromMs, toMs), late history remapped. */
function arrivalsBetween(type: SeriesType, ctx: SimContext, vehicles: readonly number[], fromMs: number, toMs: number, nowMs: number, filter: SeriesFilter): SeriesRecord[] {
  const lates = lateWindows(ctx);
  const isLate = (t: number) => lates.some((l) => t >= l.fromMs && t < l.toMs);
  const out: SeriesRecord[] = [];
  const lookBack = type === 'Trip' ? MAX_TRIP_MS : 0;
  for (const v of vehicles) {
    for (const r of seriesOf(type, ctx.fleet, v, fromMs - lookBack, toMs, nowMs, filter)) if (r.arrivalMs >= fromMs && r.arrivalMs < toMs && !isLate(r.timeMs)) out.push(r);
    for (const l of lates) {
      if (l.availableAtMs > nowMs) continue;
      // Arrival a ↔ record time l.fromMs + (a - availableAtMs) × factor.
      const t0 = Math.max(l.fromMs, l.fromMs + (fromMs - l.availableAtMs) * LATE_REPLAY_FACTOR);
      const t1 = Math.min(l.toMs, l.fromMs + (toMs - l.availableAtMs) * LATE_REPLAY_FACTOR);
      if (t1 <= t0) continue;
      for (const r of seriesOf(type, ctx.fleet, v, t0, t1, nowMs, filter)) {
        r.arrivalMs = l.availableAtMs + Math.floor((r.timeMs - l.fromMs) / LATE_REPLAY_FACTOR);
        if (r.arrivalMs >= fromMs && r.arrivalMs < toMs) out.push(r);
      }
    }
  }
  return out;
}

const versionOf = (r: SeriesRecord): bigint => versionValue(r.arrivalMs, r.index, r.slot);

export interface FeedQuery {
  type: SeriesType;
  vehicles: readonly number[];
  fromVersion?: bigint;
  /** First-call seed (search.fromDate) when there is no fromVersion. */
  seedFromMs: number;
  limit: number;
  filter: SeriesFilter;
  /** duplicate_and_reorder seed (account + call). */
  seed: string;
}

/** One GetFeed page: `{data, toVersion}`. */
export function feedPage(ctx: SimContext, q: FeedQuery): { data: Record<string, unknown>[]; toVersion: string } {
  const nowMs = ctx.clock.now();
  const chunk = FEED_CHUNK_MS[q.type];
  const after = q.fromVersion ?? -1n;
  const picked: { version: bigint; record: SeriesRecord }[] = [];
  for (let a = q.fromVersion !== undefined ? arrivalMsOf(q.fromVersion) : q.seedFromMs; a <= nowMs && picked.length < q.limit; a += chunk) {
    const b = Math.min(a + chunk, nowMs + 1);
    const rows = arrivalsBetween(q.type, ctx, q.vehicles, a, b, nowMs, q.filter)
      .map((record) => ({ version: versionOf(record), record }))
      .filter((r) => r.version > after)
      .sort((x, y) => (x.version < y.version ? -1 : x.version > y.version ? 1 : 0));
    for (const row of rows) {
      if (picked.length >= q.limit) break;
      picked.push(row);
    }
  }
  const toVersion = picked.length >= q.limit ? (picked.at(-1)?.version as bigint) : versionCeiling(nowMs);
  let data = picked.flatMap<Record<string, unknown>>(({ version, record }) => record.build(versionToken(version)) ?? []);
  const scenario = findScenario(ctx.scenarios(), 'duplicate_and_reorder');
  const resumedAt = q.fromVersion;
  if (scenario && resumedAt !== undefined) {
    // The previous page's tail: the last `overlap` records at or before fromVersion (looked for in one chunk back).
    const start = arrivalMsOf(resumedAt);
    const tail = arrivalsBetween(q.type, ctx, q.vehicles, start - chunk, Math.min(start + 1, nowMs + 1), nowMs, q.filter)
      .map((record) => ({ version: versionOf(record), record }))
      .filter((r) => r.version <= resumedAt)
      .sort((x, y) => (x.version < y.version ? -1 : 1))
      .slice(-scenario.overlap)
      .flatMap<Record<string, unknown>>(({ version, record }) => record.build(versionToken(version)) ?? []);
    data = applyDuplicateAndReorder(data, tail, scenario, q.seed);
  }
  return { data, toVersion: versionToken(toVersion) };
}

export interface RangeQuery {
  type: SeriesType;
  vehicles: readonly number[];
  fromMs: number;
  /** Inclusive, as Geotab's toDate. */
  toMs: number;
  limit: number;
  filter: SeriesFilter;
  includeOverlappedTrips?: boolean;
}

/** `Get` over a date range, ordered by record time then vehicle; at most `limit` rows (walked a day at a time, so a capped query stops early). */
export function rangeRows(ctx: SimContext, q: RangeQuery): Record<string, unknown>[] {
  const nowMs = ctx.clock.now();
  const overlapped = q.type === 'Trip' && q.includeOverlappedTrips === true;
  const out: Record<string, unknown>[] = [];
  const end = Math.min(q.toMs, nowMs) + 1;
  for (let a = q.fromMs; a < end && out.length < q.limit; a += DAY_MS) {
    const b = Math.min(a + DAY_MS, end);
    const rows: SeriesRecord[] = [];
    for (const v of q.vehicles) {
      // Overlapped trips: any trip with start ≤ toDate and stop ≥ fromDate (the first chunk looks back for them).
      const from = overlapped && a === q.fromMs ? a - MAX_TRIP_MS : a;
      for (const r of seriesOf(q.type, ctx.fleet, v, from, b, nowMs, q.filter)) {
        if (r.arrivalMs > nowMs) continue;
        if (overlapped ? r.arrivalMs >= q.fromMs : r.timeMs >= q.fromMs) rows.push(r);
      }
    }
    rows.sort((x, y) => x.timeMs - y.timeMs || x.index - y.index || x.slot - y.slot);
    for (const r of rows) {
      if (out.length >= q.limit) break;
      const built = r.build(versionToken(versionOf(r)));
      if (built) out.push(built);
    }
  }
  return out;
}

/**
 * The record in effect at `atMs` (Get with fromDate = toDate): per vehicle and slot kind, the last
 * record at or before `atMs`, looked for in the last 2 hours, then the last 3 days.
 */
export function inEffectRows(ctx: SimContext, type: 'LogRecord' | 'StatusData', vehicles: readonly number[], atMs: number, filter: SeriesFilter, limit: number): Record<string, unknown>[] {
  const at = Math.min(atMs, ctx.clock.now());
  const out: Record<string, unknown>[] = [];
  for (const v of vehicles) {
    for (const lookBack of [2 * 3_600_000, 3 * DAY_MS]) {
      const rows = seriesOf(type, ctx.fleet, v, at - lookBack, at + 1, at, filter);
      if (rows.length === 0) continue;
      const latest = new Map<number, SeriesRecord>();
      for (const r of rows) latest.set(type === 'StatusData' ? r.slot >> 1 : 0, r);
      for (const r of [...latest.values()].sort((a, b) => a.slot - b.slot)) {
        const built = r.build(versionToken(versionOf(r)));
        if (built) out.push(built);
      }
      break;
    }
    if (out.length >= limit) break;
  }
  return out.slice(0, limit);
}
