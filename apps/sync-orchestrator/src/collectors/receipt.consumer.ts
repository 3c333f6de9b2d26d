/**
 * The orchestrator's durable consumer of `receipt.*.*` (durable `sync-orchestrator-receipts`, one
 * consumer group shared by every orchestrator process). A receipt is a context's answer to one
 * ingest batch, sent after the context committed it:
 * - `committed` → `commitBatchReceipt`: the batch is marked committed in the unit's batch ledger
 *   (`sync_unit_batch`, written by the collector before it published the batch). Contexts commit
 *   batches in parallel, so the final batch's receipt may arrive before an earlier batch of the
 *   unit committed: only when the final batch is recorded AND every recorded batch of the unit's
 *   current fencing token is committed does the consumer call `markUnitReceipted(unitId,
 *   fencingToken, …)` — the unit counts as done and the sync completes with its last unit. The
 *   receipt key is the completing receipt's msgId (`receipt:<batchId>`). Anything else is progress;
 *   a receipt under a stale token changes nothing;
 * - `rejected` (connection unknown to the context, or disconnected) → the sync fails with
 *   `failureReason` = the rejection reason (`connection_unknown` / `connection_disconnected`), but
 *   only while the receipt's fencing token is the unit's current one (failSyncForUnit).
 * Every outcome of markUnitReceipted (receipted, already receipted, stale token, sync not open,
 * unknown unit) is final, so the message is acked after the orchestrator's transaction returns;
 * a database error throws and the message is redelivered (at least once). Starts only once the
 * schema is migrated, like the ingest consumers.
 */
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { INGEST_EVENTS, receiptMsgId, type ConsumerDefinition, type Delivery, type ReceiptV1, type Subscription } from '@switchyard/messaging';
import { RUNTIME, whenMigrated, type ServiceRuntime } from '@switchyard/service-kit';
import { loadSyncOrchestratorSettings, SYNC_ORCHESTRATOR_SETTINGS, type SyncOrchestratorSettings } from '../config.js';
import { UnitReceiptService, type BatchReceiptResult, type ReceiptResult } from '../services/unit-receipts.service.js';

export const RECEIPT_DURABLE = 'sync-orchestrator-receipts';

export type ReceiptHandling = { action: 'receipted'; result: ReceiptResult } | { action: 'progress'; batch: BatchReceiptResult } | { action: 'rejected'; failed: boolean };

@Injectable()
export class ReceiptConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  /** ackWait 30 s (one short transaction per receipt); maxAckPending 64: receipts of different units are independent. */
  static readonly consumer: ConsumerDefinition<typeof INGEST_EVENTS.receipt.schema> = {
    durable: RECEIPT_DURABLE,
    event: INGEST_EVENTS.receipt,
    ackWaitMs: 30_000,
    maxDeliver: 20,
    maxAckPending: 64,
  };

  private subscription: Subscription | undefined;
  private waiting: Promise<void> | undefined;
  private stopped = false;
  private readonly enabled: boolean;

  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly units: UnitReceiptService,
    @Inject(SYNC_ORCHESTRATOR_SETTINGS) settings?: SyncOrchestratorSettings,
  ) {
    this.enabled = (settings ?? loadSyncOrchestratorSettings(process.env)).collector.enabled;
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    this.waiting = whenMigrated(this.runtime)
      .then(async (migrated) => {
        if (!migrated || this.stopped) return;
        this.subscription = await this.runtime.bus.consume(ReceiptConsumer.consumer, (delivery: Delivery<ReceiptV1>) => this.handle(delivery.payload).then(() => undefined));
      })
      .catch((error: unknown) => this.runtime.logger.error({ err: error }, 'receipt consumer did not start'));
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.waiting;
    await this.subscription?.drain();
  }

  async handle(receipt: ReceiptV1): Promise<ReceiptHandling> {
    if (receipt.status === 'rejected') {
      const reason = receipt.reason ?? 'ingest_rejected';
      const failed = await this.units.failSyncForUnit(receipt.unitId, receipt.fencingToken, reason);
      this.runtime.logger.warn({ syncId: receipt.syncId, unitId: receipt.unitId, context: receipt.context, reason, failed }, 'ingest batch rejected');
      return { action: 'rejected', failed };
    }
    const batch = await this.units.commitBatchReceipt(receipt.unitId, receipt.fencingToken, receipt.batchId, receipt.committedAt);
    if (!batch.unitComplete) {
      this.runtime.logger.debug({ syncId: receipt.syncId, unitId: receipt.unitId, outcome: batch.outcome, pending: batch.pending }, 'batch receipt');
      return { action: 'progress', batch };
    }
    const result = await this.units.markUnitReceipted(receipt.unitId, receipt.fencingToken, {
      context: receipt.context,
      receiptKey: receiptMsgId(receipt.batchId),
      committedAt: batch.lastCommittedAt ?? receipt.committedAt,
    });
    this.runtime.logger.debug({ syncId: receipt.syncId, unitId: receipt.unitId, outcome: result.outcome, progress: result.progress }, 'unit receipt');
    return { action: 'receipted', result };
  }
}
