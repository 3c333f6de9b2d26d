/**
 * The durable consumer of `events.vehicle.visibility.<connectionId>` (CONSUMERS.telemetryVehicleVisibility,
 * one consumer group for every telemetry-ingest process): each message is the directory's whole
 * hidden-vehicle set of a connection; the projection keeps the one with the highest sequence, so
 * redelivered or reordered sets change nothing. A database error throws and the message is redelivered.
 */
import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { CONSUMERS, type Consumes, type VehicleVisibilityChangedV1 } from '@switchyard/messaging';
import { RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { TelemetryReadRepository } from '../db/repositories/telemetry-read.repository.js';

@Controller()
export class VehicleVisibilityHandler {
  private readonly repository = new TelemetryReadRepository();

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  @EventPattern<Consumes<'telemetryVehicleVisibility'>>(CONSUMERS.telemetryVehicleVisibility.durable)
  async apply(@Payload() set: VehicleVisibilityChangedV1): Promise<void> {
    const applied = await this.repository.applyVisibility(this.runtime.orm.em.fork(), set);
    this.runtime.logger.debug({ connectionId: set.connectionId, sequence: set.sequence, applied }, 'vehicle visibility projected');
  }
}
