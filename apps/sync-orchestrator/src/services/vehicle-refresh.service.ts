/**
 * The on-demand refresh of one vehicle (spec 4.4; message contract schemas/vehicle-refresh.v1.ts):
 * find the vehicle among the connection's approved ones, claim its refresh slot (once per asset
 * per REFRESH_INTERVAL_SECONDS, shared by every process through PostgreSQL), ask the provider for
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
import { CORE_TELEMETRY_METRICS, vehicleId, type TelemetryMetric } from '@switchyard/domain';
import { ingestBatchId, REFRESH_INTERVAL_SECONDS, RpcError, splitIngestRecords, type ObservationV1, type RefreshVehicleReplyV1, type RefreshVehicleRequestV1, type TelemetryBatchV1 } from '@switchyard/messaging';
import type { ProviderAdapter } from '@switchyard/providers';
import { ConnectionConfigStore, RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { failureCode, publishIngestBatch } from '../collectors/collector.service.js';
import { RefreshSlotRepository } from '../db/repositories/refresh-slot.repository.js';
import { telemetryMetricsFor } from '../domain/collection-scope.js';
import { ProviderAdapterFactory } from '../providers/adapter-factory.js';

/** A provider that keeps paging one vehicle's latest readings is cut off here (one vehicle: one page in practice). */
export const REFRESH_MAX_PAGES = 5;

const isCore = (metric: TelemetryMetric) => (CORE_TELEMETRY_METRICS as readonly TelemetryMetric[]).includes(metric);

@Injectable()
export class VehicleRefreshService {
  private readonly configs: ConnectionConfigStore;
  private readonly slots: RefreshSlotRepository;

  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly adapters: ProviderAdapterFactory,
  ) {
    this.configs = new ConnectionConfigStore(runtime.orm);
    this.slots = new RefreshSlotRepository(runtime.orm);
  }

  async refresh({ connectionId, vehicleId: id }: RefreshVehicleRequestV1): Promise<RefreshVehicleReplyV1> {
    const config = await this.configs.get(connectionId);
    if (!config || config.status === 'disconnected') throw new RpcError('not_found');
    const sourceId = config.approvedVehicleIds.find((s) => vehicleId({ connectionId, provider: config.provider, sourceId: s }) === id);
    if (sourceId === undefined) throw new RpcError('not_found');

    const slot = await this.slots.claim(connectionId, sourceId, REFRESH_INTERVAL_SECONDS);
    if (!slot.granted) return { outcome: 'rate_limited', retryAfterSeconds: slot.retryAfterSeconds };
    if (config.status === 'paused') return failed('collection_paused', null);

    let adapter: ProviderAdapter;
    try {
      adapter = (await this.adapters.adapterFor({ connectionId })).adapter;
    } catch (error) {
      return failed(failureCode(error), null);
    }
    const metrics = telemetryMetricsFor({ signals: config.selectedSignals, extendedTelemetry: config.optIns.extendedTelemetry, support: adapter.capabilities.fields });
    const core = metrics.filter(isCore);
    const extended = metrics.filter((m) => !isCore(m));
    const fetchedAt = new Date().toISOString();
    const log = this.runtime.logger.child({ connectionId, vehicleId: id });

    let observations: ObservationV1[] = [];
    let coreFailure: string | null = null;
    let optionalFailure: string | null = null;
    try {
      observations = await this.latest(adapter, core, sourceId);
    } catch (error) {
      coreFailure = failureCode(error);
      log.warn({ err: error, code: coreFailure }, 'refresh: the provider read of odometer/location failed');
    }
    try {
      observations = [...observations, ...(await this.latest(adapter, extended, sourceId))];
    } catch (error) {
      optionalFailure = failureCode(error);
      log.warn({ err: error, code: optionalFailure }, 'refresh: the provider read of the optional metrics failed; odometer and location are unaffected');
    }

    if (observations.length > 0) await this.publish(connectionId, config.provider, sourceId, fetchedAt, observations);
    log.info({ observations: observations.length, coreFailure, optionalFailure }, 'vehicle refreshed');
    if (coreFailure !== null) return { outcome: 'failed', failureReason: coreFailure, optionalFailure, fetchedAt, observations };
    const outcome = observations.some((o) => o.metric === 'odometer') ? 'fetched' : 'no_new_odometer';
    return { outcome, failureReason: null, optionalFailure, fetchedAt, observations };
  }

  /** The vehicle's latest readings of `metrics` (nothing asked when there are none); readings of another vehicle are dropped. */
  private async latest(adapter: ProviderAdapter, metrics: readonly TelemetryMetric[], sourceId: string): Promise<ObservationV1[]> {
    if (metrics.length === 0) return [];
    const found: ObservationV1[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < REFRESH_MAX_PAGES; page += 1) {
      const result = await adapter.latestTelemetry({ metrics, vehicleSourceIds: [sourceId], cursor });
      for (const skipped of result.skipped ?? []) this.runtime.logger.warn({ sourceId: skipped.sourceId, reason: skipped.reason }, 'refresh: the provider sent a record the adapter skipped');
      found.push(...result.items.filter((o) => o.vehicleSourceId === sourceId));
      if (result.next === null) return found;
      cursor = result.next;
    }
    this.runtime.logger.warn({ pages: REFRESH_MAX_PAGES }, 'refresh: the provider kept paging one vehicle; the rest is left to collection');
    return found;
  }

  /** The readings as observations batches on ingest.telemetry (no sync: no receipt); ids are stable per vehicle and fetch time. */
  private async publish(connectionId: string, provider: TelemetryBatchV1['provider'], sourceId: string, fetchedAt: string, observations: readonly ObservationV1[]): Promise<void> {
    const parts = splitIngestRecords('observations', observations);
    for (const [part, records] of parts.entries()) {
      const batch: TelemetryBatchV1 = {
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
      };
      await publishIngestBatch(this.runtime.bus, batch);
    }
  }
}

function failed(reason: string, fetchedAt: string | null): RefreshVehicleReplyV1 {
  return { outcome: 'failed', failureReason: reason, optionalFailure: null, fetchedAt, observations: [] };
}
