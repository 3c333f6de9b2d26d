/**
 * The durable consumer of `ingest.telemetry.*` (durable `telemetry-ingest-ingest`, one consumer
 * group shared by every telemetry-ingest process): first the monthly partitions the batch needs
 * (own short transaction), then the ingest pipeline — one transaction for history + latest +
 * ledger + provider cursor, then the receipt, then the ack. maxAckPending 16: batches commit in
 * parallel; primary keys and the forward-only latest rule make their order irrelevant.
 * The ack wait is INGEST_ACK_WAIT_MS (default 60 s, wide margin for a 2,000-row batch); maxDeliver
 * 10 then the DLQ.
 * The lifecycle (start after migrations, drain on shutdown) is service-kit's IngestBatchConsumer.
 */
import { Inject, Injectable } from '@nestjs/common';
import { INGEST_DURABLES, INGEST_EVENTS, type TelemetryBatchV1 } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import { INGEST_SETTINGS, IngestBatchConsumer, RUNTIME, type IngestSettings, type ServiceRuntime } from '@switchyard/service-kit';
import { TelemetryIngestService } from '../services/telemetry-ingest.service.js';

@Injectable()
export class IngestTelemetryConsumer extends IngestBatchConsumer<typeof INGEST_EVENTS.telemetryBatch.schema> {
  protected readonly consumer = { durable: INGEST_DURABLES.telemetryIngest, event: INGEST_EVENTS.telemetryBatch, maxDeliver: 10, maxAckPending: 16 };
  protected readonly context = 'telemetry-ingest';
  protected readonly label = 'telemetry ingest consumer';
  private readonly ingest = new TelemetryIngestService();

  constructor(@Inject(RUNTIME) runtime: ServiceRuntime, @Inject(INGEST_SETTINGS) settings: IngestSettings) {
    super(runtime, settings);
  }

  protected override prepare(batch: TelemetryBatchV1): Promise<void> {
    return this.ingest.prepare(this.runtime.orm, batch);
  }

  protected apply(em: Em, batch: TelemetryBatchV1): Promise<number> {
    return this.ingest.apply(em, batch);
  }
}
