/**
 * The on-demand refresh of one vehicle (spec 4.4; message contract schemas/vehicle-refresh.v1.ts):
 * find the vehicle among the connection's approved ones, claim its refresh slot (once per asset
 * per REFRESH_MIN_INTERVAL_S, shared by every process through PostgreSQL), ask the provider for
 * its latest readings through the same adapter and request budget the collectors use, publish
 * them as an ordinary observations batch (the ingest path stores them idempotently, so the next
 * read and the history see them) and answer with them.
 *
 * Decisions:
 * - the vehicle is matched by its `vcl_` id among the connection's approved source ids (the id is
 *   a pure function of connection, provider and source id; no other context's schema is read). Not
 *   approved, no configuration, or a disconnected connection: `not_found`;
 * - the slot is claimed before anything else is asked, whatever the outcome (a failing provider
 *   is not hammered once per request);
 * - a paused connection is not collected: `failed` with `collection_paused`, the provider is not
 *   contacted;
 * - the metrics asked are the collectors' (selected signals, the extended opt-in, the provider's
 *   support). Core metrics (odometer, location) and extended ones are asked in two calls, so a
 *   failure of an optional field never fails, nor degrades, odometer and location (spec 4.4);
 * - `fetched` means an odometer came back for the vehicle, whatever its age (`observedAt` tells
 *   freshness); the provider cannot be forced to produce a new sample.
 */
import { Inject, Injectable } from '@nestjs/common';
import { REFRESH_MIN_INTERVAL_S } from '@switchyard/contracts';
import { CORE_TELEMETRY_METRICS, sourceIdOfVehicle, type TelemetryMetric } from '@switchyard/domain';
import { ingestBatchId, RpcError, splitIngestRecords, type ConnectionConfigV1, type ObservationV1, type RefreshVehicleReplyV1, type RefreshVehicleRequestV1, type TelemetryBatchV1 } from '@switchyard/messaging';
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
export async function refreshVehicle(ports: RefreshPorts, { connectionId, vehicleId: id }: RefreshVehicleRequestV1): Promise<RefreshVehicleReplyV1> {
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

@Injectable()
export class VehicleRefreshService {
  private readonly ports: RefreshPorts;

  constructor(@Inject(RUNTIME) runtime: ServiceRuntime, adapters: ProviderAdapterFactory) {
    const configs = new ConnectionConfigStore(runtime.orm);
    const slots = new RefreshSlotRepository(runtime.orm);
    this.ports = {
      config: (connectionId) => configs.get(connectionId),
      claim: (connectionId, sourceId, seconds) => slots.claim(connectionId, sourceId, seconds),
      adapter: async (connectionId) => (await adapters.adapterFor({ connectionId })).adapter,
      publish: (batch) => publishIngestBatch(runtime.bus, batch),
      logger: runtime.logger,
      now: () => new Date(),
    };
  }

  refresh(request: RefreshVehicleRequestV1): Promise<RefreshVehicleReplyV1> {
    return refreshVehicle(this.ports, request);
  }
}

/** A refresh that asked the provider nothing: every metric the connection collects is served from storage. */
function failed(reason: string, fetchedAt: string | null, metrics: readonly TelemetryMetric[]): RefreshVehicleReplyV1 {
  return { outcome: 'failed', failureReason: reason, optionalFailure: null, fetchedAt, observations: [], failedMetrics: [...metrics] };
}
