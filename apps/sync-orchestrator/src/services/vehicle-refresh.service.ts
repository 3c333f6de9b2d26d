/**
 * The on-demand refresh of one vehicle (spec 4.4), the whole route in one request from the gateway
 * (`sync.collection.refresh`, message contract schemas/vehicle-refresh.v1.ts; issue 24 item 9,
 * decision 0019): ask telemetry-ingest's stored read first (its 404 rule), find the vehicle among
 * the connection's approved ones, claim its refresh slot (once per asset per
 * REFRESH_MIN_INTERVAL_S, shared by every process through PostgreSQL), ask the provider for its
 * latest readings through the same adapter, sealed credentials (decision 0024) and request budget
 * the collectors use, publish them as an ordinary observations batch (the ingest path stores them
 * idempotently, so the next read and the history see them), and answer with telemetry-ingest's
 * read with those readings laid over the stored ones — the route's 200 body.
 *
 * Decisions:
 * - the stored read comes first: an unknown or hidden vehicle (telemetry-ingest's visibility
 *   projection, decision 0029 — this context holds none) is `not_found` before any slot is claimed;
 * - the vehicle is matched by its `vcl_` id among the connection's approved source ids (the id is
 *   a pure function of connection, provider and source id; no other context's schema is read). Not
 *   approved, no configuration, or a disconnected connection: `not_found`;
 * - the slot is claimed before the provider is asked, whatever the outcome (a failing provider
 *   is not hammered once per request);
 * - a paused connection is not collected: `failed` with `collection_paused`, the provider is not
 *   contacted;
 * - the metrics asked are the collectors' (selected signals, the extended opt-in, the provider's
 *   support). Core metrics (odometer, location) and extended ones are asked in two calls, so a
 *   failure of an optional field never fails, nor degrades, odometer and location (spec 4.4);
 * - `fetched` means an odometer came back for the vehicle, whatever its age (`observedAt` tells
 *   freshness); the provider cannot be forced to produce a new sample.
 */
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { REFRESH_MIN_INTERVAL_S } from '@switchyard/contracts';
import { CORE_TELEMETRY_METRICS, sourceIdOfVehicle, type TelemetryMetric } from '@switchyard/domain';
import { ingestBatchId, RPCS, RpcError, splitIngestRecords, type ConnectionConfigV1, type LatestTelemetryRequestV1, type MessageBus, type ObservationV1, type RefreshVehicleRequestV1, type RpcReplyOf, type TelemetryBatchV1 } from '@switchyard/messaging';
import { capabilitiesFor, type ProviderAdapter } from '@switchyard/providers';
import { ConnectionConfigStore, RUNTIME, type Logger, type ServiceRuntime } from '@switchyard/service-kit';
import { publishIngestBatch } from '../collectors/collector.service.js';
import { failureCode } from '../collectors/failure-codes.js';
import { RefreshSlotRepository, type SlotClaim } from '../db/repositories/refresh-slot.repository.js';
import { telemetryMetricsFor } from '../domain/collection-scope.js';
import { ProviderAdapterFactory } from '../providers/adapter-factory.js';

/** A provider that keeps paging one vehicle's latest readings is cut off here (one vehicle: one page in practice). */
export const REFRESH_MAX_PAGES = 5;

const isCore = (metric: TelemetryMetric) => (CORE_TELEMETRY_METRICS as readonly TelemetryMetric[]).includes(metric);

/** What the provider fetch of a refresh came to (the slot refused, or the readings and which calls failed). */
export type VehicleFetch =
  | { outcome: 'rate_limited'; retryAfterSeconds: number }
  | {
      outcome: 'fetched' | 'no_new_odometer' | 'failed';
      /** The provider error code when `failed`, else null. */
      failureReason: string | null;
      /** The extended metrics' read failed (code); the core outcome is unaffected. Null when it did not fail or was not asked. */
      optionalFailure: string | null;
      /** When the provider was asked (null when it was not: failed before the call). */
      fetchedAt: string | null;
      /** The vehicle's readings that came back (already published for storage). */
      observations: ObservationV1[];
      /** Metrics asked of the provider in a call that failed (their stored readings are served as fallbacks). */
      failedMetrics: TelemetryMetric[];
    };

/** What one refresh needs from the outside (the service wires PostgreSQL, the adapter factory and the bus; the spec fakes them). */
export interface RefreshPorts {
  config(connectionId: string): Promise<ConnectionConfigV1 | undefined>;
  claim(connectionId: string, vehicleSourceId: string, intervalSeconds: number): Promise<SlotClaim>;
  adapter(connectionId: string): Promise<ProviderAdapter>;
  publish(batch: TelemetryBatchV1): Promise<void>;
  logger: Logger;
  now(): Date;
}

/** One vehicle's refresh (see the header). */
export async function refreshVehicle(ports: RefreshPorts, { connectionId, vehicleId: id }: RefreshVehicleRequestV1): Promise<VehicleFetch> {
  const config = await ports.config(connectionId);
  if (!config || config.status === 'disconnected') throw new RpcError('not_found');
  const sourceId = sourceIdOfVehicle(config, config.approvedVehicleIds, id);
  if (sourceId === undefined) throw new RpcError('not_found');

  const slot = await ports.claim(connectionId, sourceId, REFRESH_MIN_INTERVAL_S);
  if (!slot.granted) return { outcome: 'rate_limited', retryAfterSeconds: slot.retryAfterSeconds };
  const metrics = telemetryMetricsFor({ signals: config.selectedSignals, extendedTelemetry: config.optIns.extendedTelemetry, support: capabilitiesFor(config.provider).fields });
  if (config.status === 'paused') return failed('collection_paused', null, metrics);

  let adapter: ProviderAdapter;
  try {
    adapter = await ports.adapter(connectionId);
  } catch (error) {
    return failed(failureCode(error), null, metrics);
  }
  const core = metrics.filter(isCore);
  const extended = metrics.filter((m) => !isCore(m));
  const fetchedAt = ports.now().toISOString();
  const log = ports.logger.child({ connectionId, vehicleId: id });

  let observations: ObservationV1[] = [];
  let coreFailure: string | null = null;
  let optionalFailure: string | null = null;
  try {
    observations = await latestOf(adapter, core, sourceId, log);
  } catch (error) {
    coreFailure = failureCode(error);
    log.warn({ err: error, code: coreFailure }, 'refresh: the provider read of odometer/location failed');
  }
  try {
    observations = [...observations, ...(await latestOf(adapter, extended, sourceId, log))];
  } catch (error) {
    optionalFailure = failureCode(error);
    log.warn({ err: error, code: optionalFailure }, 'refresh: the provider read of the optional metrics failed; odometer and location are unaffected');
  }

  for (const batch of refreshBatches(connectionId, config.provider, sourceId, fetchedAt, observations)) await ports.publish(batch);
  log.info({ observations: observations.length, coreFailure, optionalFailure }, 'vehicle refreshed');
  const failedMetrics = [...(coreFailure === null ? [] : core), ...(optionalFailure === null ? [] : extended)];
  if (coreFailure !== null) return { outcome: 'failed', failureReason: coreFailure, optionalFailure, fetchedAt, observations, failedMetrics };
  const outcome = observations.some((o) => o.metric === 'odometer') ? 'fetched' : 'no_new_odometer';
  return { outcome, failureReason: null, optionalFailure, fetchedAt, observations, failedMetrics };
}

/** The vehicle's latest readings of `metrics` (nothing asked when there are none); readings of another vehicle are dropped. */
async function latestOf(adapter: ProviderAdapter, metrics: readonly TelemetryMetric[], sourceId: string, log: Logger): Promise<ObservationV1[]> {
  if (metrics.length === 0) return [];
  const found: ObservationV1[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < REFRESH_MAX_PAGES; page += 1) {
    const result = await adapter.latestTelemetry({ metrics, vehicleSourceIds: [sourceId], cursor });
    for (const skipped of result.skipped ?? []) log.info({ sourceId: skipped.sourceId, reason: skipped.reason }, 'provider record skipped');
    found.push(...result.items.filter((o) => o.vehicleSourceId === sourceId));
    if (result.next === null) return found;
    cursor = result.next;
  }
  log.warn({ pages: REFRESH_MAX_PAGES }, 'refresh: the provider kept paging one vehicle; the rest is left to collection');
  return found;
}

/** The readings as observations batches for ingest.telemetry (no sync: no receipt); ids are stable per vehicle and fetch time. */
function refreshBatches(connectionId: string, provider: TelemetryBatchV1['provider'], sourceId: string, fetchedAt: string, observations: readonly ObservationV1[]): TelemetryBatchV1[] {
  if (observations.length === 0) return [];
  const parts = splitIngestRecords('observations', observations);
  return parts.map((records, part) => ({
    batchId: ingestBatchId({ connectionId, kind: 'observations', unitId: null, fencingToken: null, pageKey: `refresh:${sourceId}:${fetchedAt}`, part }),
    connectionId,
    provider,
    syncId: null,
    unitId: null,
    fencingToken: null,
    kind: 'observations',
    records,
    fetchedAt,
    providerCursor: null,
    final: part === parts.length - 1,
  }));
}

type Refresh = typeof RPCS.collection.refresh;

/** Serves `sync.collection.refresh`: the refresh route's one request from the gateway (see the header). */
@Controller()
export class VehicleRefreshService {
  private readonly ports: RefreshPorts;
  private readonly bus: MessageBus;
  /** Refreshes refused by the 30 s slot (switchyard_rate_limited_requests_total{limit="refresh"}). */
  private readonly limited: { inc(): void };

  constructor(@Inject(RUNTIME) runtime: ServiceRuntime, adapters: ProviderAdapterFactory) {
    this.limited = runtime.metrics.child('rateLimited', 'refresh');
    const configs = new ConnectionConfigStore(runtime.orm);
    const slots = new RefreshSlotRepository(runtime.orm);
    this.bus = runtime.bus;
    this.ports = {
      config: (connectionId) => configs.get(connectionId),
      claim: (connectionId, sourceId, seconds) => slots.claim(connectionId, sourceId, seconds),
      adapter: async (connectionId) => (await adapters.adapterFor({ connectionId })).adapter,
      publish: (batch) => publishIngestBatch(runtime.bus, batch),
      logger: runtime.logger,
      now: () => new Date(),
    };
  }

  @MessagePattern(RPCS.collection.refresh.subject)
  async refresh(@Payload() request: RefreshVehicleRequestV1): Promise<RpcReplyOf<Refresh>> {
    const read = (refresh?: LatestTelemetryRequestV1['refresh']) => this.bus.request(RPCS.telemetry.latest, { ...request, ...(refresh ? { refresh } : {}) });
    // telemetry-ingest's 404 rule (approved or stored, and visible) before any slot is claimed; its not_found travels to the gateway as it is.
    await read();
    const fetch = await refreshVehicle(this.ports, request);
    if (fetch.outcome === 'rate_limited') {
      this.limited.inc();
      return { meta: fetch, body: '' };
    }
    // telemetry-ingest's body (refreshStatus set) travels on to the gateway as the bytes it produced.
    const { body } = await read({ observations: fetch.observations, failedMetrics: fetch.failedMetrics, outcome: fetch.outcome });
    return { meta: { outcome: 'answered' }, body };
  }
}

/** A refresh that asked the provider nothing: every metric the connection collects is served from storage. */
function failed(reason: string, fetchedAt: string | null, metrics: readonly TelemetryMetric[]): VehicleFetch {
  return { outcome: 'failed', failureReason: reason, optionalFailure: null, fetchedAt, observations: [], failedMetrics: [...metrics] };
}
