/**
 * The durable consumer of `ingest.faults.*` (durable `fault-feed-ingest`, one consumer group shared
 * by every fault-feed process): each delivery goes through the ingest pipeline — one transaction
 * for occurrences + transitions (outbox) + ledger + provider cursor — then the outbox relay
 * publishes the transitions, then the receipt, then the ack. maxAckPending 16: batches of one
 * connection serialize on its advisory lock inside the transaction, other connections run in
 * parallel. Ack wait INGEST_ACK_WAIT_MS (default 60 s), maxDeliver 10 then the DLQ. The lifecycle (start after migrations,
 * drain on shutdown, settlement) is the bus transport's.
 * After the commit it also publishes `events.faults.observed.<connectionId>` (the time each vehicle's
 * faults were read up to, for Telemetry `faultsObservedAt`) for a batch it applied; a crash
 * between the commit and that publish loses one such event (the redelivery is answered by the
 * ledger without applying), which the vehicle's next fault batch supersedes.
 */
import { Controller, Inject } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { vehicleId } from '@switchyard/domain';
import { CONSUMERS, EVENTS, faultsObservedMsgId, subjectFor, type Consumes, type FaultBatchV1, type FaultsObservedV1 } from '@switchyard/messaging';
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
    let observed: FaultsObservedV1 | undefined;
    await handleIngestDelivery(BusContext.deliveryOf(ctx, batch), {
      runtime: this.runtime,
      context: 'fault-feed',
      apply: async (em, batch) => {
        const records = await this.ingest.apply(em, batch);
        observed = faultsObserved(batch);
        return records;
      },
      afterCommit: async () => {
        await this.relay.flush();
        if (observed) await this.runtime.bus.publish(EVENTS.faultsObserved, subjectFor(EVENTS.faultsObserved.subject, observed.connectionId), observed, { msgId: faultsObservedMsgId(observed.batchId) });
      },
    });
  }
}

/**
 * Per vehicle, the time the batch read its faults up to (docs/faults.md "faultsObservedAt"): a
 * snapshot's time (the read of the provider's current set); for a vehicle's read of explicit
 * records, its window's end, on the read's final batch only — also when the read found no record.
 * A records batch without `read` (an older collector): each vehicle's newest record. Undefined
 * when the batch observed no vehicle.
 */
export function faultsObserved(batch: FaultBatchV1): FaultsObservedV1 | undefined {
  const latest = new Map<string, string>();
  if (batch.kind === 'fault_records' && batch.read) {
    if (batch.final) latest.set(batch.read.vehicleSourceId, batch.read.windowEnd);
  } else {
    for (const record of batch.records) {
      const at = latest.get(record.vehicleSourceId);
      if (at === undefined || Date.parse(record.observedAt) > Date.parse(at)) latest.set(record.vehicleSourceId, record.observedAt);
    }
  }
  if (latest.size === 0) return undefined;
  const { connectionId, provider } = batch;
  return {
    connectionId,
    batchId: batch.batchId,
    vehicles: [...latest].map(([sourceId, observedAt]) => ({ vehicleId: vehicleId({ connectionId, provider, sourceId }), observedAt: new Date(observedAt).toISOString() })),
  };
}
