/**
 * The durable consumer of `events.vehicle.visibility.<connectionId>` (CONSUMERS.faultFeedVehicleVisibility,
 * one consumer group for every fault-feed process): each message is the directory's whole
 * hidden-vehicle set of a connection; the projection keeps the one with the highest sequence, so
 * redelivered or reordered sets change nothing. The fault reads leave the hidden vehicles out.
 * A database error throws and the message is redelivered.
 */
import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { CONSUMERS, type Consumes, type VehicleVisibilityChangedV1 } from '@switchyard/messaging';
import { RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { FaultReadRepository } from '../db/repositories/fault-read.repository.js';

@Controller()
export class VehicleVisibilityHandler {
  private readonly repository = new FaultReadRepository();

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  @EventPattern<Consumes<'faultFeedVehicleVisibility'>>(CONSUMERS.faultFeedVehicleVisibility.durable)
  async apply(@Payload() set: VehicleVisibilityChangedV1): Promise<void> {
    const applied = await this.repository.applyVisibility(this.runtime.orm.em.fork(), set);
    this.runtime.logger.debug({ connectionId: set.connectionId, sequence: set.sequence, applied }, 'vehicle visibility projected');
  }
}
