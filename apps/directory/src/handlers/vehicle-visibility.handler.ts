/**
 * The directory's durable consumer of `events.connection.config.<connectionId>` for visibility
 * (CONSUMERS.directoryVehicleVisibility, one consumer group for every directory process; the
 * config projection has its own durable): each configuration is used to recompute the
 * connection's hidden-vehicle set in one transaction (vehicle-visibility.service.ts keeps the
 * newest rules by revision, so order does not matter), and a changed set is flushed through the
 * relay right after the commit. A database error throws and the message is redelivered.
 */
import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { CONSUMERS, type Consumes, type ConnectionConfigV1 } from '@switchyard/messaging';
import { RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { VehicleVisibilityRelay } from '../services/vehicle-visibility-relay.service.js';
import { VehicleVisibilityService } from '../services/vehicle-visibility.service.js';

@Controller()
export class VehicleVisibilityHandler {
  private readonly visibility: VehicleVisibilityService;

  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly relay: VehicleVisibilityRelay,
  ) {
    this.visibility = new VehicleVisibilityService(runtime.orm);
  }

  @EventPattern<Consumes<'directoryVehicleVisibility'>>(CONSUMERS.directoryVehicleVisibility.durable)
  async recompute(@Payload() config: ConnectionConfigV1): Promise<void> {
    const changed = await this.runtime.orm.em.fork().transactional((em) => this.visibility.recompute(em, config.connectionId, config));
    if (changed) await this.relay.flush();
    this.runtime.logger.debug({ connectionId: config.connectionId, revision: config.revision, changed }, 'vehicle visibility recomputed');
  }
}
