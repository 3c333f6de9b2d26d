/**
 * The durable consumer of `ingest.directory.*` (durable `directory-ingest`, one consumer group
 * shared by every directory process): each delivery goes through the ingest pipeline — one
 * transaction for records + ledger + provider cursor, then the receipt, then the ack.
 * maxAckPending 16: batches of different connections and pages commit in parallel; the
 * fetched-at guards make their order irrelevant. ackWait 60 s covers a 1,000-row batch with
 * margin (a few ms measured); maxDeliver 10 then the DLQ. The lifecycle (start after migrations,
 * drain on shutdown) is service-kit's IngestBatchConsumer.
 */
import { Inject, Injectable } from '@nestjs/common';
import { INGEST_DURABLES, INGEST_EVENTS, type DirectoryBatchV1 } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import { IngestBatchConsumer, RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { DirectoryIngestService } from '../services/directory-ingest.service.js';

@Injectable()
export class IngestDirectoryConsumer extends IngestBatchConsumer<typeof INGEST_EVENTS.directoryBatch.schema> {
  protected readonly consumer = { durable: INGEST_DURABLES.directory, event: INGEST_EVENTS.directoryBatch, ackWaitMs: 60_000, maxDeliver: 10, maxAckPending: 16 };
  protected readonly context = 'directory';
  protected readonly label = 'directory ingest consumer';
  private readonly ingest = new DirectoryIngestService();

  constructor(@Inject(RUNTIME) runtime: ServiceRuntime) {
    super(runtime);
  }

  protected apply(em: Em, batch: DirectoryBatchV1): Promise<number> {
    return this.ingest.apply(em, batch);
  }
}
