/**
 * The local copy of each connection's configuration, kept by every context that collects or
 * serves connection data (architecture: a context never reads another context's schema; it keeps
 * projections fed by events). Shared here instead of copied into four apps; the table's migration,
 * entity and SQL live in ./db/ (connection-config.migration/entity/repository.ts).
 *
 * Invariant: a row only moves forward — an upsert applies only when the incoming `revision` is
 * higher than the stored one, so redelivered or reordered snapshots can never roll a config back.
 * The message is acked only after that commit.
 */
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { EVENTS, type Subscription } from '@switchyard/messaging';
import { whenMigrated } from '../health.js';
import { RUNTIME, type ServiceRuntime } from '../runtime.js';
import { ConnectionConfigStore } from './db/connection-config.repository.js';

@Injectable()
export class ConnectionConfigConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly store: ConnectionConfigStore;
  private subscription: Subscription | undefined;
  private waiting: Promise<void> | undefined;
  private stopped = false;

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {
    this.store = new ConnectionConfigStore(runtime.orm);
  }

  async onApplicationBootstrap() {
    if (this.runtime.state.migrated) {
      await this.start();
      return;
    }
    // MIGRATE_ON_START=false with migrations pending: the table may not exist yet. Consuming now
    // would fail every delivery into the DLQ; start once a release step has applied them.
    this.waiting = whenMigrated(this.runtime)
      .then(async (migrated) => {
        if (migrated && !this.stopped) await this.start();
      })
      .catch((error: unknown) => this.runtime.logger.error({ err: error }, 'connection config consumer did not start'));
  }

  private async start() {
    this.subscription = await this.runtime.bus.consume(
      {
        durable: `${this.runtime.service}-connection-config`,
        event: EVENTS.connectionConfigChanged,
        ackWaitMs: 30_000,
        maxDeliver: 10,
        maxAckPending: 64,
      },
      async ({ payload }) => {
        const applied = await this.store.apply(payload);
        this.runtime.logger.debug({ connectionId: payload.connectionId, revision: payload.revision, applied }, 'connection config received');
      },
    );
  }

  async beforeApplicationShutdown() {
    this.stopped = true;
    await this.waiting;
    await this.subscription?.drain();
  }
}
