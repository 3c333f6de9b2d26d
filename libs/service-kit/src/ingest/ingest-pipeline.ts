/**
 * The receiving half of the collection pipeline: check the connection, claim the batch in the
 * ledger, apply it, store the provider cursor and the publication mark — all in ONE transaction —
 * then run the after-commit step (fault-feed publishes its outbox), then publish the receipt
 * (msgId `receipt:<batchId>`), and only then return, which acks.
 *
 * A transaction may carry several deliveries at once (a group, `commitGroup`): the committer of
 * group-commit.ts gathers the deliveries that wait while earlier groups commit, so a busy consumer
 * pays the transaction's fixed statements (claim, ledger, cursor, publication mark, commit) once
 * per group instead of once per batch (issue 26; decision 0038). `handleIngestDelivery` is a
 * group of one.
 *
 * Invariants: nothing is acked before its commit (a crash anywhere redelivers, and the ledger
 * absorbs the repeat); a repeated batch commits nothing and re-sends the stored receipt unchanged;
 * a batch for a connection this context does not know is retried for a short grace (the config
 * projection may lag the first batch by a moment) and then answered `rejected: connection_unknown`;
 * a disconnected connection is rejected at once — neither is retried forever. A batch whose
 * provider differs from the connection's is poison (dead-lettered), never guessed at. Those
 * decisions are taken per delivery before the group's transaction, so one delivery's retry or
 * poison never touches another's. Within a transaction the per-connection rows every batch
 * updates (provider cursor, publication mark) are written last, right before the commit: they are
 * the rows concurrent transactions of one connection queue on, so they are held for the commit
 * only, not for the batch's work.
 * Shared by directory, telemetry-ingest and fault-feed: each context's `@EventPattern` handler of
 * its INGEST durable calls `handleIngestDelivery` with its own `apply` (and fault-feed its outbox
 * flush as `afterCommit`), or submits to an IngestGroupCommitter; the bus transport settles the
 * delivery by how this returns.
 * Metrics (decision 0041), after the commit, per batch: batches by kind and outcome, records
 * committed by kind (rate() is rows/s), and the pipeline lag — commit time minus the batch's fetchedAt.
 */
import { type Delivery, EVENTS, type IngestBatchV1, type ConnectionConfigV1, PoisonMessage, type ReceiptContext, receiptMsgId, type ReceiptRejection, type ReceiptV1, RetryLater, subjectFor } from '@switchyard/messaging';
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
  /**
   * Writes the records of several batches inside one transaction (a group); returns the records
   * each accepted, in the batches' order. Without it a group applies its batches one by one.
   */
  applyGroup?: (em: Em, batches: readonly B[]) => Promise<number[]>;
  /** Runs after the commit and before the receipts (e.g. publishing an outbox); throwing naks. */
  afterCommit?: () => Promise<void>;
}

export interface IngestOutcome {
  duplicate: boolean;
  receipt: ReceiptV1 | null;
  /** This delivery committed the batch's records (not a duplicate, not rejected). */
  committed: boolean;
}

/** A delivery whose connection was checked: applied, or answered with `rejection`. */
export interface AdmittedDelivery<B extends IngestBatchV1> {
  readonly delivery: Delivery<B>;
  readonly rejection: ReceiptRejection | null;
}

/** The connection check of one delivery (see the header); throws RetryLater or PoisonMessage for that delivery alone. */
export function admission<B extends IngestBatchV1>(delivery: Delivery<B>, config: ConnectionConfigV1 | undefined): AdmittedDelivery<B> {
  const batch = delivery.payload;
  if (!config) {
    if (delivery.deliveryCount < UNKNOWN_CONNECTION_ATTEMPTS) throw new RetryLater(UNKNOWN_CONNECTION_RETRY_MS, 'connection not known yet');
    return { delivery, rejection: 'connection_unknown' };
  }
  if (config.provider !== batch.provider) throw new PoisonMessage('provider_mismatch', `batch ${batch.batchId} says ${batch.provider}`);
  return { delivery, rejection: config.status === 'disconnected' ? 'connection_disconnected' : null };
}

/** The configurations of the deliveries' connections, one statement for all. */
export function connectionConfigs(runtime: ServiceRuntime, deliveries: readonly Delivery<IngestBatchV1>[]): Promise<Map<string, ConnectionConfigV1>> {
  return new ConnectionConfigStore(runtime.orm).getMany([...new Set(deliveries.map((d) => d.payload.connectionId))]);
}

function receiptOf(batch: IngestBatchV1, context: ReceiptContext, rejection: ReceiptRejection | null, records: number, committedAt: string): ReceiptV1 | null {
  if (batch.syncId === null || batch.unitId === null || batch.fencingToken === null) return null;
  return {
    batchId: batch.batchId,
    connectionId: batch.connectionId,
    syncId: batch.syncId,
    unitId: batch.unitId,
    fencingToken: batch.fencingToken,
    context,
    kind: batch.kind,
    status: rejection ? 'rejected' : 'committed',
    reason: rejection,
    records,
    final: batch.final,
    committedAt,
  };
}

/**
 * Commits a group of admitted deliveries (distinct batch ids) in one transaction, then the
 * after-commit step, then every receipt; returns each delivery's outcome in order. A failure of
 * the transaction fails the whole group (the committer then retries its members one by one).
 */
export async function commitGroup<B extends IngestBatchV1>(group: readonly AdmittedDelivery<B>[], options: IngestPipelineOptions<B>): Promise<IngestOutcome[]> {
  const ledger = new IngestLedgerRepository();
  const batches = group.map((g) => g.delivery.payload);
  const outcomes = await inTransaction(options.runtime.orm, async (em): Promise<(IngestOutcome & { records: number })[]> => {
    const stored = await ledger.claimAll(em, batches);
    const fresh = group.filter((g) => !stored.has(g.delivery.payload.batchId));
    const applied = fresh.filter((g) => g.rejection === null).map((g) => g.delivery.payload);
    const counts = applied.length === 0 ? [] : options.applyGroup ? await options.applyGroup(em, applied) : await applyEach(em, applied, options.apply);
    const records = new Map(applied.map((b, i) => [b.batchId, counts[i] ?? 0]));
    const committedAt = new Date().toISOString();
    const done = fresh.map((g) => {
      const batch = g.delivery.payload;
      const n = records.get(batch.batchId) ?? 0;
      return { batchId: batch.batchId, status: g.rejection ? ('rejected' as const) : ('committed' as const), records: n, committedAt, receipt: receiptOf(batch, options.context, g.rejection, n, committedAt) };
    });
    // Last: the cursor and publication rows every batch of a connection updates are then held for the commit only.
    await ledger.finish(em, done, applied);
    crashPoint('in-commit');
    const receipts = new Map(done.map((d) => [d.batchId, d.receipt]));
    return group.map(({ delivery, rejection }) => {
      const b = delivery.payload;
      const earlier = stored.get(b.batchId);
      return earlier
        ? { duplicate: true, receipt: earlier.receipt, committed: false, records: 0 }
        : { duplicate: false, receipt: receipts.get(b.batchId) ?? null, committed: rejection === null, records: records.get(b.batchId) ?? 0 };
    });
  });
  crashPoint('after-commit-before-ack');
  outcomes.forEach((outcome, i) => recordIngest(options.runtime, batches[i] as B, outcome));
  await options.afterCommit?.();
  await Promise.all(
    outcomes.map(({ receipt: r }) => (r ? options.runtime.bus.publish(EVENTS.receipt, subjectFor(EVENTS.receipt.subject, r.syncId, r.unitId), r, { msgId: receiptMsgId(r.batchId) }) : undefined)),
  );
  group.forEach(({ delivery }, i) => {
    const batch = delivery.payload;
    const outcome = outcomes[i] as IngestOutcome;
    options.runtime.logger.debug(
      { batchId: batch.batchId, connectionId: batch.connectionId, kind: batch.kind, records: batch.records.length, duplicate: outcome.duplicate, status: outcome.receipt?.status, deliveryCount: delivery.deliveryCount, group: group.length },
      'ingest batch handled',
    );
  });
  return outcomes.map(({ duplicate, receipt, committed }) => ({ duplicate, receipt, committed }));
}

function recordIngest(runtime: ServiceRuntime, batch: IngestBatchV1, outcome: IngestOutcome & { records: number }): void {
  const { metrics } = runtime;
  metrics.child('ingestBatches', batch.kind, outcome.duplicate ? 'duplicate' : outcome.committed ? 'committed' : 'rejected').inc();
  if (!outcome.committed) return;
  metrics.child('ingestRecords', batch.kind).inc(outcome.records);
  const lagMs = Date.now() - Date.parse(batch.fetchedAt);
  if (Number.isFinite(lagMs)) metrics.child('ingestPipelineLag', batch.kind).observe(Math.max(0, lagMs) / 1000);
}

async function applyEach<B extends IngestBatchV1>(em: Em, batches: readonly B[], apply: (em: Em, batch: B) => Promise<number>): Promise<number[]> {
  const counts: number[] = [];
  for (const batch of batches) counts.push(await apply(em, batch));
  return counts;
}

/** One delivery through the pipeline: its connection check, then a group of one. */
export async function handleIngestDelivery<B extends IngestBatchV1>(delivery: Delivery<B>, options: IngestPipelineOptions<B>): Promise<IngestOutcome> {
  const configs = await connectionConfigs(options.runtime, [delivery]);
  const [outcome] = await commitGroup([admission(delivery, configs.get(delivery.payload.connectionId))], options);
  return outcome as IngestOutcome;
}
