/**
 * The Motive ProviderAdapter: one provider page per call mapped to normalized records, with an
 * opaque resumable cursor (motive.cursor.ts).
 *
 * Invariants and decisions:
 * - List endpoints page by `page_no`; each returned page drops ids already returned on the previous
 *   page (offset pagination drifts while data changes, motive.md §9.7). Duplicates further apart are
 *   still possible and are absorbed by the collectors' upsert by sourceId.
 * - Faults are `complete_snapshot`: a snapshot must list every open code of its vehicle, so `faults`
 *   scans all fault-code pages in one call and returns every snapshot with `next: null`.
 * - Records are validated one by one (parseMotiveList): a malformed record is reported in the page's
 *   `skipped` with its id and reason, and the page still succeeds; only a page whose every record
 *   fails, or a malformed envelope, is `provider_response_changed`. For faults the cost of a
 *   malformed code is its vehicle's snapshot (withheld and reported, never published incomplete).
 * - Units: every request sends `X-Metric-Units: true`, so location readings are km and km/h;
 *   driving-period `*_kilometers` are km always. `metric_units` on embedded vehicles is a display
 *   preference and never switches units (docs/providers.md, Motive quirk M1).
 * - `/v1/driving_periods` refuses ranges over 30 days (400 "Date range cannot be greater than 30
 *   days"), so a trips window is read in 30-day slices; the cursor carries the slice index, and a
 *   period counts only in the slice holding its start day, so slices never report it twice.
 */
import type { DriverRecord, FaultSnapshot, GroupRecord, Observation, TelemetryMetric, TripRecord, VehicleRecord } from '@switchyard/domain';
import type { AdapterOptions, Page, ProviderAdapter, SkippedRecord } from '../adapter.js';
import { MOTIVE_CAPABILITIES } from '../capabilities/index.js';
import { ProviderError } from '../errors.js';
import { systemClock } from '../http/request-budget.js';
import { MotiveClient, nextPageNo } from './motive.client.js';
import { decodeHistoryCursor, decodeListCursor, encodeCursor } from './motive.cursor.js';
import { buildMembershipIndex } from './motive-membership.js';
import { isDriver, mapDriver, mapGroup, mapVehicle, type MembershipLookup } from './motive.mapper.js';
import { buildFaultSnapshots, mapDrivingPeriod, mapLocationPoint } from './motive-telemetry.mapper.js';
import {
  drivingPeriodsEnvelope,
  faultCodesEnvelope,
  groupsEnvelope,
  historyEnvelope,
  usersEnvelope,
  vehicleLocationsEnvelope,
  vehiclesEnvelope,
  type ListPage,
  type MotiveFaultCode,
} from './motive.schemas.js';

/** v3 history windows are at most 3 months (motive.md §5.2); 90 days keeps every chunk inside that. */
export const MOTIVE_HISTORY_CHUNK_DAYS = 90;
/** `/v1/driving_periods`: end_date - start_date may be at most 30 days; 30 inclusive dates (a 29-day delta) stay inside. */
export const MOTIVE_DRIVING_PERIODS_CHUNK_DAYS = 30;
const DAY_MS = 86_400_000;
/** Location readings: the unit system we ask for with `X-Metric-Units: true` on every request. */
const REQUESTED_UNITS = 'metric';

const TRIP_SKIP_REASONS = {
  no_vehicle: 'no vehicle, and not exactly one vehicle asked for: cannot be attributed',
  unreadable_times: 'start_time/end_time not RFC 3339',
} as const;

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** [from, to) → inclusive `YYYY-MM-DD` date ranges of at most `chunkDays` days (UTC: we never send X-Time-Zone). */
export function dateChunks(fromIso: string, toIso: string, chunkDays = MOTIVE_HISTORY_CHUNK_DAYS): Array<{ start: string; end: string }> {
  const from = Date.parse(fromIso);
  const to = Date.parse(toIso);
  if (Number.isNaN(from) || Number.isNaN(to) || to <= from) throw new ProviderError('provider_config_invalid', { message: 'window must be from < to, RFC 3339' });
  const first = Math.floor(from / DAY_MS) * DAY_MS;
  const last = Math.floor((to - 1) / DAY_MS) * DAY_MS;
  const chunks: Array<{ start: string; end: string }> = [];
  for (let start = first; start <= last; start += chunkDays * DAY_MS) {
    chunks.push({ start: day(start), end: day(Math.min(last, start + (chunkDays - 1) * DAY_MS)) });
  }
  return chunks;
}

const inWindow = (iso: string, from: string, to: string): boolean => {
  const t = Date.parse(iso);
  return t >= Date.parse(from) && t < Date.parse(to);
};

export function createMotiveAdapter(options: AdapterOptions<'motive'>): ProviderAdapter {
  const client = new MotiveClient(options);
  const clock = options.clock ?? systemClock;
  const now = (): string => new Date(clock.now()).toISOString();
  // Group memberships for drivers, rebuilt at the start of each driver listing (cursor null).
  let membership: Promise<MembershipLookup> | undefined;

  /**
   * One list page: fetch, drop the previous page's ids, map, and build the next cursor. `slices`
   * (trips) is how many date slices the listing walks: the cursor's `c` moves to the next slice when
   * a slice's pages are done. Entries that failed their schema, and records the mapper reports
   * through `skip`, come back in the page's `skipped`; the page itself still succeeds.
   */
  async function listPage<W extends { id: number }, R>(
    cursor: string | null | undefined,
    fetchPage: (page: number, slice: number) => Promise<ListPage<W>>,
    map: (item: W, slice: number, skip: (reason: string) => void) => R | undefined,
    slices = 1,
  ): Promise<Page<R>> {
    const c = decodeListCursor(cursor);
    if (c.c >= slices) return { items: [], next: null };
    const page = await fetchPage(c.p, c.c);
    const previous = new Set(c.s);
    const seen = new Set<number>();
    const items: R[] = [];
    const skipped: SkippedRecord[] = [...page.skipped];
    for (const item of page.items) {
      if (previous.has(String(item.id)) || seen.has(item.id)) continue;
      seen.add(item.id);
      const mapped = map(item, c.c, (reason) => skipped.push({ sourceId: String(item.id), reason }));
      if (mapped !== undefined) items.push(mapped);
    }
    const withSkipped = (next: string | null): Page<R> => ({ items, next, ...(skipped.length > 0 ? { skipped } : {}) });
    const next = nextPageNo(page.pagination, page.read);
    if (next !== null) return withSkipped(encodeCursor({ c: c.c, p: next, s: page.items.map((i) => String(i.id)).slice(0, 200) }));
    return withSkipped(c.c + 1 < slices ? encodeCursor({ c: c.c + 1, p: 1, s: [] }) : null);
  }

  const vehicleFilter = (ids: readonly string[] | undefined) => (ids && ids.length > 0 ? { vehicle_ids: ids } : {});

  return {
    provider: 'motive',
    capabilities: MOTIVE_CAPABILITIES,

    vehicles(cursor): Promise<Page<VehicleRecord>> {
      const fetchedAt = now();
      return listPage(cursor, (p) => client.listPage('/v1/vehicles', vehiclesEnvelope, p), (v) => mapVehicle(v, fetchedAt));
    },

    async drivers(cursor): Promise<Page<DriverRecord>> {
      const fetchedAt = now();
      if (!cursor || !membership) membership = buildMembershipIndex(client);
      const lookup = await membership.catch((error: unknown) => {
        membership = undefined;
        throw error;
      });
      return listPage(
        cursor,
        (p) => client.listPage('/v1/users', usersEnvelope, p, { role: 'driver' }),
        (u) => (isDriver(u) ? mapDriver(u, lookup, fetchedAt) : undefined),
      );
    },

    groups(cursor): Promise<Page<GroupRecord>> {
      const fetchedAt = now();
      return listPage(cursor, (p) => client.listPage('/v1/groups', groupsEnvelope, p), (g) => mapGroup(g, fetchedAt));
    },

    trips(query): Promise<Page<TripRecord>> {
      const fetchedAt = now();
      const slices = dateChunks(query.from, query.to, MOTIVE_DRIVING_PERIODS_CHUNK_DAYS);
      const wanted = query.vehicleSourceIds && query.vehicleSourceIds.length > 0 ? new Set(query.vehicleSourceIds) : undefined;
      const fallbackVehicleId = query.vehicleSourceIds?.length === 1 ? query.vehicleSourceIds[0] : undefined;
      return listPage(
        query.cursor,
        (p, c) =>
          client.listPage('/v1/driving_periods', drivingPeriodsEnvelope, p, {
            start_date: slices[c].start,
            end_date: slices[c].end,
            ...vehicleFilter(query.vehicleSourceIds),
          }),
        (dp, c, skip) => {
          const outcome = mapDrivingPeriod(dp, { fallbackVehicleId, fetchedAt });
          if (outcome.kind === 'skipped' && outcome.reason !== 'ongoing') skip(`/v1/driving_periods driving_period ${dp.id}: ${TRIP_SKIP_REASONS[outcome.reason]}`);
          if (outcome.kind !== 'trip') return undefined;
          const trip = outcome.trip;
          // Completed trips that started inside the window and inside this slice's days (a period
          // overlapping two slices is reported once), for the vehicles asked for (filters re-checked: unconfirmed upstream).
          const sliceTo = new Date(Date.parse(`${slices[c].end}T00:00:00Z`) + DAY_MS).toISOString();
          const inSlice = inWindow(trip.startedAt, `${slices[c].start}T00:00:00Z`, sliceTo);
          return inSlice && inWindow(trip.startedAt, query.from, query.to) && (!wanted || wanted.has(trip.vehicleSourceId)) ? trip : undefined;
        },
        slices.length,
      );
    },

    async latestTelemetry(query): Promise<Page<Observation>> {
      const fetchedAt = now();
      const metrics = new Set<TelemetryMetric>(query.metrics);
      const wanted = query.vehicleSourceIds && query.vehicleSourceIds.length > 0 ? new Set(query.vehicleSourceIds) : undefined;
      const page = await listPage(
        query.cursor,
        (p) => client.listPage('/v1/vehicle_locations', vehicleLocationsEnvelope, p, vehicleFilter(query.vehicleSourceIds)),
        (v) => {
          const vehicleSourceId = String(v.id);
          if ((wanted && !wanted.has(vehicleSourceId)) || !v.current_location) return [];
          return mapLocationPoint(v.current_location, { vehicleSourceId, mode: REQUESTED_UNITS, metrics, fetchedAt });
        },
      );
      return { ...page, items: page.items.flat() };
    },

    async telemetryHistory(query): Promise<Page<Observation>> {
      const fetchedAt = now();
      const metrics = new Set<TelemetryMetric>(query.metrics);
      const chunks = dateChunks(query.from, query.to);
      const c = decodeHistoryCursor(query.cursor);
      const vehicleSourceId = query.vehicleSourceIds[c.v];
      const chunk = chunks[c.c];
      if (vehicleSourceId === undefined || chunk === undefined) return { items: [], next: null };
      const path = `/v3/vehicle_locations/${encodeURIComponent(vehicleSourceId)}`;
      const page = await client.historyPage(path, historyEnvelope, c.p, { start_date: chunk.start, end_date: chunk.end });
      const seen = new Set<string>();
      const items: Observation[] = [];
      for (const point of page.items) {
        if (seen.has(point.id)) continue;
        seen.add(point.id);
        for (const o of mapLocationPoint(point, { vehicleSourceId, mode: REQUESTED_UNITS, metrics, fetchedAt })) {
          if (inWindow(o.observedAt, query.from, query.to)) items.push(o);
        }
      }
      // v3 pagination is unconfirmed: without a pagination object the chunk is taken as complete.
      const nextPage = nextPageNo(page.pagination, page.read);
      let next: { v: number; c: number; p: number } | null;
      if (nextPage !== null) next = { v: c.v, c: c.c, p: nextPage };
      else if (c.c + 1 < chunks.length) next = { v: c.v, c: c.c + 1, p: 1 };
      else if (c.v + 1 < query.vehicleSourceIds.length) next = { v: c.v + 1, c: 0, p: 1 };
      else next = null;
      return { items, next: next ? encodeCursor(next) : null, ...(page.skipped.length > 0 ? { skipped: page.skipped } : {}) };
    },

    async faults(query): Promise<Page<FaultSnapshot>> {
      const fetchedAt = now();
      const byId = new Map<number, MotiveFaultCode>();
      // Malformed codes, by their vehicle's id (faultCodesEnvelope): that vehicle's snapshot is withheld.
      const unreadable: SkippedRecord[] = [];
      // Status and vehicle filters on /v1/fault_codes are unconfirmed: read everything, filter here.
      for (let page: number | null = 1; page !== null; ) {
        const res = await client.listPage('/v1/fault_codes', faultCodesEnvelope, page, vehicleFilter(query.vehicleSourceIds));
        for (const f of res.items) byId.set(f.id, f);
        unreadable.push(...res.skipped);
        page = nextPageNo(res.pagination, res.read);
      }
      const skipped: SkippedRecord[] = [];
      const items = buildFaultSnapshots([...byId.values()], { vehicleSourceIds: query.vehicleSourceIds, observedAt: fetchedAt, fetchedAt, unreadable }, (r) => skipped.push(r));
      return { items, next: null, ...(skipped.length > 0 ? { skipped } : {}) };
    },
  };
}
