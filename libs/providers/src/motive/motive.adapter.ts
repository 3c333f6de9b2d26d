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
 * - Units: every request asks for metric; records whose embedded vehicle says `metric_units: false`
 *   are converted from imperial, and the last mode seen is used for location responses, which carry
 *   no such signal (header-dependent units are unconfirmed, motive.md §5.3); before its first
 *   location read an adapter probes one driving period to learn the mode.
 */
import type { DriverRecord, FaultSnapshot, GroupRecord, Observation, TelemetryMetric, TripRecord, VehicleRecord } from '@switchyard/domain';
import type { AdapterOptions, Page, ProviderAdapter } from '../adapter.js';
import { MOTIVE_CAPABILITIES } from '../capabilities/index.js';
import { ProviderError } from '../errors.js';
import { systemClock } from '../http/request-budget.js';
import { MotiveClient, nextPageNo } from './motive.client.js';
import { decodeHistoryCursor, decodeListCursor, encodeCursor } from './motive.cursor.js';
import type { UnitsMode } from './motive.fields.js';
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
const DAY_MS = 86_400_000;

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** [from, to) → inclusive `YYYY-MM-DD` date ranges of at most 90 days (UTC: we never send X-Time-Zone). */
export function dateChunks(fromIso: string, toIso: string): Array<{ start: string; end: string }> {
  const from = Date.parse(fromIso);
  const to = Date.parse(toIso);
  if (Number.isNaN(from) || Number.isNaN(to) || to <= from) throw new ProviderError('provider_config_invalid', { message: 'window must be from < to, RFC 3339' });
  const first = Math.floor(from / DAY_MS) * DAY_MS;
  const last = Math.floor((to - 1) / DAY_MS) * DAY_MS;
  const chunks: Array<{ start: string; end: string }> = [];
  for (let start = first; start <= last; start += MOTIVE_HISTORY_CHUNK_DAYS * DAY_MS) {
    chunks.push({ start: day(start), end: day(Math.min(last, start + (MOTIVE_HISTORY_CHUNK_DAYS - 1) * DAY_MS)) });
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
  // Last unit mode a record told us (see the header comment); metric is what we ask for.
  let unitsMode: UnitsMode = 'metric';
  let unitsConfirmed = false;
  const learnUnits = (metricUnits: boolean | null | undefined): void => {
    if (typeof metricUnits !== 'boolean') return;
    unitsMode = metricUnits ? 'metric' : 'imperial';
    unitsConfirmed = true;
  };
  /**
   * Location responses carry no unit signal, so before the first one this adapter instance reads a
   * single driving period (one request, once) to learn whether the header was honoured. No period,
   * or no permission to read them, leaves the metric mode we asked for.
   */
  async function ensureUnits(): Promise<void> {
    if (unitsConfirmed) return;
    try {
      const probe = await client.listPage('/v1/driving_periods', drivingPeriodsEnvelope, 1, {}, 1);
      learnUnits(probe.items[0]?.vehicle?.metric_units);
    } catch (error) {
      if (!(error instanceof ProviderError) || (error.code !== 'provider_scope_mismatch' && error.code !== 'provider_response_changed')) throw error;
    }
    unitsConfirmed = true;
  }
  // Group memberships for drivers, rebuilt at the start of each driver listing (cursor null).
  let membership: Promise<MembershipLookup> | undefined;

  /** One list page: fetch, drop the previous page's ids, map, and build the next cursor. */
  async function listPage<W extends { id: number }, R>(
    cursor: string | null | undefined,
    fetchPage: (page: number) => Promise<ListPage<W>>,
    map: (item: W) => R | undefined,
  ): Promise<Page<R>> {
    const c = decodeListCursor(cursor);
    const page = await fetchPage(c.p);
    const previous = new Set(c.s);
    const seen = new Set<number>();
    const items: R[] = [];
    for (const item of page.items) {
      if (previous.has(String(item.id)) || seen.has(item.id)) continue;
      seen.add(item.id);
      const mapped = map(item);
      if (mapped !== undefined) items.push(mapped);
    }
    const next = nextPageNo(page.pagination, page.items.length);
    return { items, next: next === null ? null : encodeCursor({ p: next, s: page.items.map((i) => String(i.id)).slice(0, 200) }) };
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
      const range = dateChunks(query.from, query.to);
      const wanted = query.vehicleSourceIds && query.vehicleSourceIds.length > 0 ? new Set(query.vehicleSourceIds) : undefined;
      const fallbackVehicleId = query.vehicleSourceIds?.length === 1 ? query.vehicleSourceIds[0] : undefined;
      return listPage(
        query.cursor,
        (p) =>
          client.listPage('/v1/driving_periods', drivingPeriodsEnvelope, p, {
            start_date: range[0].start,
            end_date: range[range.length - 1].end,
            ...vehicleFilter(query.vehicleSourceIds),
          }),
        (dp) => {
          learnUnits(dp.vehicle?.metric_units);
          const outcome = mapDrivingPeriod(dp, { mode: unitsMode, fallbackVehicleId, fetchedAt });
          if (outcome.kind !== 'trip') return undefined;
          const trip = outcome.trip;
          // Completed trips that started inside the window, for the vehicles asked for (filters re-checked: unconfirmed upstream).
          return inWindow(trip.startedAt, query.from, query.to) && (!wanted || wanted.has(trip.vehicleSourceId)) ? trip : undefined;
        },
      );
    },

    async latestTelemetry(query): Promise<Page<Observation>> {
      await ensureUnits();
      const fetchedAt = now();
      const metrics = new Set<TelemetryMetric>(query.metrics);
      const wanted = query.vehicleSourceIds && query.vehicleSourceIds.length > 0 ? new Set(query.vehicleSourceIds) : undefined;
      const page = await listPage(
        query.cursor,
        (p) => client.listPage('/v1/vehicle_locations', vehicleLocationsEnvelope, p, vehicleFilter(query.vehicleSourceIds)),
        (v) => {
          const vehicleSourceId = String(v.id);
          if ((wanted && !wanted.has(vehicleSourceId)) || !v.current_location) return [];
          return mapLocationPoint(v.current_location, { vehicleSourceId, mode: unitsMode, metrics, fetchedAt });
        },
      );
      return { items: page.items.flat(), next: page.next };
    },

    async telemetryHistory(query): Promise<Page<Observation>> {
      await ensureUnits();
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
        for (const o of mapLocationPoint(point, { vehicleSourceId, mode: unitsMode, metrics, fetchedAt })) {
          if (inWindow(o.observedAt, query.from, query.to)) items.push(o);
        }
      }
      // v3 pagination is unconfirmed: without a pagination object the chunk is taken as complete.
      const nextPage = nextPageNo(page.pagination, page.items.length);
      let next: { v: number; c: number; p: number } | null;
      if (nextPage !== null) next = { v: c.v, c: c.c, p: nextPage };
      else if (c.c + 1 < chunks.length) next = { v: c.v, c: c.c + 1, p: 1 };
      else if (c.v + 1 < query.vehicleSourceIds.length) next = { v: c.v + 1, c: 0, p: 1 };
      else next = null;
      return { items, next: next ? encodeCursor(next) : null };
    },

    async faults(query): Promise<Page<FaultSnapshot>> {
      const fetchedAt = now();
      const byId = new Map<number, MotiveFaultCode>();
      // Status and vehicle filters on /v1/fault_codes are unconfirmed: read everything, filter here.
      for (let page: number | null = 1; page !== null; ) {
        const res = await client.listPage('/v1/fault_codes', faultCodesEnvelope, page, vehicleFilter(query.vehicleSourceIds));
        for (const f of res.items) {
          byId.set(f.id, f);
          learnUnits(f.vehicle.metric_units);
        }
        page = nextPageNo(res.pagination, res.items.length);
      }
      const items = buildFaultSnapshots([...byId.values()], { vehicleSourceIds: query.vehicleSourceIds, observedAt: fetchedAt, fetchedAt });
      return { items, next: null };
    },
  };
}
