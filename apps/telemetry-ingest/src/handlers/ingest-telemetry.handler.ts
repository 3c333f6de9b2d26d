/**
 * The durable consumer of `ingest.telemetry.*` (durable `telemetry-ingest-ingest`, one consumer
 * group shared by every telemetry-ingest process): first the monthly partitions the batch needs
 * (own short transaction), then the ingest pipeline — one transaction for history + latest +
 * ledger + provider cursor, then the receipt, then the ack. maxAckPending 16: batches commit in
 * parallel; primary keys and the forward-only latest rule make their order irrelevant.
 * The ack wait is INGEST_ACK_WAIT_MS (default 60 s, wide margin for a 2,000-row batch); maxDeliver
 * 10 then the DLQ.
 * The lifecycle (start after migrations, drain on shutdown, settlement) is the bus transport's.
 */
import { Controller, Inject } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { CONSUMERS, type Consumes, type TelemetryBatchV1 } from '@switchyard/messaging';
import { handleIngestDelivery, RUNTIME, BusContext, type ServiceRuntime } from '@switchyard/service-kit';
import { TelemetryIngestService } from '../services/telemetry-ingest.service.js';

@Controller()
export class IngestTelemetryHandler {
  private readonly ingest: TelemetryIngestService;

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {
    // Readings past retention (decision 0025) are not an error: the batch commits, the log says so.
    this.ingest = new TelemetryIngestService({
      onBeyondRetention: (batchId, readings) => runtime.logger.warn({ batchId, readings }, 'observations older than the retention horizon kept as latest readings only, not as history'),
    });
  }

  @EventPattern<Consumes<'telemetryIngest'>>(CONSUMERS.telemetryIngest.durable)
  async handle(@Payload() batch: TelemetryBatchV1, @Ctx() ctx: unknown): Promise<void> {
    await this.ingest.prepare(this.runtime.orm, batch);
    await handleIngestDelivery(BusContext.deliveryOf(ctx, batch), { runtime: this.runtime, context: 'telemetry-ingest', apply: (em, batch) => this.ingest.apply(em, batch) });
  }
}
