/**
 * The durable consumer of `ingest.directory.*` (durable `directory-ingest`, one consumer group
 * shared by every directory process): each delivery goes through the ingest pipeline — one
 * transaction for records + ledger + provider cursor, then the receipt, then the ack.
 * maxAckPending 16: batches of different connections and pages commit in parallel; the
 * fetched-at guards make their order irrelevant. ackWait 60 s covers a 1,000-row batch with
 * margin (a few ms measured); maxDeliver 10 then the DLQ.
 */
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { INGEST_DURABLES, INGEST_EVENTS, type Subscription } from '@switchyard/messaging';
import { ConnectionConfigStore, RUNTIME, whenMigrated, type ServiceRuntime } from '@switchyard/service-kit';
import { DirectoryIngestService } from '../services/directory-ingest.service.js';
import { handleIngestDelivery } from '../services/ingest-pipeline.js';

@Injectable()
export class IngestDirectoryConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private subscription: Subscription | undefined;
  private waiting: Promise<void> | undefined;
  private stopped = false;
  private readonly configs: ConnectionConfigStore;
  private readonly ingest = new DirectoryIngestService();

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {
    this.configs = new ConnectionConfigStore(runtime.orm);
  }

  async onApplicationBootstrap() {
    if (this.runtime.state.migrated) return this.start();
    // Migrations pending (MIGRATE_ON_START=false): start once a release step has applied them.
    this.waiting = whenMigrated(this.runtime)
      .then(async (migrated) => {
        if (migrated && !this.stopped) await this.start();
      })
      .catch((error: unknown) => this.runtime.logger.error({ err: error }, 'directory ingest consumer did not start'));
  }

  private async start() {
    this.subscription = await this.runtime.bus.consume(
      { durable: INGEST_DURABLES.directory, event: INGEST_EVENTS.directoryBatch, ackWaitMs: 60_000, maxDeliver: 10, maxAckPending: 16 },
      async (delivery) => {
        await handleIngestDelivery(delivery, {
          runtime: this.runtime,
          context: 'directory',
          configs: this.configs,
          apply: (em, batch) => this.ingest.apply(em, batch),
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
