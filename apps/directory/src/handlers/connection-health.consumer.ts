/**
 * The directory's durable consumer of `events.connection.health.<connectionId>` (durable
 * `directory-connection-health`, one consumer group for every directory process): each
 * observation the collectors publish is applied to the `dataset_health` projection (the rows of
 * the datasets it names), which dataset-status.service.ts reads to report `degraded` with the
 * provider's errorCode. The write is
 * order-safe and idempotent (dataset-status.repository.ts), so the message is acked after the
 * statement returns; a database error throws and the message is redelivered. Starts once the
 * schema is migrated (the table may not exist before), drains on shutdown.
 */
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { connectionHealthConsumer, type Subscription } from '@switchyard/messaging';
import { RUNTIME, whenMigrated, type ServiceRuntime } from '@switchyard/service-kit';
import { DatasetStatusRepository } from '../db/repositories/dataset-status.repository.js';

export const DIRECTORY_HEALTH_DURABLE = 'directory-connection-health';

@Injectable()
export class ConnectionHealthConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  /** One upsert per message; the guarded upsert makes order irrelevant. */
  static readonly consumer = connectionHealthConsumer(DIRECTORY_HEALTH_DURABLE);

  private readonly repository = new DatasetStatusRepository();
  private subscription: Subscription | undefined;
  private waiting: Promise<void> | undefined;
  private stopped = false;

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  onApplicationBootstrap(): void {
    this.waiting = whenMigrated(this.runtime)
      .then(async (migrated) => {
        if (!migrated || this.stopped) return;
        this.subscription = await this.runtime.bus.consume(ConnectionHealthConsumer.consumer, async ({ payload }) => {
          const applied = await this.repository.applyHealth(this.runtime.orm.em.fork(), payload);
          this.runtime.logger.debug({ connectionId: payload.connectionId, outcome: payload.outcome, errorCode: payload.errorCode, applied }, 'connection health projected');
        });
      })
      .catch((error: unknown) => this.runtime.logger.error({ err: error }, 'directory connection health consumer did not start'));
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.waiting;
    await this.subscription?.drain();
  }
}
