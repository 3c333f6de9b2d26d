/**
 * The VIN projection's durable consumer (`enrichment-vehicle-vin`, one consumer group shared by
 * every enrichment process) of the directory's `events.vehicle.vin.<connectionId>`: in one
 * transaction, the highest sequence per vehicle wins and a new or changed VIN resets the four
 * products (product-policy.ts); after the commit the worker is nudged so the background work
 * starts at once. A database error throws: the message is redelivered.
 */
import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { CONSUMERS, type Consumes, type VehicleVinChangedV1 } from '@switchyard/messaging';
import { RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { ENRICHMENT_SETTINGS, type EnrichmentSettings } from '../config.js';
import { EnrichmentRepository } from '../db/repositories/enrichment.repository.js';
import { EnrichmentWorker } from '../services/enrichment-worker.service.js';
import { initialProducts } from '../services/product-policy.js';

@Controller()
export class VehicleVinHandler {
  private readonly repository = new EnrichmentRepository();

  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(ENRICHMENT_SETTINGS) private readonly settings: EnrichmentSettings,
    private readonly worker: EnrichmentWorker,
  ) {}

  @EventPattern<Consumes<'enrichmentVehicleVin'>>(CONSUMERS.enrichmentVehicleVin.durable)
  async apply(@Payload() event: VehicleVinChangedV1): Promise<void> {
    const { vin, resets } = initialProducts(event.vin, this.settings, new Date());
    const outcome = await this.runtime.orm.em.fork().transactional((em) => this.repository.applyVin(em, event, vin, resets));
    this.runtime.logger.debug({ vehicleId: event.vehicleId, sequence: event.sequence, outcome }, 'vehicle vin projected');
    if (outcome === 'changed') this.worker.nudge();
  }
}
