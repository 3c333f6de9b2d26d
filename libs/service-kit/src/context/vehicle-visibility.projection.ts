/**
 * The local copy of the directory's hidden-vehicle sets, kept by every context that serves vehicle
 * data (telemetry-ingest, fault-feed, enrichment; a context never reads the directory's schema). Shared here
 * instead of copied into each app; the entity and SQL live in ./db/ (vehicle-visibility.entity/
 * repository.ts), the table's DDL in each context's own migration. Enabled with
 * `ContextKitModule.forContext({ vehicleVisibility: true })`.
 * Invariant: the newest set by sequence wins (the store's conditional upsert); the message is acked
 * after that commit, a database error throws and it is redelivered.
 */
import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { CONSUMERS, type Consumes, type VehicleVisibilityChangedV1 } from '@switchyard/messaging';
import { RUNTIME, type ServiceRuntime } from '../runtime.js';
import { VehicleVisibilityStore } from './db/vehicle-visibility.repository.js';

/** The projection's durable (`{service}-vehicle-visibility`: one consumer group per context). */
@Controller()
export class VehicleVisibilityHandler {
  private readonly store = new VehicleVisibilityStore();

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  @EventPattern<Consumes<'vehicleVisibility'>>(CONSUMERS.vehicleVisibility.durable)
  async apply(@Payload() set: VehicleVisibilityChangedV1): Promise<void> {
    const applied = await this.store.apply(this.runtime.orm.em.fork(), set);
    this.runtime.logger.debug({ connectionId: set.connectionId, sequence: set.sequence, applied }, 'vehicle visibility projected');
  }
}
