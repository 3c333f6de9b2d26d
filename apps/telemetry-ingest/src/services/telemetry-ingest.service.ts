/**
 * Turns an observations batch into rows: mints the vehicle's stable `vcl_` id (the same id the
 * directory mints), keeps the normalized value object and extracts its number for reports.
 * Invariant: a record whose provider differs from the batch's is poison; a reading without a
 * number (location, engine state) has value_num NULL, never 0. The usage rollups of the vehicles
 * the batch touches are rebuilt in the same transaction (UsageRollupRepository.refresh).
 * Retention (decision 0025, observation-retention.ts): a reading observed before the horizon
 * (400 days ago) moves the latest reading only — no history row, no partition, no rollup — and is
 * reported through `onBeyondRetention` (the handler logs it).
 */
import { vehicleId } from '@switchyard/domain';
import { PoisonMessage, type ObservationV1, type TelemetryBatchV1 } from '@switchyard/messaging';
import type { Em, Orm } from '@switchyard/persistence';
import { ObservationRepository, monthsOf, type ObservationRow } from '../db/repositories/observation.repository.js';
import { UsageRollupRepository } from '../db/repositories/usage-rollup.repository.js';
import { observationHorizon } from './observation-retention.js';

export interface TelemetryIngestOptions {
  /** The clock the retention horizon is taken from (tests move it). */
  now?: () => Date;
  /** Told of a batch's readings older than the horizon (kept as latest readings only). */
  onBeyondRetention?: (batchId: string, readings: number) => void;
}

export function numericValue(o: ObservationV1): number | null {
  switch (o.metric) {
    case 'odometer':
      return o.value.meters;
    case 'engineHours':
    case 'totalIdleTime':
      return o.value.seconds;
    case 'speed':
    case 'heading':
    case 'fuelPercent':
    case 'batteryVoltage':
      return o.value.value;
    case 'location':
    case 'engineState':
      return null;
  }
}

export class TelemetryIngestService {
  private readonly repository = new ObservationRepository();
  private readonly rollups = new UsageRollupRepository();

  constructor(private readonly options: TelemetryIngestOptions = {}) {}

  private horizon(): Date {
    return observationHorizon(this.options.now?.() ?? new Date());
  }

  /** Before the batch's transaction: the partitions its readings within retention need. */
  prepare(orm: Orm, batch: TelemetryBatchV1): Promise<void> {
    const horizon = this.horizon().getTime();
    return this.repository.ensurePartitions(orm, monthsOf(batch.records.map((o) => o.observedAt).filter((at) => Date.parse(at) >= horizon)));
  }

  async apply(em: Em, batch: TelemetryBatchV1): Promise<number> {
    const { connectionId, provider, batchId } = batch;
    const rows: ObservationRow[] = batch.records.map((o) => {
      if (o.provider !== provider) throw new PoisonMessage('record_provider_mismatch', `batch ${batchId} carries a ${o.provider} record`);
      return {
        connection_id: connectionId,
        vehicle_id: vehicleId({ connectionId, provider, sourceId: o.vehicleSourceId }),
        metric: o.metric,
        observed_at: o.observedAt,
        source: o.source,
        provider,
        vehicle_source_id: o.vehicleSourceId,
        value: o.value,
        value_num: numericValue(o),
        units: o.units ?? null,
        fetched_at: o.fetchedAt,
        batch_id: batchId,
      };
    });
    const horizon = this.horizon();
    const history = rows.filter((r) => Date.parse(r.observed_at) >= horizon.getTime());
    if (history.length < rows.length) this.options.onBeyondRetention?.(batchId, rows.length - history.length);
    await this.repository.write(em, rows, horizon.toISOString());
    await this.rollups.refresh(em, connectionId, history);
    return batch.records.length;
  }
}
