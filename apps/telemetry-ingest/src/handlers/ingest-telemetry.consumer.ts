/**
 * The durable consumer of `ingest.telemetry.*` (durable `telemetry-ingest-ingest`, one consumer
 * group shared by every telemetry-ingest process): first the monthly partitions the batch needs
 * (own short transaction), then the ingest pipeline — one transaction for history + latest +
 * ledger + provider cursor, then the receipt, then the ack. maxAckPending 16: batches commit in
 * parallel; primary keys and the forward-only latest rule make their order irrelevant.
 * ackWait 60 s covers a 2,000-row batch with wide margin; maxDeliver 10 then the DLQ.
 */
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { INGEST_DURABLES, INGEST_EVENTS, type Subscription } from '@switchyard/messaging';
import { ConnectionConfigStore, RUNTIME, whenMigrated, type ServiceRuntime } from '@switchyard/service-kit';
import { TelemetryIngestService } from '../services/telemetry-ingest.service.js';
import { handleIngestDelivery } from '../services/ingest-pipeline.js';

@Injectable()
export class IngestTelemetryConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private subscription: Subscription | undefined;
  private waiting: Promise<void> | undefined;
  private stopped = false;
  private readonly configs: ConnectionConfigStore;
  private readonly ingest = new TelemetryIngestService();

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
      .catch((error: unknown) => this.runtime.logger.error({ err: error }, 'telemetry ingest consumer did not start'));
  }

  private async start() {
    this.subscription = await this.runtime.bus.consume(
      { durable: INGEST_DURABLES.telemetryIngest, event: INGEST_EVENTS.telemetryBatch, ackWaitMs: 60_000, maxDeliver: 10, maxAckPending: 16 },
      async (delivery) => {
        await this.ingest.prepare(this.runtime.orm, delivery.payload);
        await handleIngestDelivery(delivery, {
          runtime: this.runtime,
          context: 'telemetry-ingest',
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
