/**
 * The lifecycle of an ingest context's durable batch consumer, shared by directory,
 * telemetry-ingest and fault-feed: consume the context's `ingest.<context>.*` durable once the
 * migrations are applied, hand every delivery to the ingest pipeline (ingest-pipeline.ts), and
 * drain on shutdown. Each app's consumer names its durable, event, limits and receipt context, and
 * implements `apply` (plus `prepare` or `afterCommit` where it needs them); the ack wait is the
 * one INGEST_ACK_WAIT_MS of every ingest context (ingest-settings.ts).
 *
 * Invariant: consuming never starts before the schema is migrated — with MIGRATE_ON_START=false
 * and migrations pending, the tables may not exist yet and every delivery would end in the DLQ; it
 * starts once a release step has applied them, and not at all once shutdown has begun.
 */
import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import type { ConsumerDefinition, Delivery, IngestBatchV1, ReceiptContext, Subscription } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import type { z } from 'zod';
import { ConnectionConfigStore } from '../context/connection-config.projection.js';
import { whenMigrated } from '../health.js';
import type { ServiceRuntime } from '../runtime.js';
import { handleIngestDelivery } from './ingest-pipeline.js';
import type { IngestSettings } from './ingest-settings.js';

export abstract class IngestBatchConsumer<P extends z.ZodType<IngestBatchV1>> implements OnApplicationBootstrap, BeforeApplicationShutdown {
  /** The durable (one consumer group per context), its event and its limits; the ack wait comes from the settings. */
  protected abstract readonly consumer: Omit<ConsumerDefinition<P>, 'ackWaitMs'>;
  /** The `context` field of every receipt this consumer sends. */
  protected abstract readonly context: ReceiptContext;
  /** Names the consumer in its start-failure log line, e.g. `directory ingest consumer`. */
  protected abstract readonly label: string;

  private subscription: Subscription | undefined;
  private waiting: Promise<void> | undefined;
  private stopped = false;
  private readonly configs: ConnectionConfigStore;

  constructor(
    protected readonly runtime: ServiceRuntime,
    private readonly settings: IngestSettings,
  ) {
    this.configs = new ConnectionConfigStore(runtime.orm);
  }

  /** Writes the batch's records inside the pipeline's transaction; returns how many it accepted. */
  protected abstract apply(em: Em, batch: z.output<P>): Promise<number>;

  /** Runs before the pipeline, outside its transaction (telemetry-ingest creates partitions). */
  protected prepare?(batch: z.output<P>): Promise<void>;

  /** Runs after the commit and before the receipt (fault-feed publishes its outbox); throwing naks. */
  protected afterCommit?(): Promise<void>;

  async onApplicationBootstrap() {
    if (this.runtime.state.migrated) return this.start();
    // Migrations pending (MIGRATE_ON_START=false): start once a release step has applied them.
    this.waiting = whenMigrated(this.runtime)
      .then(async (migrated) => {
        if (migrated && !this.stopped) await this.start();
      })
      .catch((error: unknown) => this.runtime.logger.error({ err: error }, `${this.label} did not start`));
  }

  private async start() {
    this.subscription = await this.runtime.bus.consume({ ...this.consumer, ackWaitMs: this.settings.ackWaitMs }, async (delivery: Delivery<z.output<P>>) => {
      await this.prepare?.(delivery.payload);
      await handleIngestDelivery(delivery, {
        runtime: this.runtime,
        context: this.context,
        configs: this.configs,
        apply: (em, batch) => this.apply(em, batch),
        afterCommit: this.afterCommit?.bind(this),
      });
    });
  }

  async beforeApplicationShutdown() {
    this.stopped = true;
    await this.waiting;
    await this.subscription?.drain();
  }
}
