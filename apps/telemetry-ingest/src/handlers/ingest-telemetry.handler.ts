/**
 * The durable consumer of `ingest.telemetry.*` (durable `telemetry-ingest-ingest`, one consumer
 * group shared by every telemetry-ingest process): first the monthly partitions the batch needs
 * (own short transaction), then the ingest pipeline — one transaction for history + latest +
 * rollups + ledger + provider cursor, then the receipt, then the ack. Deliveries that arrive while
 * earlier ones commit are committed together, up to 32 batches (32,000 records) in one
 * transaction, two transactions at once (service-kit group-commit.ts, decision 0038).
 * maxAckPending 32; primary keys and the forward-only latest rule make the batches' order irrelevant.
 * The ack wait is INGEST_ACK_WAIT_MS (default 60 s, wide margin for a 2,000-row batch); maxDeliver
 * 10 then the DLQ.
 * The lifecycle (start after migrations, drain on shutdown, settlement) is the bus transport's.
 */
import { Controller, Inject } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { CONSUMERS, type Consumes, type TelemetryBatchV1 } from '@switchyard/messaging';
import { IngestGroupCommitter, RUNTIME, BusContext, type ServiceRuntime } from '@switchyard/service-kit';
import { recordProviderLag } from '../services/freshness-metrics.js';
import { TelemetryIngestService } from '../services/telemetry-ingest.service.js';

@Controller()
export class IngestTelemetryHandler {
  private readonly ingest: TelemetryIngestService;
  private readonly committer: IngestGroupCommitter<TelemetryBatchV1>;

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {
    // Readings past retention (decision 0025) are not an error: the batch commits, the log says so.
    this.ingest = new TelemetryIngestService({
      onBeyondRetention: (batchId, readings) => runtime.logger.warn({ batchId, readings }, 'observations older than the retention horizon kept as latest readings only, not as history'),
    });
    this.committer = new IngestGroupCommitter({
      runtime,
      context: 'telemetry-ingest',
      apply: (em, batch) => this.ingest.apply(em, batch),
      applyGroup: (em, batches) => this.ingest.applyGroup(em, batches),
    });
  }

  @EventPattern<Consumes<'telemetryIngest'>>(CONSUMERS.telemetryIngest.durable)
  async handle(@Payload() batch: TelemetryBatchV1, @Ctx() ctx: unknown): Promise<void> {
    await this.ingest.prepare(this.runtime.orm, batch);
    const outcome = await this.committer.submit(BusContext.deliveryOf(ctx, batch));
    // Provider lag of what this delivery committed (a duplicate or a rejection committed nothing).
    if (outcome.committed) recordProviderLag(this.runtime.metrics, batch.records);
  }
}
