/**
 * The durable consumer of `ingest.faults.*` (durable `fault-feed-ingest`, one consumer group shared
 * by every fault-feed process): each delivery goes through the ingest pipeline — one transaction
 * for occurrences + transitions (outbox) + ledger + provider cursor — then the outbox relay
 * publishes the transitions, then the receipt, then the ack. maxAckPending 16: batches of one
 * connection serialize on its advisory lock inside the transaction, other connections run in
 * parallel. Ack wait INGEST_ACK_WAIT_MS (default 60 s), maxDeliver 10 then the DLQ. The lifecycle (start after migrations,
 * drain on shutdown, settlement) is the bus transport's.
 */
import { Controller, Inject } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { CONSUMERS, type Consumes, type FaultBatchV1 } from '@switchyard/messaging';
import { handleIngestDelivery, RUNTIME, BusContext, type ServiceRuntime } from '@switchyard/service-kit';
import { FaultIngestService } from '../services/fault-ingest.service.js';
import { FaultOutboxRelay } from '../services/fault-outbox-relay.service.js';

@Controller()
export class IngestFaultsHandler {
  private readonly ingest = new FaultIngestService();

  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(FaultOutboxRelay) private readonly relay: FaultOutboxRelay,
  ) {}

  @EventPattern<Consumes<'faultFeedIngest'>>(CONSUMERS.faultFeedIngest.durable)
  async handle(@Payload() batch: FaultBatchV1, @Ctx() ctx: unknown): Promise<void> {
    await handleIngestDelivery(BusContext.deliveryOf(ctx, batch), {
      runtime: this.runtime,
      context: 'fault-feed',
      apply: (em, batch) => this.ingest.apply(em, batch),
      afterCommit: async () => {
        await this.relay.flush();
      },
    });
  }
}
