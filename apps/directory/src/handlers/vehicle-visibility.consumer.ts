/**
 * The directory's durable consumer of `events.connection.config.<connectionId>` for visibility
 * (durable `directory-vehicle-visibility`, one consumer group for every directory process; the
 * config projection has its own durable): each configuration is used to recompute the connection's
 * hidden-vehicle set in one transaction (vehicle-visibility.service.ts keeps the newest rules by
 * revision, so order does not matter), and a changed set is flushed through the relay right after
 * the commit. A database error throws and the message is redelivered. Starts once the schema is
 * migrated, drains on shutdown.
 */
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { EVENTS, type ConsumerDefinition, type Subscription } from '@switchyard/messaging';
import { RUNTIME, whenMigrated, type ServiceRuntime } from '@switchyard/service-kit';
import { VehicleVisibilityRelay } from '../services/vehicle-visibility-relay.service.js';
import { VehicleVisibilityService } from '../services/vehicle-visibility.service.js';

export const DIRECTORY_VISIBILITY_DURABLE = 'directory-vehicle-visibility';

@Injectable()
export class VehicleVisibilityConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  /** ackWait 30 s (one scan of the connection's vehicles); maxAckPending 16: connections recompute in parallel, one connection under its lock. */
  static readonly consumer: ConsumerDefinition<typeof EVENTS.connectionConfigChanged.schema> = {
    durable: DIRECTORY_VISIBILITY_DURABLE,
    event: EVENTS.connectionConfigChanged,
    ackWaitMs: 30_000,
    maxDeliver: 10,
    maxAckPending: 16,
  };

  private readonly visibility: VehicleVisibilityService;
  private subscription: Subscription | undefined;
  private waiting: Promise<void> | undefined;
  private stopped = false;

  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly relay: VehicleVisibilityRelay,
  ) {
    this.visibility = new VehicleVisibilityService(runtime.orm);
  }

  onApplicationBootstrap(): void {
    this.waiting = whenMigrated(this.runtime)
      .then(async (migrated) => {
        if (!migrated || this.stopped) return;
        this.subscription = await this.runtime.bus.consume(VehicleVisibilityConsumer.consumer, async ({ payload }) => {
          const changed = await this.runtime.orm.em.fork().transactional((em) => this.visibility.recompute(em, payload.connectionId, payload));
          if (changed) await this.relay.flush();
          this.runtime.logger.debug({ connectionId: payload.connectionId, revision: payload.revision, changed }, 'vehicle visibility recomputed');
        });
      })
      .catch((error: unknown) => this.runtime.logger.error({ err: error }, 'directory vehicle visibility consumer did not start'));
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.waiting;
    await this.subscription?.drain();
  }
}
