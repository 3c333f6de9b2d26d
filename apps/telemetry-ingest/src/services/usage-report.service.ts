/**
 * The usage reports (spec 2.10 Counter, CounterReport, Utilization, FleetUtilization; 4.4) from the
 * stored observations, never contacting a provider: the formulas are libs/domain/src/usage, their
 * definitions docs/metrics.md; this service reads, applies, and shapes the public answer.
 *
 * Decisions:
 * - which vehicles exist is the telemetry reads' rule: a vehicle the connection approves or has
 *   stored readings of; which are visible is the one rule of every context (decision 0029,
 *   service-kit VehicleVisibilityStore.visible); anything else is `not_found`, indistinguishable
 *   from a hidden one. An approved vehicle without readings
 *   answers every counter `missing`;
 * - the fleet report covers every visible vehicle (approved or with readings) in vehicle id order,
 *   hidden ones never counted; each page reads the observations of its vehicles in one query and
 *   is decided by the read frame's page rule (service-kit frameRendered), sent as JSON text;
 * - a window with an aligned interior (rollupPlan: at least 30 minutes of whole 15-minute slots)
 *   that starts after the rollups began is summed from the rollups — the interior's slots summed in
 *   SQL per vehicle, metric, series and report bucket (summedSlotStarts), the excluded intervals —
 *   plus the raw observations at its two edges (edgeObservations: the edge parts and the nearest
 *   observation before and after each); any other window reads the observations within
 *   maxObservationGapSeconds of it (the raw computation, the oracle the rollups must equal —
 *   usage-rollup.int-spec.ts). Views built for some bucket edges answer only those buckets.
 */
import {
  bucketEdges,
  counterFigureOf,
  counterSeries,
  engineRuntimeFigureOf,
  engineStateSeries,
  isTimeZone,
  MAX_OBSERVATION_GAP_SECONDS,
  rawUsageViews,
  rollupPlan,
  rollupView,
  summedSlotStarts,
  UTILIZATION_DEFINITION,
  utilizationOf,
  vehicleId as mintVehicleId,
  type CounterFigure,
  type SeriesView,
  type UsageObservations,
  type UsageWindow,
  type UtilizationViews,
} from '@switchyard/domain';
import {
  COUNTER_REPORT_DEFINITIONS,
  RpcError,
  type CounterV1,
  type UsageCounterReplyV1,
  type UsageCounterRequestV1,
  type UsageFleetReplyV1,
  type UsageFleetRequestV1,
  type UsageUtilizationReplyV1,
  type UsageUtilizationRequestV1,
  type UtilizationV1,
} from '@switchyard/messaging';
import type { Em, Orm } from '@switchyard/persistence';
import { ConnectionConfigStore, frameRendered, VehicleVisibilityStore } from '@switchyard/service-kit';
import { UsageObservationRepository, emptyUsageObservations } from '../db/repositories/usage-observation.repository.js';
import { withRetentionLimit } from './observation-retention.js';
import { MERGED_SERIES, UsageRollupRepository, type StoredInterval, type StoredSlots } from '../db/repositories/usage-rollup.repository.js';

const notFound = () => new RpcError('not_found', 'no such vehicle on this connection');
const iso = (ms: number) => new Date(ms).toISOString();
const REACH_MS = MAX_OBSERVATION_GAP_SECONDS * 1000;

interface WindowRequest {
  startTime: string;
  endTime: string;
  buckets?: { size: 'hour' | 'day'; timeZone: string } | undefined;
}

/** The window in milliseconds and its bucket edges when intervals are asked (checked again here: the RPC is a contract of its own). */
function windowOf(request: WindowRequest): { window: UsageWindow; edges?: number[] } {
  const window = { startMs: Date.parse(request.startTime), endMs: Date.parse(request.endTime) };
  if (!(window.startMs < window.endMs)) throw new RpcError('reversed_window', 'startTime is not before endTime');
  if (!request.buckets) return { window };
  if (!isTimeZone(request.buckets.timeZone)) throw new RpcError('invalid_time_zone', 'not an IANA time zone');
  return { window, edges: bucketEdges(request.buckets.timeZone, request.buckets.size, window.startMs, window.endMs) };
}

/** A domain figure as the public Counter (intervals only when asked). */
export function counterOf(f: CounterFigure): CounterV1 {
  const common = {
    unit: f.unit,
    coverageSeconds: f.coverageSeconds,
    coveragePercent: f.coveragePercent,
    sampleCount: f.sampleCount,
    excludedIntervals: f.excludedIntervals,
    sources: f.sources,
    ...(f.intervals ? { intervals: f.intervals.map((i) => ({ startTime: iso(i.startMs), endTime: iso(i.endMs), amount: i.amount })) } : {}),
  };
  if (f.value === null || f.status === 'missing' || f.status === 'insufficient_data') return { status: f.status === 'missing' ? 'missing' : 'insufficient_data', value: null, ...common };
  return { status: f.status, value: f.value, ...common };
}

export function utilizationReport(vehicleId: string, views: UtilizationViews, window: UsageWindow, edges?: readonly number[]): UtilizationV1 {
  const u = utilizationOf(views, window, edges);
  return {
    vehicleId,
    window: { startTime: iso(window.startMs), endTime: iso(window.endMs) },
    definition: UTILIZATION_DEFINITION,
    engineRuntime: counterOf(u.engineRuntime),
    engineNotRunning: counterOf(u.engineNotRunning),
    distance: counterOf(u.distance),
    idleTime: counterOf(u.idleTime),
    engineOnPercentOfObservedTime: u.engineOnPercentOfObservedTime,
    limitations: withRetentionLimit(u.limitations, window),
  };
}

const ALL_TIME = { startMs: -8.64e15, endMs: 8.64e15 };
const COUNTERS = [
  ['odometer', 'distance'],
  ['engineHours', 'engineSeconds'],
  ['totalIdleTime', 'idleSeconds'],
] as const;

/** Rows per vehicle id. */
function byVehicle<T extends { vehicleId: string }>(rows: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const list = out.get(r.vehicleId);
    if (list) list.push(r);
    else out.set(r.vehicleId, [r]);
  }
  return out;
}

/**
 * One vehicle's candidate views from its rollups: the interior's slots summed per bucket, the
 * excluded intervals overlapping the window, and the raw observations at its two edges
 * (edgeObservations) — the same candidates and figures as rawUsageViews over all raw observations.
 */
export function rollupUsageViews(slots: readonly StoredSlots[], excluded: readonly StoredInterval[], edgeObservations: UsageObservations, window: UsageWindow, inner: { innerStart: number; innerEnd: number }): UtilizationViews {
  const inReach = (t: number) => t >= window.startMs - REACH_MS && t <= window.endMs + REACH_MS;
  const partsOf = (metric: string, series: string) => ({
    slots: slots.filter((x) => x.metric === metric && x.series === series),
    intervals: excluded.filter((x) => x.metric === metric && x.series === series).map((x) => x.interval),
    ...inner,
  });
  const counterViews = (metric: (typeof COUNTERS)[number][0], kind: (typeof COUNTERS)[number][1]): SeriesView[] => {
    const edges = counterSeries(kind, metric, edgeObservations[metric], ALL_TIME);
    const keys = new Set([...slots.filter((x) => x.metric === metric).map((x) => x.series), ...edgeObservations[metric].filter((o) => inReach(o.observedAtMs)).map((o) => o.source)]);
    return [...keys].sort().map((key) => rollupView(`${metric}/${key}`, { ...partsOf(metric, key), edges: edges.find((e) => e.source === `${metric}/${key}`) }));
  };
  const [odometer, engineHours, idle] = COUNTERS.map(([metric, kind]) => counterViews(metric, kind)) as [SeriesView[], SeriesView[], SeriesView[]];
  if (engineHours.length > 0) return { engine: engineHours, engineFromState: false, odometer, idle };
  const edges = engineStateSeries(edgeObservations.engineState, ALL_TIME)[0];
  const parts = partsOf('engineState', MERGED_SERIES);
  const sources = new Set([...parts.slots.flatMap((x) => x.sources), ...(edges ? edges.sampleSources.filter((_, i) => inReach(edges.sampleTimesMs[i] ?? NaN)) : [])]);
  const engine = sources.size === 0 ? [] : [rollupView([...sources].sort().map((x) => `engineState/${x}`).join(','), { ...parts, edges })];
  return { engine, engineFromState: true, odometer, idle };
}

export class UsageReportService {
  private readonly configs: ConnectionConfigStore;

  constructor(
    orm: Orm,
    private readonly observations = new UsageObservationRepository(),
    private readonly rollups = new UsageRollupRepository(),
    private readonly visibility = new VehicleVisibilityStore(),
  ) {
    this.configs = new ConnectionConfigStore(orm);
  }

  /** The connection's visible vehicles (approved or with stored readings), ascending id. */
  private async visibleVehicles(em: Em, connectionId: string): Promise<string[]> {
    const [config, stored] = await Promise.all([this.configs.get(connectionId), this.observations.storedVehicles(em, connectionId)]);
    if (!config) return [];
    const known = new Map(stored.map((v) => [v.vehicle_id, v.vehicle_source_id]));
    for (const sourceId of config.approvedVehicleIds) {
      const id = mintVehicleId({ connectionId, provider: config.provider, sourceId });
      if (!known.has(id)) known.set(id, sourceId);
    }
    const visible = await this.visibility.visible(em, connectionId, [...known.entries()].map(([vehicleId, sourceId]) => ({ vehicleId, sourceId })));
    return [...visible].sort();
  }

  /**
   * The candidate views of each vehicle over the window: from rollups when the window has an aligned
   * interior and starts (less the maximum gap) after rollups began; from raw observations otherwise.
   * Rollup views answer the whole window and the buckets of `edges` (bucketEdges) only.
   */
  async viewsOf(em: Em, connectionId: string, vehicleIds: readonly string[], window: UsageWindow, edges?: readonly number[]): Promise<Map<string, UtilizationViews>> {
    const plan = rollupPlan(window);
    if (!plan || window.startMs - REACH_MS < (await this.rollups.epoch(em))) {
      const read = await this.observations.observations(em, connectionId, vehicleIds, iso(window.startMs - REACH_MS), iso(window.endMs + REACH_MS));
      return new Map(vehicleIds.map((v) => [v, rawUsageViews(read.get(v) ?? emptyUsageObservations(), window)]));
    }
    const [slots, excluded, edgeObservations] = await Promise.all([
      this.rollups.summedSlots(em, connectionId, vehicleIds, summedSlotStarts(plan, edges), plan.innerEnd),
      this.rollups.excluded(em, connectionId, vehicleIds, window.startMs, window.endMs),
      this.observations.edgeObservations(em, connectionId, vehicleIds, window, plan, REACH_MS),
    ]);
    const [slotsOf, excludedOf] = [byVehicle(slots), byVehicle(excluded)];
    return new Map(vehicleIds.map((v) => [v, rollupUsageViews(slotsOf.get(v) ?? [], excludedOf.get(v) ?? [], edgeObservations.get(v) ?? emptyUsageObservations(), window, plan)]));
  }

  private async visibleViews(em: Em, connectionId: string, vehicleId: string, window: UsageWindow, edges?: readonly number[]): Promise<UtilizationViews> {
    const visible = await this.visibleVehicles(em, connectionId);
    if (!visible.includes(vehicleId)) throw notFound();
    const views = (await this.viewsOf(em, connectionId, [vehicleId], window, edges)).get(vehicleId);
    if (!views) throw new Error('no views for the requested vehicle');
    return views;
  }

  async counter(em: Em, request: UsageCounterRequestV1): Promise<UsageCounterReplyV1> {
    const { window, edges } = windowOf(request);
    const v = await this.visibleViews(em, request.connectionId, request.vehicleId, window, edges);
    const figure =
      request.report === 'distance' ? counterFigureOf('meters', v.odometer, window, edges) : request.report === 'engineHours' ? engineRuntimeFigureOf(v, window, edges) : counterFigureOf('seconds', v.idle, window, edges);
    return {
      report: {
        vehicleId: request.vehicleId,
        window: { startTime: iso(window.startMs), endTime: iso(window.endMs) },
        metric: counterOf(figure),
        definition: COUNTER_REPORT_DEFINITIONS[request.report],
        limitations: withRetentionLimit(figure.limitations, window),
      },
    };
  }

  async utilization(em: Em, request: UsageUtilizationRequestV1): Promise<UsageUtilizationReplyV1> {
    const { window, edges } = windowOf(request);
    const views = await this.visibleViews(em, request.connectionId, request.vehicleId, window, edges);
    return { utilization: utilizationReport(request.vehicleId, views, window, edges) };
  }

  async fleet(em: Em, request: UsageFleetRequestV1): Promise<UsageFleetReplyV1> {
    const { window, edges } = windowOf(request);
    const visible = await this.visibleVehicles(em, request.connectionId);
    const after = request.after;
    const rows = (after === undefined ? visible : visible.filter((v) => v > after)).slice(0, request.limit + 1);
    const views = await this.viewsOf(em, request.connectionId, rows.slice(0, request.limit), window, edges);
    // The read frame's page rule (service-kit frameRendered): the page ends early at maxBytes (at
    // least one vehicle) — hourly intervals over a long window make a vehicle's report large, and
    // the reply must fit one NATS message (found by system-tests/test/contract-fuzz.int-spec.ts: a
    // 503 after the RPC timeout otherwise); a report is rendered only when the page may take it.
    const page = frameRendered(rows, request, {
      render: (v) => JSON.stringify(utilizationReport(v, views.get(v) ?? rawUsageViews(emptyUsageObservations(), window), window, edges)),
      position: (v) => v,
    });
    return { meta: { hasMore: page.hasMore, ...(page.hasMore && page.last !== undefined ? { next: page.last } : {}) }, body: page.items };
  }
}
