/**
 * The orchestrator's durable consumer of `receipt.*.*` (CONSUMERS.receipts, one consumer group
 * shared by every orchestrator process; not bound in a process whose collectors are off). A receipt is a context's answer to one
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
 * a database error throws and the message is redelivered (at least once).
 */
import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { CONSUMERS, type Consumes, receiptMsgId, type ReceiptV1 } from '@switchyard/messaging';
import { crashPoint, RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { UnitReceiptService, type BatchReceiptResult, type ReceiptResult } from '../services/unit-receipts.service.js';

export type ReceiptHandling = { action: 'receipted'; result: ReceiptResult } | { action: 'progress'; batch: BatchReceiptResult } | { action: 'rejected'; failed: boolean };

@Controller()
export class ReceiptHandler {
  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly units: UnitReceiptService,
  ) {}

  @EventPattern<Consumes<'receipts'>>(CONSUMERS.receipts.durable)
  async handle(@Payload() receipt: ReceiptV1): Promise<ReceiptHandling> {
    if (receipt.status === 'rejected') {
      const reason = receipt.reason ?? 'ingest_rejected';
      const failed = await this.units.failSyncForUnit(receipt.unitId, receipt.fencingToken, reason);
      this.runtime.logger.warn({ syncId: receipt.syncId, unitId: receipt.unitId, context: receipt.context, reason, failed }, 'ingest batch rejected');
      return { action: 'rejected', failed };
    }
    const batch = await this.units.commitBatchReceipt(receipt.unitId, receipt.fencingToken, receipt.batchId, receipt.committedAt);
    crashPoint('receipt-after-ledger'); // the batch committed in the unit's ledger, the unit not marked receipted, not acked
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
