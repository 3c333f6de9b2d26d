/**
 * The directory's durable consumer of `events.connection.health.<connectionId>`
 * (CONSUMERS.directoryConnectionHealth, one consumer group for every directory process): each
 * observation the collectors publish is applied to the `dataset_health` projection (the rows of
 * the datasets it names), which dataset-status.service.ts reads to report `degraded` with the
 * provider's errorCode. The write is order-safe and idempotent (dataset-status.repository.ts), so
 * the message is acked after the statement returns; a database error throws and the message is
 * redelivered.
 */
import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { CONSUMERS, type Consumes, type ConnectionHealthV1 } from '@switchyard/messaging';
import { RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { DatasetStatusRepository } from '../db/repositories/dataset-status.repository.js';

@Controller()
export class ConnectionHealthHandler {
  private readonly repository = new DatasetStatusRepository();

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  @EventPattern<Consumes<'directoryConnectionHealth'>>(CONSUMERS.directoryConnectionHealth.durable)
  async apply(@Payload() event: ConnectionHealthV1): Promise<void> {
    const applied = await this.repository.applyHealth(this.runtime.orm.em.fork(), event);
    this.runtime.logger.debug({ connectionId: event.connectionId, outcome: event.outcome, errorCode: event.errorCode, applied }, 'connection health projected');
  }
}
