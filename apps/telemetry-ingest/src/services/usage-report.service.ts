/**
 * The usage reports (spec 2.10 Counter, CounterReport, Utilization, FleetUtilization; 4.4) from the
 * stored observations, never contacting a provider: the formulas are libs/domain/src/usage, their
 * definitions docs/metrics.md; this service reads, applies, and shapes the public answer.
 *
 * Decisions:
 * - which vehicles exist and are visible is the telemetry reads' rule (telemetry-read.service.ts,
 *   `isVisible`): a vehicle the connection approves or has stored readings of, not hidden by the
 *   configuration's lists nor the directory's hidden set (projection `vehicle_visibility`); anything
 *   else is `not_found`, indistinguishable from a hidden one. An approved vehicle without readings
 *   answers every counter `missing`;
 * - the fleet report covers every visible vehicle (approved or with readings) in vehicle id order,
 *   hidden ones never counted; each page reads the observations of its vehicles in one query;
 * - a report reads the observations with observed_at within maxObservationGapSeconds of the
 *   window (nothing further can change a figure), straight from `observations` (the raw
 *   computation, the oracle any rollup must equal).
 */
import {
  bucketEdges,
  distanceFigure,
  engineRuntimeFigure,
  idleFigure,
  isTimeZone,
  MAX_OBSERVATION_GAP_SECONDS,
  UTILIZATION_DEFINITION,
  utilizationFigures,
  vehicleId as mintVehicleId,
  type CounterFigure,
  type UsageObservations,
  type UsageWindow,
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
import { ConnectionConfigStore } from '@switchyard/service-kit';
import { UsageObservationRepository, emptyUsageObservations } from '../db/repositories/usage-observation.repository.js';
import { isVisible } from './telemetry-read.service.js';

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

export function utilizationOf(vehicleId: string, o: UsageObservations, window: UsageWindow, edges?: readonly number[]): UtilizationV1 {
  const u = utilizationFigures(o, window, edges);
  return {
    vehicleId,
    window: { startTime: iso(window.startMs), endTime: iso(window.endMs) },
    definition: UTILIZATION_DEFINITION,
    engineRuntime: counterOf(u.engineRuntime),
    engineNotRunning: counterOf(u.engineNotRunning),
    distance: counterOf(u.distance),
    idleTime: counterOf(u.idleTime),
    engineOnPercentOfObservedTime: u.engineOnPercentOfObservedTime,
    limitations: u.limitations,
  };
}

export class UsageReportService {
  private readonly configs: ConnectionConfigStore;

  constructor(
    orm: Orm,
    private readonly observations = new UsageObservationRepository(),
  ) {
    this.configs = new ConnectionConfigStore(orm);
  }

  /** The connection's visible vehicles (approved or with stored readings), ascending id. */
  private async visibleVehicles(em: Em, connectionId: string): Promise<string[]> {
    const [config, set, stored] = await Promise.all([this.configs.get(connectionId), this.observations.hiddenSet(em, connectionId), this.observations.storedVehicles(em, connectionId)]);
    if (!config) return [];
    const known = new Map(stored.map((v) => [v.vehicle_id, v.vehicle_source_id]));
    for (const sourceId of config.approvedVehicleIds) {
      const id = mintVehicleId({ connectionId, provider: config.provider, sourceId });
      if (!known.has(id)) known.set(id, sourceId);
    }
    return [...known.entries()]
      .filter(([vehicleId, sourceId]) => isVisible({ vehicleId, sourceId }, config, set))
      .map(([vehicleId]) => vehicleId)
      .sort();
  }

  private async visibleObservations(em: Em, connectionId: string, vehicleId: string, window: UsageWindow): Promise<UsageObservations> {
    const visible = await this.visibleVehicles(em, connectionId);
    if (!visible.includes(vehicleId)) throw notFound();
    const read = await this.observations.observations(em, connectionId, [vehicleId], iso(window.startMs - REACH_MS), iso(window.endMs + REACH_MS));
    return read.get(vehicleId) ?? emptyUsageObservations();
  }

  async counter(em: Em, request: UsageCounterRequestV1): Promise<UsageCounterReplyV1> {
    const { window, edges } = windowOf(request);
    const o = await this.visibleObservations(em, request.connectionId, request.vehicleId, window);
    const figure = request.report === 'distance' ? distanceFigure(o, window, edges) : request.report === 'engineHours' ? engineRuntimeFigure(o, window, edges) : idleFigure(o, window, edges);
    return {
      report: {
        vehicleId: request.vehicleId,
        window: { startTime: iso(window.startMs), endTime: iso(window.endMs) },
        metric: counterOf(figure),
        definition: COUNTER_REPORT_DEFINITIONS[request.report],
        limitations: figure.limitations,
      },
    };
  }

  async utilization(em: Em, request: UsageUtilizationRequestV1): Promise<UsageUtilizationReplyV1> {
    const { window, edges } = windowOf(request);
    const o = await this.visibleObservations(em, request.connectionId, request.vehicleId, window);
    return { utilization: utilizationOf(request.vehicleId, o, window, edges) };
  }

  async fleet(em: Em, request: UsageFleetRequestV1): Promise<UsageFleetReplyV1> {
    const { window, edges } = windowOf(request);
    const visible = await this.visibleVehicles(em, request.connectionId);
    const after = request.after;
    const rest = after === undefined ? visible : visible.filter((v) => v > after);
    const page = rest.slice(0, request.limit);
    const read = await this.observations.observations(em, request.connectionId, page, iso(window.startMs - REACH_MS), iso(window.endMs + REACH_MS));
    const vehicles = page.map((v) => utilizationOf(v, read.get(v) ?? emptyUsageObservations(), window, edges));
    const last = page.at(-1);
    return { vehicles, ...(rest.length > page.length && last !== undefined ? { next: last } : {}) };
  }
}
