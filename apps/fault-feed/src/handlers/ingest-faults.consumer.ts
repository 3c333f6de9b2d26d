/**
 * The durable consumer of `ingest.faults.*` (durable `fault-feed-ingest`, one consumer group shared
 * by every fault-feed process): each delivery goes through the ingest pipeline — one transaction
 * for occurrences + transitions (outbox) + ledger + provider cursor — then the outbox relay
 * publishes the transitions, then the receipt, then the ack. maxAckPending 16: batches of one
 * connection serialize on its advisory lock inside the transaction, other connections run in
 * parallel. ackWait 60 s, maxDeliver 10 then the DLQ.
 */
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { INGEST_DURABLES, INGEST_EVENTS, type Subscription } from '@switchyard/messaging';
import { ConnectionConfigStore, RUNTIME, whenMigrated, type ServiceRuntime } from '@switchyard/service-kit';
import { FaultIngestService } from '../services/fault-ingest.service.js';
import { FaultOutboxRelay } from '../services/fault-outbox-relay.service.js';
import { handleIngestDelivery } from '../services/ingest-pipeline.js';

@Injectable()
export class IngestFaultsConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private subscription: Subscription | undefined;
  private waiting: Promise<void> | undefined;
  private stopped = false;
  private readonly configs: ConnectionConfigStore;
  private readonly ingest = new FaultIngestService();

  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(FaultOutboxRelay) private readonly relay: FaultOutboxRelay,
  ) {
    this.configs = new ConnectionConfigStore(runtime.orm);
  }

  async onApplicationBootstrap() {
    if (this.runtime.state.migrated) return this.start();
    // Migrations pending (MIGRATE_ON_START=false): start once a release step has applied them.
    this.waiting = whenMigrated(this.runtime)
      .then(async (migrated) => {
        if (migrated && !this.stopped) await this.start();
      })
      .catch((error: unknown) => this.runtime.logger.error({ err: error }, 'fault ingest consumer did not start'));
  }

  private async start() {
    this.subscription = await this.runtime.bus.consume(
      { durable: INGEST_DURABLES.faultFeed, event: INGEST_EVENTS.faultBatch, ackWaitMs: 60_000, maxDeliver: 10, maxAckPending: 16 },
      async (delivery) => {
        await handleIngestDelivery(delivery, {
          runtime: this.runtime,
          context: 'fault-feed',
          configs: this.configs,
          apply: (em, batch) => this.ingest.apply(em, batch),
          afterCommit: async () => {
            await this.relay.flush();
          },
        });
      },
    );
  }

  async beforeApplicationShutdown() {
    this.stopped = true;
    await this.waiting;
    await this.subscription?.drain();
  }
}
