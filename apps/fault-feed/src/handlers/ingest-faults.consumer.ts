/**
 * The durable consumer of `ingest.faults.*` (durable `fault-feed-ingest`, one consumer group shared
 * by every fault-feed process): each delivery goes through the ingest pipeline — one transaction
 * for occurrences + transitions (outbox) + ledger + provider cursor — then the outbox relay
 * publishes the transitions, then the receipt, then the ack. maxAckPending 16: batches of one
 * connection serialize on its advisory lock inside the transaction, other connections run in
 * parallel. Ack wait INGEST_ACK_WAIT_MS (default 60 s), maxDeliver 10 then the DLQ. The lifecycle (start after migrations,
 * drain on shutdown) is service-kit's IngestBatchConsumer.
 */
import { Inject, Injectable } from '@nestjs/common';
import { INGEST_DURABLES, INGEST_EVENTS, type FaultBatchV1 } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import { INGEST_SETTINGS, IngestBatchConsumer, RUNTIME, type IngestSettings, type ServiceRuntime } from '@switchyard/service-kit';
import { FaultIngestService } from '../services/fault-ingest.service.js';
import { FaultOutboxRelay } from '../services/fault-outbox-relay.service.js';

@Injectable()
export class IngestFaultsConsumer extends IngestBatchConsumer<typeof INGEST_EVENTS.faultBatch.schema> {
  protected readonly consumer = { durable: INGEST_DURABLES.faultFeed, event: INGEST_EVENTS.faultBatch, maxDeliver: 10, maxAckPending: 16 };
  protected readonly context = 'fault-feed';
  protected readonly label = 'fault ingest consumer';
  private readonly ingest = new FaultIngestService();

  constructor(
    @Inject(RUNTIME) runtime: ServiceRuntime,
    @Inject(INGEST_SETTINGS) settings: IngestSettings,
    @Inject(FaultOutboxRelay) private readonly relay: FaultOutboxRelay,
  ) {
    super(runtime, settings);
  }

  protected apply(em: Em, batch: FaultBatchV1): Promise<number> {
    return this.ingest.apply(em, batch);
  }

  protected override async afterCommit(): Promise<void> {
    await this.relay.flush();
  }
}
