/**
 * Publishes new and changed VINs of stored vehicles (the outbox: `vehicle_vin` rows with
 * published_sequence < sequence) to `events.vehicle.vin.<connectionId>`, msgId
 * `vin:<vehicleId>:<sequence>`, and marks them in the transaction that claimed them — the
 * visibility relay's pattern (vehicle-visibility-relay.service.ts). The ingest consumer calls
 * `flush()` after a vehicles batch commits; a 1 s poll catches anything a failed flush left behind.
 * Consumers (enrichment) keep the highest sequence per vehicle.
 * Retention (decision 0025): none, and none needed — the outbox is one row per stored vehicle,
 * updated in place, so published rows are state, not a log (no `prunePublished`; deleting a row
 * would restart its sequence below what consumers hold).
 */
import { Inject, Injectable } from '@nestjs/common';
import { EVENTS, subjectFor } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import { PollingOutboxRelay, RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { VehicleVinRepository, type UnpublishedVinRow } from '../db/repositories/vehicle-vin.repository.js';

@Injectable()
export class VehicleVinRelay extends PollingOutboxRelay<UnpublishedVinRow> {
  private readonly repository = new VehicleVinRepository();

  constructor(@Inject(RUNTIME) runtime: ServiceRuntime) {
    super(runtime, { label: 'vehicle vin relay', batchSize: 200, idlePollMs: 1_000, firstDelayMs: 1_000, outbox: 'vehicle_vin' });
  }

  protected claim(em: Em, limit: number): Promise<UnpublishedVinRow[]> {
    return this.repository.unpublished(em, limit);
  }

  protected publish(row: UnpublishedVinRow): Promise<unknown> {
    const event = { connectionId: row.connection_id, vehicleId: row.vehicle_id, vin: row.vin, sequence: row.sequence, changedAt: row.changed_at };
    return this.runtime.bus.publish(EVENTS.vehicleVin, subjectFor(EVENTS.vehicleVin.subject, row.connection_id), event, { msgId: `vin:${row.vehicle_id}:${row.sequence}` });
  }

  protected countPending(em: Em): Promise<number> {
    return this.repository.countUnpublished(em);
  }

  protected markPublished(em: Em, rows: UnpublishedVinRow[]): Promise<void> {
    return this.repository.markPublished(em, rows);
  }
}
