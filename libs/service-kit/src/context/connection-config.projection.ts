/**
 * The local copy of each connection's configuration, kept by every context that collects or
 * serves connection data (architecture: a context never reads another context's schema; it keeps
 * projections fed by events). Shared here instead of copied into four apps; the table's entity and
 * SQL live in ./db/ (connection-config.entity/repository.ts), its migration in each context's own
 * db/migrations (applied migrations are written out, never shared).
 *
 * Invariant: a row only moves forward — an upsert applies only when the incoming `revision` is
 * higher than the stored one, so redelivered or reordered snapshots can never roll a config back.
 * The message is acked only after that commit.
 */
import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { CONSUMERS, type Consumes, type ConnectionConfigV1 } from '@switchyard/messaging';
import { RUNTIME, type ServiceRuntime } from '../runtime.js';
import { ConnectionConfigStore } from './db/connection-config.repository.js';

/** The projection's durable (`{service}-connection-config`: one consumer group per context); acks after the conditional upsert. */
@Controller()
export class ConnectionConfigHandler {
  private readonly store: ConnectionConfigStore;

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {
    this.store = new ConnectionConfigStore(runtime.orm);
  }

  @EventPattern<Consumes<'connectionConfig'>>(CONSUMERS.connectionConfig.durable)
  async apply(@Payload() config: ConnectionConfigV1): Promise<void> {
    const applied = await this.store.apply(config);
    this.runtime.logger.debug({ connectionId: config.connectionId, revision: config.revision, applied }, 'connection config received');
  }
}
