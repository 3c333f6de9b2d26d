/**
 * Turns an observations batch into rows: mints the vehicle's stable `vcl_` id (the same id the
 * directory mints), keeps the normalized value object and extracts its number for reports.
 * Invariant: a record whose provider differs from the batch's is poison; a reading without a
 * number (location, engine state) has value_num NULL, never 0. The usage rollups of the vehicles
 * the batch touches are rebuilt in the same transaction (UsageRollupRepository.refresh). Several
 * batches committed together (a group, decision 0038) are one write and one rebuild.
 * Retention (decision 0025, observation-retention.ts): a reading observed before the horizon
 * (400 days ago) moves the latest reading only — no history row, no partition, no rollup — and is
 * reported through `onBeyondRetention` (the handler logs it).
 */
import { vehicleId } from '@switchyard/domain';
import { PoisonMessage, type ObservationV1, type TelemetryBatchV1 } from '@switchyard/messaging';
import type { Em, Orm } from '@switchyard/persistence';
import { ObservationRepository, monthOf, type ObservationRow } from '../db/repositories/observation.repository.js';
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
    const months = new Set<string>();
    for (const { observedAt } of batch.records) if (Date.parse(observedAt) >= horizon) months.add(monthOf(observedAt));
    return this.repository.ensurePartitions(orm, [...months].sort());
  }

  async apply(em: Em, batch: TelemetryBatchV1): Promise<number> {
    const [records] = await this.applyGroup(em, [batch]);
    return records ?? 0;
  }

  /** Several batches in one transaction (a group, decision 0038): one history write and one rollup rebuild for all. Returns each batch's records. */
  async applyGroup(em: Em, batches: readonly TelemetryBatchV1[]): Promise<number[]> {
    const horizon = this.horizon();
    const rows: ObservationRow[] = [];
    let history = 0;
    for (const batch of batches) {
      const { connectionId, provider, batchId } = batch;
      // A batch holds one or a few vehicles: the id (a SHA-256, 9 % of the consumer's CPU per record on the benchmark) is minted once per vehicle.
      const ids = new Map<string, string>();
      const idOf = (sourceId: string): string => {
        let id = ids.get(sourceId);
        if (id === undefined) ids.set(sourceId, (id = vehicleId({ connectionId, provider, sourceId })));
        return id;
      };
      let kept = 0;
      for (const o of batch.records) {
        if (o.provider !== provider) throw new PoisonMessage('record_provider_mismatch', `batch ${batchId} carries a ${o.provider} record`);
        const observedMs = Date.parse(o.observedAt);
        rows.push({
          connection_id: connectionId,
          vehicle_id: idOf(o.vehicleSourceId),
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
          observed_ms: observedMs,
        });
        if (observedMs >= horizon.getTime()) kept += 1;
      }
      history += kept;
      if (kept < batch.records.length) this.options.onBeyondRetention?.(batchId, batch.records.length - kept);
    }
    await this.repository.write(em, rows, horizon.toISOString());
    await this.rollups.refresh(em, history === rows.length ? rows : rows.filter((r) => (r.observed_ms as number) >= horizon.getTime()));
    return batches.map((b) => b.records.length);
  }
}
