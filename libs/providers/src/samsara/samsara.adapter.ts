/**
 * The Samsara ProviderAdapter: which endpoints serve which normalized resource, and how one adapter
 * page maps onto Samsara's cursor chains. Each method call sends the requests of exactly one Samsara
 * page (plus, for trips, the legacy calls that enrich that page) and returns a resumable cursor.
 *
 * Endpoints: vehicles `/fleet/vehicles`; drivers `/fleet/drivers` once per activation status (one
 * status per request, §3); groups `/tags`; trips `/trips/stream` (completed, queried by start time)
 * enriched with distance and driver from the legacy `/v1/fleet/trips` of the same vehicles, because
 * the stream has neither (§6); latest telemetry `/fleet/vehicles/stats` (snapshot); history
 * `/fleet/vehicles/stats/history`; faults the `faultCodes` stat — snapshot without a window, history
 * with one (each point is a complete snapshot, §7).
 */
import type { FaultSnapshot, Observation, TelemetryMetric, TripRecord } from '@switchyard/domain';
import { toIsoUtc } from '@switchyard/domain';
import type { z } from 'zod';
import type { AdapterOptions, Page, ProviderAdapter, SkippedRecord, TimeWindow } from '../adapter.js';
import { SAMSARA_CAPABILITIES } from '../capabilities/samsara.capabilities.js';
import { ProviderError } from '../errors.js';
import { PageRecords } from '../http/parse.js';
import { SAMSARA_MAX_PAGE_SIZE, SamsaraClient, type SamsaraQuery } from './samsara.client.js';
import { chunk, decodeLaneCursor, nextLaneCursor } from './samsara.cursor.js';
import { mapDriver, mapTag, mapTrip, mapVehicle, type DriverPass, type MapContext } from './samsara.mapper.js';
import { mapFaultSnapshots, mapStatsSeries, planStatTypeGroups, SAMSARA_METRIC_TYPES, snapshotToSeries } from './samsara-stats.mapper.js';
import {
  samsaraDriverSchema,
  samsaraStatsSeriesItemSchema,
  samsaraStatsSnapshotItemSchema,
  samsaraStreamTripSchema,
  samsaraTagSchema,
  samsaraVehicleSchema,
  type SamsaraLegacyTrip,
  type SamsaraStreamTrip,
} from './samsara.schemas.js';

/** `ids` of /trips/stream takes ≤ 50 asset ids (§6.1); the stats `vehicleIds` cap is unconfirmed, so the same. */
export const SAMSARA_IDS_PER_REQUEST = 50;
/** Legacy trip lookups per page run this many at a time; the shared budget still paces each request. */
const LEGACY_CONCURRENCY = 4;
const DRIVER_PASSES: readonly DriverPass[] = ['active', 'deactivated'];

/**
 * The stream/legacy trip join key: vehicle and start second. `/trips/stream` times are whole seconds
 * while legacy `startMs` keeps milliseconds (`…:07Z` vs `…07412`), so an exact-ms key never matches.
 */
export const legacyJoinKey = (vehicleId: string, startMs: number): string => `${vehicleId}:${Math.floor(startMs / 1000)}`;

/**
 * The legacy trip of a stream trip: same vehicle, starting within a second of it (the stream may
 * truncate or round), the closest one when two qualify.
 */
export function findLegacy(index: ReadonlyMap<string, SamsaraLegacyTrip>, vehicleId: string, streamStartMs: number): SamsaraLegacyTrip | undefined {
  const second = Math.floor(streamStartMs / 1000);
  const candidates = [second, second - 1, second + 1]
    .flatMap((s) => index.get(`${vehicleId}:${s}`) ?? [])
    .filter((l) => Math.abs(l.startMs - streamStartMs) < 1000);
  return candidates.sort((a, b) => Math.abs(a.startMs - streamStartMs) - Math.abs(b.startMs - streamStartMs))[0];
}

export function createSamsaraAdapter(options: AdapterOptions<'samsara'>): ProviderAdapter {
  const client = new SamsaraClient(options);
  const context = (): MapContext => ({ fetchedAt: toIsoUtc(client.clock.now()) });

  /**
   * One page of lane `lanes[l]` of a multi-lane listing. Records the schema refused, and those the
   * mapper reports through `skip`, come back in the page's `skipped`.
   */
  async function lanePage<S extends z.ZodType, L, R>(
    cursor: string | null | undefined,
    lanes: readonly L[],
    request: (lane: L) => { path: string; query: SamsaraQuery },
    item: S,
    map: (items: readonly z.output<S>[], lane: L, ctx: MapContext, skip: (record: SkippedRecord) => void) => Promise<readonly R[]> | readonly R[],
  ): Promise<Page<R>> {
    const { l, a } = decodeLaneCursor(cursor, lanes.length);
    const lane = lanes[l] as L;
    const { path, query } = request(lane);
    const page = await client.page(path, item, query, a);
    const skipped: SkippedRecord[] = [...page.skipped];
    const items = await map(page.data, lane, context(), (record) => skipped.push(record));
    return { items, next: nextLaneCursor(l, page.after, lanes.length), ...(skipped.length > 0 ? { skipped } : {}) };
  }

  const idLanes = (ids: readonly string[] | undefined): readonly (string[] | undefined)[] => (ids && ids.length ? chunk(ids, SAMSARA_IDS_PER_REQUEST) : [undefined]);

  function statLanes(metrics: readonly TelemetryMetric[], ids: readonly string[] | undefined) {
    const groups = planStatTypeGroups(metrics);
    if (groups.length === 0) throw new ProviderError('provider_config_invalid', { message: 'no telemetry metrics requested' });
    // Each lane maps only the metrics its own types serve, so a stat echoed in another lane's
    // response can never be emitted twice.
    const lanes = groups.map((types) => ({ types, metrics: metrics.filter((m) => SAMSARA_METRIC_TYPES[m].some((t) => types.includes(t))) }));
    return idLanes(ids).flatMap((vehicleIds) => lanes.map((lane) => ({ ...lane, vehicleIds })));
  }

  /**
   * Legacy trips of the page's vehicles, indexed by vehicle and start second (legacyJoinKey), to add
   * distance and driver. A malformed legacy trip is reported through `skip` (its vehicle's id) and
   * only costs its stream trip the enrichment; every legacy trip of the page malformed is a response change.
   */
  async function legacyIndex(trips: readonly SamsaraStreamTrip[], skip: (record: SkippedRecord) => void): Promise<Map<string, SamsaraLegacyTrip>> {
    const spans = new Map<string, { from: number; to: number }>();
    for (const t of trips) {
      if (t.tripEndTime === undefined) continue;
      // A second of slack each side: the legacy times carry the milliseconds the stream drops (findLegacy).
      const from = Date.parse(t.tripStartTime) - 1000;
      const to = Date.parse(t.tripEndTime) + 1000;
      const span = spans.get(t.asset.id);
      spans.set(t.asset.id, span ? { from: Math.min(span.from, from), to: Math.max(span.to, to) } : { from, to });
    }
    const index = new Map<string, SamsaraLegacyTrip>();
    const page = new PageRecords();
    const queue = [...spans];
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [vehicleId, { from, to }] = next;
        for (const legacy of await client.legacyTrips(vehicleId, from, to, page)) index.set(legacyJoinKey(vehicleId, legacy.startMs), legacy);
      }
    };
    await Promise.all(Array.from({ length: Math.min(LEGACY_CONCURRENCY, queue.length) }, worker));
    page.settle();
    page.skipped.forEach(skip);
    return index;
  }

  /**
   * Every vehicle id of the organisation, sorted (the trips fallback above). Sorted so that the id
   * lanes, and so a trips cursor, stay the same between pages while the fleet does not change; a
   * vehicle added or removed between two pages may shift the lanes (collections always pass ids).
   */
  async function fleetVehicleIds(): Promise<string[]> {
    const ids: string[] = [];
    let after: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof client.page<typeof samsaraVehicleSchema>>> = await client.page('/fleet/vehicles', samsaraVehicleSchema, { limit: SAMSARA_MAX_PAGE_SIZE }, after);
      ids.push(...page.data.map((v) => v.id));
      after = page.after;
    } while (after !== null);
    return [...new Set(ids)].sort();
  }

  return {
    provider: 'samsara',
    capabilities: SAMSARA_CAPABILITIES,

    vehicles: (cursor) =>
      lanePage(cursor, [null], () => ({ path: '/fleet/vehicles', query: { limit: SAMSARA_MAX_PAGE_SIZE } }), samsaraVehicleSchema, (items, _l, ctx) =>
        items.map((v) => mapVehicle(v, ctx)),
      ),

    drivers: (cursor) =>
      lanePage(
        cursor,
        DRIVER_PASSES,
        (pass) => ({ path: '/fleet/drivers', query: { limit: SAMSARA_MAX_PAGE_SIZE, driverActivationStatus: pass } }),
        samsaraDriverSchema,
        (items, pass, ctx) => items.map((d) => mapDriver(d, pass, ctx)),
      ),

    groups: (cursor) =>
      lanePage(cursor, [null], () => ({ path: '/tags', query: { limit: SAMSARA_MAX_PAGE_SIZE } }), samsaraTagSchema, (items, _l, ctx) => items.map((t) => mapTag(t, ctx))),

    trips: async (query: TimeWindow & { vehicleSourceIds?: readonly string[]; cursor?: string | null }) => {
      const fromMs = Date.parse(query.from);
      const toMs = Date.parse(query.to);
      // Samsara's reference marks `ids` required on /trips/stream and an organisation was seen to
      // answer 404 without it (docs/providers.md S2): without vehicle ids, ask for every vehicle's.
      const ids = query.vehicleSourceIds?.length ? query.vehicleSourceIds : await fleetVehicleIds();
      if (ids.length === 0) return { items: [], next: null };
      return lanePage(
        query.cursor,
        idLanes(ids),
        (ids) => ({
          path: '/trips/stream',
          query: { startTime: query.from, endTime: query.to, queryBy: 'tripStartTime', completionStatus: 'completed', ids },
        }),
        samsaraStreamTripSchema,
        async (items, _l, ctx, skip) => {
          // Whether startTime/endTime are inclusive is unconfirmed: keep exactly [from, to) ourselves.
          const inWindow = items.filter((t) => {
            const start = Date.parse(t.tripStartTime);
            return start >= fromMs && start < toMs;
          });
          const legacy = await legacyIndex(inWindow, skip);
          return inWindow
            .map((t) => mapTrip(t, findLegacy(legacy, t.asset.id, Date.parse(t.tripStartTime)), ctx))
            .filter((t): t is TripRecord => t !== undefined);
        },
      );
    },

    latestTelemetry: (query) =>
      lanePage(
        query.cursor,
        statLanes(query.metrics, query.vehicleSourceIds),
        ({ types, vehicleIds }) => ({ path: '/fleet/vehicles/stats', query: { types, vehicleIds } }),
        samsaraStatsSnapshotItemSchema,
        (items, lane, ctx): Observation[] => items.flatMap((item) => mapStatsSeries(snapshotToSeries(item), lane.metrics, ctx)),
      ),

    telemetryHistory: (query) => {
      if (query.vehicleSourceIds.length === 0) return Promise.resolve({ items: [], next: null });
      return lanePage(
        query.cursor,
        statLanes(query.metrics, query.vehicleSourceIds),
        ({ types, vehicleIds }) => ({ path: '/fleet/vehicles/stats/history', query: { types, vehicleIds, startTime: query.from, endTime: query.to } }),
        samsaraStatsSeriesItemSchema,
        (items, lane, ctx) => items.flatMap((item) => mapStatsSeries(item, lane.metrics, ctx)),
      );
    },

    faults: (query) => {
      const lanes = idLanes(query.vehicleSourceIds);
      if (query.from === undefined) {
        return lanePage(
          query.cursor,
          lanes,
          (vehicleIds) => ({ path: '/fleet/vehicles/stats', query: { types: 'faultCodes', vehicleIds, time: query.to } }),
          samsaraStatsSnapshotItemSchema,
          (items, _l, ctx, skip): FaultSnapshot[] => items.flatMap((item) => mapFaultSnapshots(snapshotToSeries(item), ctx, skip, query.to === undefined ? ctx.fetchedAt : toIsoUtc(Date.parse(query.to)))),
        );
      }
      const endTime = query.to ?? toIsoUtc(client.clock.now());
      return lanePage(
        query.cursor,
        lanes,
        (vehicleIds) => ({ path: '/fleet/vehicles/stats/history', query: { types: 'faultCodes', vehicleIds, startTime: query.from, endTime } }),
        samsaraStatsSeriesItemSchema,
        (items, _l, ctx, skip): FaultSnapshot[] => items.flatMap((item) => mapFaultSnapshots(item, ctx, skip)),
      );
    },
  };
}
