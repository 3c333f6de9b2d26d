/**
 * The receiving half of the collection pipeline, one delivery at a time: check the connection,
 * claim the batch in the ledger, apply it, store the provider cursor and the publication mark —
 * all in ONE transaction — then run the after-commit step (fault-feed publishes its outbox), then
 * publish the receipt (msgId `receipt:<batchId>`), and only then return, which acks.
 *
 * Invariants: nothing is acked before its commit (a crash anywhere redelivers, and the ledger
 * absorbs the repeat); a repeated batch commits nothing and re-sends the stored receipt unchanged;
 * a batch for a connection this context does not know is retried for a short grace (the config
 * projection may lag the first batch by a moment) and then answered `rejected: connection_unknown`;
 * a disconnected connection is rejected at once — neither is retried forever. A batch whose
 * provider differs from the connection's is poison (dead-lettered), never guessed at.
 * Shared by directory, telemetry-ingest and fault-feed: each context's `@EventPattern` handler of
 * its INGEST durable calls `handleIngestDelivery` with its own `apply` (and fault-feed its outbox
 * flush as `afterCommit`); the bus transport settles the delivery by how this returns.
 */
import { type Delivery, EVENTS, type IngestBatchV1, PoisonMessage, type ReceiptContext, receiptMsgId, type ReceiptRejection, type ReceiptV1, RetryLater, subjectFor } from '@switchyard/messaging';
import { inTransaction, type Em } from '@switchyard/persistence';
import { ConnectionConfigStore } from '../context/db/connection-config.repository.js';
import type { ServiceRuntime } from '../runtime.js';
import { crashPoint } from '../crash-points.js';
import { IngestLedgerRepository } from './db/ingest-ledger.repository.js';

/** Deliveries that wait for an unknown connection's config before rejecting: 5 × 2 s ≈ 10 s of grace. */
export const UNKNOWN_CONNECTION_ATTEMPTS = 5;
export const UNKNOWN_CONNECTION_RETRY_MS = 2_000;

export interface IngestPipelineOptions<B extends IngestBatchV1> {
  runtime: ServiceRuntime;
  context: ReceiptContext;
  /** Writes the batch's records inside the transaction; returns how many records it accepted. */
  apply: (em: Em, batch: B) => Promise<number>;
  /** Runs after the commit and before the receipt (e.g. publishing an outbox); throwing naks. */
  afterCommit?: () => Promise<void>;
}

export interface IngestOutcome {
  duplicate: boolean;
  receipt: ReceiptV1 | null;
}

async function rejectionFor<B extends IngestBatchV1>(delivery: Delivery<B>, configs: ConnectionConfigStore): Promise<ReceiptRejection | null> {
  const batch = delivery.payload;
  const config = await configs.get(batch.connectionId);
  if (!config) {
    if (delivery.deliveryCount < UNKNOWN_CONNECTION_ATTEMPTS) throw new RetryLater(UNKNOWN_CONNECTION_RETRY_MS, 'connection not known yet');
    return 'connection_unknown';
  }
  if (config.provider !== batch.provider) throw new PoisonMessage('provider_mismatch', `batch ${batch.batchId} says ${batch.provider}`);
  return config.status === 'disconnected' ? 'connection_disconnected' : null;
}

export async function handleIngestDelivery<B extends IngestBatchV1>(delivery: Delivery<B>, options: IngestPipelineOptions<B>): Promise<IngestOutcome> {
  const batch = delivery.payload;
  const ledger = new IngestLedgerRepository();
  const rejection = await rejectionFor(delivery, new ConnectionConfigStore(options.runtime.orm));
  const outcome = await inTransaction(options.runtime.orm, async (em): Promise<IngestOutcome> => {
    const stored = await ledger.claim(em, batch);
    if (stored) return { duplicate: true, receipt: stored.receipt };
    const records = rejection ? 0 : await options.apply(em, batch);
    if (!rejection) {
      if (batch.providerCursor !== null) await ledger.saveCursor(em, batch.connectionId, batch.kind, batch.providerCursor, batch.fetchedAt, batch.batchId);
      await ledger.publish(em, batch.connectionId, batch.kind, batch.fetchedAt, batch.final);
    }
    const committedAt = new Date().toISOString();
    const status = rejection ? 'rejected' : 'committed';
    const receipt: ReceiptV1 | null =
      batch.syncId !== null && batch.unitId !== null && batch.fencingToken !== null
        ? {
            batchId: batch.batchId,
            connectionId: batch.connectionId,
            syncId: batch.syncId,
            unitId: batch.unitId,
            fencingToken: batch.fencingToken,
            context: options.context,
            kind: batch.kind,
            status,
            reason: rejection,
            records,
            final: batch.final,
            committedAt,
          }
        : null;
    await ledger.complete(em, batch.batchId, { status, records, committedAt, receipt });
    crashPoint('in-commit');
    return { duplicate: false, receipt };
  });
  crashPoint('after-commit-before-ack');
  await options.afterCommit?.();
  if (outcome.receipt) {
    const r = outcome.receipt;
    await options.runtime.bus.publish(EVENTS.receipt, subjectFor(EVENTS.receipt.subject, r.syncId, r.unitId), r, { msgId: receiptMsgId(r.batchId) });
  }
  options.runtime.logger.debug(
    { batchId: batch.batchId, connectionId: batch.connectionId, kind: batch.kind, records: batch.records.length, duplicate: outcome.duplicate, status: outcome.receipt?.status, deliveryCount: delivery.deliveryCount },
    'ingest batch handled',
  );
  return outcome;
}
