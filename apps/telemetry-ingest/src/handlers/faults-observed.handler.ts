/**
 * The durable consumer of `events.faults.observed.<connectionId>` (CONSUMERS.telemetryFaultsObserved,
 * one consumer group for every telemetry-ingest process): fault-feed's per-batch "faults of these
 * vehicles were observed at" become this context's `vehicle_fault_observation` projection, the
 * source of Telemetry `faultsObservedAt` — the faults schema is never read. Each vehicle's time
 * only moves forward, so redelivery and reordering change nothing. A database error throws and the
 * message is redelivered.
 */
import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { CONSUMERS, type Consumes, type FaultsObservedV1 } from '@switchyard/messaging';
import { RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { TelemetryReadRepository } from '../db/repositories/telemetry-read.repository.js';

@Controller()
export class FaultsObservedHandler {
  private readonly repository = new TelemetryReadRepository();

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  @EventPattern<Consumes<'telemetryFaultsObserved'>>(CONSUMERS.telemetryFaultsObserved.durable)
  async record(@Payload() event: FaultsObservedV1): Promise<void> {
    const moved = await this.repository.recordFaultObservations(this.runtime.orm.em.fork(), event.connectionId, event.vehicles);
    this.runtime.logger.debug({ connectionId: event.connectionId, batchId: event.batchId, moved }, 'fault observations projected');
  }
}
