/**
 * The gateway's durable consumer of `events.connection.health.<connectionId>`
 * (CONSUMERS.gatewayConnectionHealth, one consumer group for every gateway process): each observation the
 * sync-orchestrator's collectors publish is applied to the connection row by
 * ConnectionRepository.applyHealth, which is idempotent and order-safe (an observation not newer
 * than the stored success time of its scope changes nothing), so redelivery and reordering are
 * harmless and the message is acked after the statement returns. An unknown connection (deleted,
 * or another deployment's) is acked and logged at debug; a database error throws and the message is
 * redelivered. Health writes never touch stored data: a failure only sets a code.
 */
import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { CONSUMERS, type Consumes, type ConnectionHealthV1 } from '@switchyard/messaging';
import { LOGGER, type Logger } from '@switchyard/service-kit';
import { ConnectionRepository } from '../db/repositories/connection.repository.js';

@Controller()
export class ConnectionHealthHandler {
  constructor(
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly connections: ConnectionRepository,
  ) {}

  @EventPattern<Consumes<'gatewayConnectionHealth'>>(CONSUMERS.gatewayConnectionHealth.durable)
  async handle(@Payload() event: ConnectionHealthV1): Promise<boolean> {
    const applied = await this.connections.applyHealth(event);
    this.logger.debug(
      { connectionId: event.connectionId, outcome: event.outcome, scope: event.scope, errorCode: event.errorCode, sequence: event.sequence, applied },
      'connection health received',
    );
    return applied;
  }
}
