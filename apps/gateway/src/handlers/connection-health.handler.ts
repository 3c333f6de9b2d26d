/**
 * The gateway's durable consumer of `events.connection.health.<connectionId>` (durable
 * `gateway-connection-health`, one consumer group for every gateway process): each observation the
 * sync-orchestrator's collectors publish is applied to the connection row by
 * ConnectionRepository.applyHealth, which is idempotent and order-safe (an observation not newer
 * than the stored success time of its scope changes nothing), so redelivery and reordering are
 * harmless and the message is acked after the statement returns. An unknown connection (deleted,
 * or another deployment's) is acked and logged at debug; a database error throws and the message is
 * redelivered. Health writes never touch stored data: a failure only sets a code.
 * Starts once the schema is migrated, like the other consumers.
 */
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { connectionHealthConsumer, type ConnectionHealthV1, type Subscription } from '@switchyard/messaging';
import { RUNTIME, whenMigrated, type ServiceRuntime } from '@switchyard/service-kit';
import { ConnectionRepository } from '../db/repositories/connection.repository.js';

export const CONNECTION_HEALTH_DURABLE = 'gateway-connection-health';

@Injectable()
export class ConnectionHealthHandler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  /** One UPDATE per message; the conditional update makes order irrelevant. */
  static readonly consumer = connectionHealthConsumer(CONNECTION_HEALTH_DURABLE);

  private subscription: Subscription | undefined;
  private waiting: Promise<void> | undefined;
  private stopped = false;

  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly connections: ConnectionRepository,
  ) {}

  onApplicationBootstrap(): void {
    this.waiting = whenMigrated(this.runtime)
      .then(async (migrated) => {
        if (!migrated || this.stopped) return;
        this.subscription = await this.runtime.bus.consume(ConnectionHealthHandler.consumer, ({ payload }) => this.handle(payload).then(() => undefined));
      })
      .catch((error: unknown) => this.runtime.logger.error({ err: error }, 'connection health consumer did not start'));
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.waiting;
    await this.subscription?.drain();
  }

  async handle(event: ConnectionHealthV1): Promise<boolean> {
    const applied = await this.connections.applyHealth(event);
    this.runtime.logger.debug(
      { connectionId: event.connectionId, outcome: event.outcome, scope: event.scope, errorCode: event.errorCode, sequence: event.sequence, applied },
      'connection health received',
    );
    return applied;
  }
}
