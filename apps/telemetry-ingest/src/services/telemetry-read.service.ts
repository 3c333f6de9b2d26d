/**
 * The stored telemetry reads (spec 2.10, 4.2 locations, 4.4 telemetry and history), never contacting
 * a provider (global rule 4):
 * - `latest`: the Telemetry of one vehicle from latest_readings — the one "latest telemetry of one
 *   vehicle" use case; the refresh route reuses it (RPCS.telemetry.latest) for its stored part;
 * - `locations`: one page of the latest location of every visible vehicle that has stored telemetry;
 * - `history`: one page of one metric's observations in a window, inside the walk's snapshot.
 *
 * Decisions:
 * - a vehicle is known to this context when the connection approves it (its `vcl_` id is minted from
 *   connection, provider and provider id, as the directory mints it) or a reading of it is stored: an
 *   approved vehicle without readings answers every metric `missing` and an empty history; any other
 *   id (or one of another connection) is `not_found`, as a hidden vehicle — indistinguishable. The
 *   locations list holds the vehicles with stored readings;
 * - visibility (hidden → `not_found`, absent from locations) is the one rule of every context
 *   (decision 0029; service-kit VehicleVisibilityStore.visible and its SQL in locationsPage): hidden
 *   until the directory's set has arrived, hidden when the set lists it, hidden when the held
 *   configuration's include/exclude lists leave its provider id out. The Telemetry body needs the
 *   configuration (which metrics it covers): without one the vehicle is `not_found` too;
 * - each metric's status: `available` with its newest stored reading, `stale` when that reading's
 *   observedAt is older than the field's freshnessSeconds (catalog, libs/contracts limits.ts),
 *   `missing` with `reading: null` when none is stored or the stored value is outside the public
 *   value shape — never a zero;
 * - `location` and `odometer` are always present; an optional metric is present when the
 *   connection covers it (`covers`): the extendedTelemetry opt-in is on, the metric is selected when
 *   it is a selectable signal (`engineHours`), and the provider's capability is not `unsupported`;
 * - `units` is reported only when the provider's unit differed from the normalized one;
 * - `faultsObservedAt` comes from this context's fault-observation projection (fault-feed's
 *   `events.faults.observed`, faults-observed.handler.ts) — never from the faults schema.
 */
import { TELEMETRY_FRESHNESS_S } from '@switchyard/contracts';
import { CORE_TELEMETRY_METRICS, coversMetric, TELEMETRY_METRICS, sourceIdOfVehicle, toWireDateTime, type TelemetryMetric } from '@switchyard/domain';
import {
  METRIC_VALUES,
  RpcError,
  unitConversionV1,
  type ConnectionConfigV1,
  type HistoryReplyV1,
  type HistoryRequestV1,
  type LatestTelemetryReplyV1,
  type LatestTelemetryRequestV1,
  type ListLocationsReplyV1,
  type ListLocationsRequestV1,
  type ObservationV1,
  type TelemetryV1,
} from '@switchyard/messaging';
import type { Em, Orm } from '@switchyard/persistence';
import { capabilitiesFor } from '@switchyard/providers';
import { ConnectionConfigStore, VehicleVisibilityStore } from '@switchyard/service-kit';
import { TelemetryReadRepository, type ReadingRow } from '../db/repositories/telemetry-read.repository.js';

type Reading = Pick<ReadingRow, 'observed_at' | 'fetched_at' | 'source' | 'value' | 'units'>;
type MetricStatus = TelemetryV1['location'];

const notFound = () => new RpcError('not_found', 'no such vehicle on this connection');

const OPTIONAL_METRICS = TELEMETRY_METRICS.filter((m) => !(CORE_TELEMETRY_METRICS as readonly string[]).includes(m));

/** Whether the connection's selected signals, opt-in and provider cover an optional metric (libs/domain telemetry-coverage.ts: the collectors' rule). */
export function covers(config: Pick<ConnectionConfigV1, 'provider' | 'selectedSignals' | 'optIns'>, metric: TelemetryMetric): boolean {
  return coversMetric({ signals: config.selectedSignals, extendedTelemetry: config.optIns.extendedTelemetry, support: capabilitiesFor(config.provider).fields }, metric);
}

/** The public value and units of a stored reading, or undefined when the value is not a valid public one. */
function publicReading(metric: TelemetryMetric, row: Reading): { value: unknown; units?: ReturnType<typeof unitConversionV1.parse> } | undefined {
  const value = METRIC_VALUES[metric].safeParse(row.value);
  if (!value.success) return undefined;
  const units = unitConversionV1.safeParse(row.units);
  return { value: value.data, ...(units.success ? { units: units.data } : {}) };
}

/** The status object of one metric at `now` (see the header). */
export function metricStatus(metric: TelemetryMetric, row: Reading | undefined, now: number): MetricStatus {
  const parsed = row && publicReading(metric, row);
  if (!row || !parsed) return { status: 'missing', reading: null };
  const stale = now - Date.parse(row.observed_at) > TELEMETRY_FRESHNESS_S[metric] * 1000;
  // The value shape was checked against METRIC_VALUES[metric]; the union member is the metric's own.
  const reading = { value: parsed.value, source: row.source, observedAt: row.observed_at, fetchedAt: row.fetched_at, ...(parsed.units ? { units: parsed.units } : {}) } as NonNullable<MetricStatus['reading']>;
  return { status: stale ? 'stale' : 'available', reading };
}

/** The provider id among the connection's approved vehicles whose `vcl_` id is `vehicleId` (ids are minted from connection, provider and provider id). */
function approvedSourceId(config: ConnectionConfigV1, id: string): string | undefined {
  return sourceIdOfVehicle(config, config.approvedVehicleIds, id);
}

/**
 * Puts a refresh's just-fetched readings of the vehicle over the stored ones where they are newer
 * (the forward-only rule of latest_readings; a tie keeps the greater source, as it does) and says
 * which metrics the refresh brought. Readings of another vehicle are ignored.
 */
function overlay(byMetric: Map<string, Reading>, observations: readonly ObservationV1[], sourceId: string | undefined): Set<TelemetryMetric> {
  const fresh = new Set<TelemetryMetric>();
  for (const o of observations) {
    if (o.vehicleSourceId !== sourceId) continue;
    fresh.add(o.metric);
    const held = byMetric.get(o.metric);
    const [t, h] = [Date.parse(o.observedAt), held ? Date.parse(held.observed_at) : -Infinity];
    if (held && (t < h || (t === h && o.source <= held.source))) continue;
    // A provider's time in the wire form (decision 0017), as stored readings come back from SQL.
    byMetric.set(o.metric, { observed_at: toWireDateTime(o.observedAt), fetched_at: toWireDateTime(o.fetchedAt), source: o.source, value: o.value, units: o.units ?? null });
  }
  return fresh;
}

/** A stored reading served because the refresh's provider call for its metric failed is marked `fallback: true`. */
function withFallback(status: MetricStatus, fallback: boolean): MetricStatus {
  return fallback && status.reading !== null ? { ...status, fallback: true } : status;
}

export class TelemetryReadService {
  private readonly configs: ConnectionConfigStore;

  constructor(
    orm: Orm,
    private readonly repository = new TelemetryReadRepository(),
    private readonly visibility = new VehicleVisibilityStore(),
    private readonly now: () => number = Date.now,
  ) {
    this.configs = new ConnectionConfigStore(orm);
  }

  /** The vehicle's latest rows once it is known and visible; `not_found` otherwise. */
  private async visibleRows(em: Em, connectionId: string, vehicleId: string): Promise<{ config: ConnectionConfigV1; rows: ReadingRow[] }> {
    const [config, rows] = await Promise.all([this.configs.get(connectionId), this.repository.latest(em, connectionId, vehicleId)]);
    if (!config) throw notFound();
    const sourceId = rows[0]?.vehicle_source_id ?? approvedSourceId(config, vehicleId);
    if (sourceId === undefined || !(await this.visibility.visible(em, connectionId, [{ vehicleId, sourceId }])).has(vehicleId)) throw notFound();
    return { config, rows };
  }

  async latest(em: Em, request: LatestTelemetryRequestV1): Promise<LatestTelemetryReplyV1> {
    const { connectionId, vehicleId } = request;
    const [{ config, rows }, faultsObservedAt] = await Promise.all([this.visibleRows(em, connectionId, vehicleId), this.repository.faultsObservedAt(em, connectionId, vehicleId)]);
    const byMetric = new Map<string, Reading>(rows.map((r) => [r.metric, r]));
    const fresh = request.refresh ? overlay(byMetric, request.refresh.observations, rows[0]?.vehicle_source_id ?? approvedSourceId(config, vehicleId)) : new Set<TelemetryMetric>();
    const failed = new Set(request.refresh?.failedMetrics ?? []);
    const now = this.now();
    const status = (m: TelemetryMetric): MetricStatus => withFallback(metricStatus(m, byMetric.get(m), now), failed.has(m) && !fresh.has(m));
    const optional = Object.fromEntries(OPTIONAL_METRICS.filter((m) => covers(config, m)).map((m) => [m, status(m)]));
    const telemetry = { vehicleId, location: status('location'), odometer: status('odometer'), ...optional, faultsObservedAt, ...(request.refresh ? { refreshStatus: request.refresh.outcome } : {}) } as TelemetryV1;
    // Sent as the JSON text of the public body (a framed reply): the gateway forwards it unparsed.
    return { meta: {}, body: JSON.stringify(telemetry) };
  }

  async locations(em: Em, request: ListLocationsRequestV1): Promise<ListLocationsReplyV1> {
    const { connectionId, limit, maxBytes } = request;
    const horizon = request.horizon ?? (await this.repository.horizon(em));
    const now = new Date(this.now()).toISOString();
    const page = await this.repository.locationsPage(em, { connectionId, after: request.after, now, freshnessSeconds: TELEMETRY_FRESHNESS_S.location }, { limit, maxBytes });
    return { meta: { horizon, hasMore: page.hasMore, ...(page.hasMore && page.last ? { next: page.last } : {}) }, body: page.items };
  }

  async history(em: Em, request: HistoryRequestV1): Promise<HistoryReplyV1> {
    const { connectionId, vehicleId, metric, limit, maxBytes } = request;
    if (Date.parse(request.startTime) >= Date.parse(request.endTime)) throw new RpcError('reversed_window', 'startTime is not before endTime');
    await this.visibleRows(em, connectionId, vehicleId);
    const horizon = request.horizon ?? (await this.repository.horizon(em));
    const page = await this.repository.historyPage(em, { connectionId, vehicleId, metric, start: request.startTime, end: request.endTime, horizon, after: request.after }, { limit, maxBytes });
    return { meta: { horizon, hasMore: page.hasMore, ...(page.last ? { last: page.last } : {}) }, body: page.items };
  }
}
