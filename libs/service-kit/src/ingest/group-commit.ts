/**
 * Group commit of ingest deliveries (decision 0038): a context's INGEST handler submits each
 * delivery here instead of committing it alone; while `concurrency` groups are in their
 * transactions, arriving deliveries wait, and the next free slot takes every waiting one (up to
 * `maxBatches` batches and `maxRecords` records) into ONE transaction (ingest-pipeline.ts
 * commitGroup). An idle consumer therefore commits a lone batch at once, as before; a busy one
 * pays the transaction's fixed work once per group — on the telemetry benchmark about 15
 * statements and a commit per ~700-row batch, most of the consumer's time under load.
 *
 * Invariants: a delivery's handler returns (and so acks) only after the commit of the group that
 * carried it and its receipt's publish; the connection check is per delivery (a RetryLater or a
 * poison answer fails that delivery only); a group never carries one batch id twice (a repeat
 * waits for the next group, whose claim finds the first commit); when a group's transaction fails
 * for anything but an outage, its members are committed again one by one, so one bad batch fails
 * (and is retried or dead-lettered) alone — an outage fails every member at once, and the bus
 * transport holds each (dependency-outage.ts). Waiting deliveries are bounded by the consumer's
 * maxAckPending (32 for telemetry): the transport delivers no more before some are settled.
 */
import type { ConnectionConfigV1, Delivery, IngestBatchV1 } from '@switchyard/messaging';
import { isInfrastructureFailure } from '../transport/dependency-outage.js';
import { admission, commitGroup, connectionConfigs, type AdmittedDelivery, type IngestOutcome, type IngestPipelineOptions } from './ingest-pipeline.js';

export interface GroupLimits {
  /** Batches per transaction at most. */
  readonly maxBatches: number;
  /** Records per transaction at most (a first batch over it still goes, alone). */
  readonly maxRecords: number;
  /** Group transactions at once: on a 2-core database more only queue on its CPUs and on each other's rows. */
  readonly concurrency: number;
}

/**
 * 32 batches = the telemetry ingest durable's maxAckPending (everything one process holds);
 * 32,000 records (16 full 2,000-record batches, ~25 MB of COPY text) keeps a group's transaction
 * at a few seconds on a loaded 2-core machine, far inside the 60 s ack wait; 2 at once lets one
 * group's database work overlap the next one's preparation.
 */
export const DEFAULT_GROUP_LIMITS: GroupLimits = { maxBatches: 32, maxRecords: 32_000, concurrency: 2 };

/** Test seams: the transaction and the connection lookup a group runs (default: the real pipeline's). */
export interface GroupCommitSeams<B extends IngestBatchV1> {
  commit?: (group: readonly AdmittedDelivery<B>[]) => Promise<IngestOutcome[]>;
  configs?: (deliveries: readonly Delivery<B>[]) => Promise<Map<string, ConnectionConfigV1>>;
}

interface Waiting<B extends IngestBatchV1> {
  readonly delivery: Delivery<B>;
  readonly resolve: (outcome: IngestOutcome) => void;
  readonly reject: (error: unknown) => void;
}

export class IngestGroupCommitter<B extends IngestBatchV1> {
  private readonly waiting: Waiting<B>[] = [];
  private running = 0;

  private readonly commit: (group: readonly AdmittedDelivery<B>[]) => Promise<IngestOutcome[]>;
  private readonly configs: (deliveries: readonly Delivery<B>[]) => Promise<Map<string, ConnectionConfigV1>>;

  constructor(
    private readonly options: IngestPipelineOptions<B>,
    private readonly limits: GroupLimits = DEFAULT_GROUP_LIMITS,
    seams: GroupCommitSeams<B> = {},
  ) {
    this.commit = seams.commit ?? ((group) => commitGroup(group, options));
    this.configs = seams.configs ?? ((deliveries) => connectionConfigs(options.runtime, deliveries));
  }

  /** Resolves once the delivery's batch is committed (or found committed) and its receipt published. */
  submit(delivery: Delivery<B>): Promise<IngestOutcome> {
    return new Promise<IngestOutcome>((resolve, reject) => {
      this.waiting.push({ delivery, resolve, reject });
      this.pump();
    });
  }

  /**
   * An idle committer starts a group at once (a lone batch is not delayed); a second concurrent
   * group starts only once half a group is waiting — starting it with whatever just arrived would
   * split the waiting batches into many small groups, each paying the fixed statements again.
   */
  private mayStart(): boolean {
    if (this.waiting.length === 0 || this.running >= this.limits.concurrency) return false;
    if (this.running === 0) return true;
    const records = this.waiting.reduce((n, w) => n + w.delivery.payload.records.length, 0);
    return this.waiting.length * 2 >= this.limits.maxBatches || records * 2 >= this.limits.maxRecords;
  }

  private pump(): void {
    while (this.mayStart()) {
      const group = this.take();
      this.running += 1;
      void this.run(group).finally(() => {
        this.running -= 1;
        this.pump();
      });
    }
  }

  /** The next group, in arrival order: stops at the limits; a repeated batch id stays waiting. */
  private take(): Waiting<B>[] {
    const group: Waiting<B>[] = [];
    const ids = new Set<string>();
    let records = 0;
    for (let i = 0; i < this.waiting.length && group.length < this.limits.maxBatches; ) {
      const next = this.waiting[i] as Waiting<B>;
      const batch = next.delivery.payload;
      if (ids.has(batch.batchId)) {
        i += 1;
        continue;
      }
      if (group.length > 0 && records + batch.records.length > this.limits.maxRecords) break;
      group.push(next);
      ids.add(batch.batchId);
      records += batch.records.length;
      this.waiting.splice(i, 1);
    }
    return group;
  }

  private async run(group: readonly Waiting<B>[]): Promise<void> {
    let configs: Map<string, ConnectionConfigV1>;
    try {
      configs = await this.configs(group.map((w) => w.delivery));
    } catch (error) {
      for (const w of group) w.reject(error);
      return;
    }
    const admitted: { waiting: Waiting<B>; delivery: AdmittedDelivery<B> }[] = [];
    for (const waiting of group) {
      try {
        admitted.push({ waiting, delivery: admission(waiting.delivery, configs.get(waiting.delivery.payload.connectionId)) });
      } catch (error) {
        waiting.reject(error);
      }
    }
    if (admitted.length === 0) return;
    try {
      const outcomes = await this.commit(admitted.map((a) => a.delivery));
      admitted.forEach((a, i) => a.waiting.resolve(outcomes[i] as IngestOutcome));
    } catch (error) {
      if (admitted.length === 1 || isInfrastructureFailure(error)) {
        for (const a of admitted) a.waiting.reject(error);
        return;
      }
      this.options.runtime.logger.warn({ group: admitted.length, err: error }, 'ingest group failed; committing its batches one by one');
      for (const a of admitted) {
        try {
          const [outcome] = await this.commit([a.delivery]);
          a.waiting.resolve(outcome as IngestOutcome);
        } catch (alone) {
          a.waiting.reject(alone);
        }
      }
    }
  }
}
