/**
 * The collector loop of one orchestrator process: lease admitted units (`leaseUnits`, FOR UPDATE
 * SKIP LOCKED, so several processes share the work), group them into jobs (collector-jobs.ts), run
 * up to COLLECTOR_CONCURRENCY jobs at once through the connection's adapter (adapter-factory.ts,
 * with the account's shared request budget), and publish each page to `ingest.<directory|telemetry|faults>.<connectionId>`
 * by the batch's kind (observations → telemetry, fault snapshots/records → faults, the rest → directory).
 *
 * Invariants:
 * - a batch accepted by JetStream is NOT completion: each batch is recorded in the unit's batch
 *   ledger (fenced) before it is published, and units complete only through the receipt consumer
 *   (receipt.consumer.ts) once the final batch and every other recorded batch of the unit's lease
 *   have a committed receipt;
 * - every held unit is heartbeated every LEASE_MS / 3 while queued or worked; a refused heartbeat
 *   (lease lost, sync retried) stops all work for that unit, while one that finds the unit
 *   receipted under its own token only ends its heartbeats (done, not lost); nothing ever ends a lease early —
 *   a cancelled sync's job stops at the next page boundary and its leases run out on their own;
 * - a job that ends normally marks every unit whose final batch it published as awaiting its
 *   receipts (`awaitReceipts`, RECEIPT_WAIT_MS): the unit is not leased again while its receipts
 *   can still come, even when the owning context commits slower than the lease; after that bound
 *   it is collected again (the receipts are presumed lost);
 * - throttling is pacing, not failure: a job that ends in `provider_throttled` (the HTTP client
 *   spent its retries on 429s) puts its units back, leasable again after the provider's
 *   Retry-After (at least THROTTLE_MIN_DELAY_MS), WITHOUT counting an error attempt — up to
 *   COLLECTOR_MAX_THROTTLE_REQUEUES times per unit and attempt, after which it counts like
 *   `provider_unavailable`. A bus that refuses or cannot take a batch (`bus_unavailable`: NATS
 *   unreachable, or a stream full and refusing publishes, decision 0026) is paced the same way,
 *   leasable again one lease period later: the page was not published and its cursor not saved,
 *   so the next lease fetches it again — nothing accepted is lost, and an outage or a backlog
 *   shorter than COLLECTOR_MAX_THROTTLE_REQUEUES lease periods does not fail the sync;
 * - failures: `provider_unavailable` and unexpected errors (recorded as `collector_error`) store
 *   the code on the unit and leave it to be re-leased when its lease expires, at most
 *   COLLECTOR_MAX_ATTEMPTS times, then the sync fails with that code; every other
 *   ProviderError code (auth, scope, config, response changed) and a gateway `provider_config_invalid`
 *   (no usable credentials) fail the sync at once with the code as `failureReason` — but only
 *   when the job still held one of its units (its fencing token took the error): a stale job of an
 *   earlier lease or attempt never fails the sync (e.g. a retried one);
 * - connection health (connection-health.publisher.ts): a job that published at least one page and
 *   ended without error reports `success`; a job that ended in a ProviderError reports `failure`
 *   with its code (nextRetryAt = when the lease runs out, for retryable codes). Other errors
 *   (collector bugs, no credentials) are not provider observations and report nothing. Telemetry
 *   work that asks for an extended metric reports under both scopes, `core` and `extended`
 *   (healthScopes in collector-jobs.ts), so the gateway's `extended_*` fields follow it — except
 *   what only the extended lane met (telemetry-lanes.ts, failure-codes.ts extendedLaneFailure): a
 *   refusal of the extended fields is the `extended` scope's failure while the job and `core`
 *   succeed; a passing failure there is reported under `extended` only. Each
 *   observation names the directory datasets the job feeds (healthDatasets), so the directory
 *   degrades only those datasets.
 * - skipped records (`Page.skipped`: a record the adapter read but could not or would not map — a
 *   trailer, a malformed record) never fail the page: each is logged with its source id and reason
 *   under the job's correlation id ("provider record skipped"), and the job's outcome line counts
 *   them (`skippedRecords`, at info whenever there are some, so an operator sees it without debug logs).
 */
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { EVENTS, type IngestBatchV1, type MessageBus, RpcError, subjectFor } from '@switchyard/messaging';
import { ProviderError } from '@switchyard/providers';
import { crashPoint, RUNTIME, runTraced, whenMigrated, type ServiceRuntime } from '@switchyard/service-kit';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { loadSyncOrchestratorSettings, SYNC_ORCHESTRATOR_SETTINGS, type CollectorSettings, type SyncOrchestratorSettings } from '../config.js';
import { isOpen } from '../domain/sync-state.js';
import type { FencedWrite, LeasedUnit } from '../db/repositories/unit-lease.repository.js';
import { ProviderAdapterFactory } from '../providers/adapter-factory.js';
import { UnitReceiptService } from '../services/unit-receipts.service.js';
import { ConnectionHealthPublisher } from './connection-health.publisher.js';
import { groupIntoJobs, healthDatasets, healthScopes, jobUnits, type CollectorJob } from './collector-jobs.js';
import { extendedLaneFailure, failureCode, RETRYABLE_CODES } from './failure-codes.js';
import { runJob } from './purpose-fetchers.js';

/** Shortest wait before a throttled unit is leased again (a 429 without a usable Retry-After). */
export const THROTTLE_MIN_DELAY_MS = 1_000;

/** How long a throttled unit waits: the provider's Retry-After when it sent one, never under THROTTLE_MIN_DELAY_MS. */
export function throttleDelayMs(error: unknown): number {
  const retryAfter = error instanceof ProviderError ? error.detail.retryAfterMs : undefined;
  return Math.max(THROTTLE_MIN_DELAY_MS, retryAfter ?? 0);
}

/** Publishes one ingest batch on its context's subject (msgId = batchId, deduplicated by JetStream). */
export async function publishIngestBatch(bus: MessageBus, batch: IngestBatchV1): Promise<void> {
  const options = { msgId: batch.batchId };
  switch (batch.kind) {
    case 'observations':
      await bus.publish(EVENTS.telemetryBatch, subjectFor(EVENTS.telemetryBatch.subject, batch.connectionId), batch, options);
      return;
    case 'fault_snapshots':
    case 'fault_records':
      await bus.publish(EVENTS.faultBatch, subjectFor(EVENTS.faultBatch.subject, batch.connectionId), batch, options);
      return;
    case 'vehicles':
    case 'drivers':
    case 'groups':
    case 'trips':
      await bus.publish(EVENTS.directoryBatch, subjectFor(EVENTS.directoryBatch.subject, batch.connectionId), batch, options);
  }
}

@Injectable()
export class CollectorService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly settings: CollectorSettings;
  /** Units this process holds a lease on, by unit id. */
  private readonly held = new Map<string, LeasedUnit>();
  private readonly lost = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private readonly queue: CollectorJob[] = [];
  private stopping = false;
  private loop: Promise<void> | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;

  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly units: UnitReceiptService,
    private readonly adapters: ProviderAdapterFactory,
    private readonly health: ConnectionHealthPublisher,
    @Inject(SYNC_ORCHESTRATOR_SETTINGS) settings?: SyncOrchestratorSettings,
  ) {
    this.settings = (settings ?? loadSyncOrchestratorSettings(process.env)).collector;
  }

  onApplicationBootstrap(): void {
    if (!this.settings.enabled) return;
    this.loop = whenMigrated(this.runtime).then((migrated) => (migrated && !this.stopping ? this.run() : undefined));
    this.heartbeatTimer = setInterval(() => void this.heartbeatAll(), Math.max(100, Math.floor(this.settings.leaseMs / 3)));
    this.heartbeatTimer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    await Promise.allSettled([...this.running]);
    clearInterval(this.heartbeatTimer);
  }

  private async run(): Promise<void> {
    const { concurrency, leaseBatch, leaseMs, pollMs } = this.settings;
    while (!this.stopping) {
      let leased = 0;
      try {
        if (this.queue.length === 0 && this.running.size < concurrency) {
          const units = await this.units.leaseUnits(this.owner, leaseBatch, { leaseMs });
          leased = units.length;
          for (const unit of units) this.held.set(unit.unitId, unit);
          this.queue.push(...groupIntoJobs(units));
        }
        while (this.running.size < concurrency) {
          const job = this.queue.shift();
          if (!job) break;
          this.start(job);
        }
      } catch (error) {
        this.runtime.logger.error({ err: error }, 'collector lease failed');
      }
      if (leased === 0 || this.running.size >= concurrency) await this.pause(pollMs);
    }
  }

  /** Sleeps `ms`, or until a job ends or shutdown begins. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private start(job: CollectorJob): void {
    // Under the creating request's correlation: every log line, provider-access request and batch
    // of the job carries it, and the owning context's commit and receipt after it. With tracing on,
    // the job is a span in the sync's trace (child of the create request's handler, whose
    // traceparent the sync row kept), parent of its provider calls and batches.
    const trace = jobUnits(job)[0]?.trace ?? { correlationId: `sync:${job.syncId}` };
    const attributes = { 'switchyard.sync.id': job.syncId, 'switchyard.connection.id': job.connectionId, 'switchyard.purpose': job.purpose, 'switchyard.units': jobUnits(job).length };
    const work = runTraced(this.runtime.tracing, `collect ${job.purpose}`, trace, { remote: true, attributes }, () => this.work(job)).finally(() => {
      for (const unit of jobUnits(job)) {
        this.held.delete(unit.unitId);
        this.lost.delete(unit.unitId);
      }
      this.running.delete(work);
      this.wake?.();
    });
    this.running.add(work);
  }

  private async work(job: CollectorJob): Promise<void> {
    const units = jobUnits(job);
    const log = this.runtime.logger.child({ syncId: job.syncId, connectionId: job.connectionId, units: units.length, purpose: job.purpose });
    let support: Readonly<Record<string, string>> | undefined;
    /** A passing failure of the extended lane (thrown on): it counts for the `extended` scope only. */
    let extendedLaneError: unknown;
    try {
      if (!isOpen((await this.units.syncStatus(job.syncId)) ?? 'failed')) return;
      const built = await this.adapters.adapterFor({ connectionId: job.connectionId });
      support = built.adapter.capabilities.fields;
      let published = false;
      let skippedRecords = 0;
      /** The extended lane's refusal (telemetry-lanes.ts): reported as the `extended` scope's outcome. */
      let extendedRefusal: string | null = null;
      /** Units whose final batch was recorded (and then published) by this job. */
      const finals = new Set<LeasedUnit>();
      const publish = async (batch: IngestBatchV1) => {
        published = true;
        await publishIngestBatch(this.runtime.bus, batch);
        crashPoint('after-publish');
      };
      await runJob(job, {
        adapter: built.adapter,
        provider: built.provider,
        proceed: async () => !this.stopping && isOpen((await this.units.syncStatus(job.syncId)) ?? 'failed'),
        held: (unit) => !this.lost.has(unit.unitId),
        record: async (unit, batches) => {
          crashPoint('after-fetch'); // record runs once per fetched page and unit, before anything is published
          const recorded = await this.units.recordBatches(unit.unitId, unit.fencingToken, batches.map((b) => ({ batchId: b.batchId, final: b.final })));
          if (!recorded) await this.refusedRecord(job.syncId, unit);
          else if (batches.some((b) => b.final)) finals.add(unit);
          return recorded;
        },
        publish,
        saveCursor: async (unit, cursor) => this.afterWrite(unit, 'cursor', await this.units.saveProviderCursor(unit.unitId, unit.fencingToken, cursor)),
        firstFaultPass: async () => !(await this.units.faultsCollected(job.connectionId)),
        skipped: (records) => {
          skippedRecords += records.length;
          // The adapter's reason names the field and the problem, never a value (no secrets, no payload).
          for (const record of records) log.info({ sourceId: record.sourceId, reason: record.reason }, 'provider record skipped');
        },
        extendedFailed: (error) => {
          const handling = extendedLaneFailure(error);
          if (handling === 'retry') extendedLaneError = error;
          if (handling !== 'refused') return false;
          extendedRefusal = failureCode(error);
          log.warn({ err: error, code: extendedRefusal }, 'the provider refused the extended telemetry; core readings stand');
          return true;
        },
      });
      if (skippedRecords > 0) log.info({ skippedRecords }, 'collector job published its pages');
      else log.debug({ skippedRecords }, 'collector job published its pages');
      for (const unit of finals) {
        if (!this.lost.has(unit.unitId)) await this.units.awaitReceipts(unit.unitId, unit.fencingToken, this.settings.receiptWaitMs);
      }
      if (published) {
        for (const scope of healthScopes(job, built.adapter.capabilities.fields)) {
          const refused = scope === 'extended' ? extendedRefusal : null;
          await this.health.report({ connectionId: job.connectionId, outcome: refused ? 'failure' : 'success', errorCode: refused, nextRetryAt: null, scope, datasets: healthDatasets(job) });
        }
      }
    } catch (error) {
      await this.fail(job, error, log, error === extendedLaneError ? ['extended'] : healthScopes(job, support ?? {}));
    }
  }

  /** `scopes`: the health scopes the failure counts for (only `core` when no adapter was built; only `extended` for a passing failure of the extended lane). */
  private async fail(job: CollectorJob, error: unknown, log: ServiceRuntime['logger'], scopes: readonly ('core' | 'extended')[]): Promise<void> {
    const code = failureCode(error);
    const retryable = RETRYABLE_CODES.has(code);
    log.warn({ err: error, code, retryable }, 'collector job failed');
    if (code === 'provider_auth_required') this.adapters.invalidate(job.connectionId);
    // The provider's own failure, or the gateway's report that the provider refused (or could not be
    // reached for) an OAuth refresh: either is the connection's health.
    if (error instanceof ProviderError || (error instanceof RpcError && (code === 'provider_auth_required' || code === 'provider_unavailable'))) {
      const nextRetryAt = retryable ? new Date(Date.now() + (code === 'provider_throttled' ? throttleDelayMs(error) : this.settings.leaseMs)).toISOString() : null;
      for (const scope of scopes) {
        await this.health.report({ connectionId: job.connectionId, outcome: 'failure', errorCode: code, nextRetryAt, scope, datasets: healthDatasets(job) });
      }
    }
    try {
      let attempts = 0;
      /** Whether this job still held any of its units (a current fencing token took the error). */
      let current = false;
      for (const unit of jobUnits(job)) {
        if (this.lost.has(unit.unitId)) continue;
        if (code === 'provider_throttled' || code === 'bus_unavailable') {
          // No more heartbeats: they would push the lease past the pause again.
          this.lost.add(unit.unitId);
          const delayMs = code === 'provider_throttled' ? throttleDelayMs(error) : this.settings.leaseMs;
          const requeues = await this.units.requeuePaced(unit.unitId, unit.fencingToken, delayMs, code);
          if (requeues === undefined || requeues <= this.settings.maxThrottleRequeues) continue;
        }
        const unitAttempts = await this.units.recordUnitError(unit.unitId, unit.fencingToken, code, retryable);
        if (unitAttempts === undefined) continue;
        current = true;
        attempts = Math.max(attempts, unitAttempts);
      }
      // A stale job (every unit re-leased, or the sync retried since: new tokens) changes nothing,
      // so a failure of an earlier attempt never fails the retried sync.
      if (current && (!retryable || attempts >= this.settings.maxAttempts)) await this.units.failSync(job.syncId, code);
      // Otherwise the units stay leased until their lease expires (no early release), then any
      // collector re-leases them and resumes from the saved provider cursor.
    } catch (bookkeeping) {
      log.error({ err: bookkeeping }, 'collector could not record a job failure; the lease will expire and the unit is re-leased');
    }
  }

  /**
   * What a heartbeat's or cursor save's outcome means for the unit. `receipted`: the unit's receipt
   * arrived before this write — after a unit's final batch the receipt consumer often beats the
   * cursor save (250 false warnings on a fresh sandbox's first scheduled run, issue 25) — so its
   * work is done and no lease was lost: no more heartbeats, no warning. `superseded` / `expired`:
   * the lease is lost (fencedOff).
   */
  private afterWrite(unit: LeasedUnit, write: 'heartbeat' | 'cursor', outcome: FencedWrite): void {
    if (outcome === 'written') return;
    if (outcome === 'receipted') this.held.delete(unit.unitId);
    else this.fencedOff(unit, write, outcome);
  }

  /**
   * A write under this unit's fencing token was refused (the lease ran out or was taken, or the
   * sync was retried or ended): stop all work on the unit and log each refused write, so an
   * operator sees a resumed collector being fenced off (the durable count of refusals by the token
   * is the unit's `fenced_writes`, migration 0014).
   */
  private fencedOff(unit: LeasedUnit, write: 'heartbeat' | 'record' | 'cursor', reason: 'superseded' | 'expired' | 'refused' = 'refused'): void {
    this.lost.add(unit.unitId);
    this.runtime.logger.warn({ unitId: unit.unitId, fencingToken: unit.fencingToken, write, reason }, 'lease lost: late write refused');
  }

  /**
   * `record` refused a fetched page: either the lease was lost (fenced off, above) or the sync
   * failed or was cancelled while the page was being fetched — then the page is dropped quietly,
   * nothing of it published, and the unit is left alone.
   */
  private async refusedRecord(syncId: string, unit: LeasedUnit): Promise<void> {
    if (isOpen((await this.units.syncStatus(syncId)) ?? 'failed')) {
      this.fencedOff(unit, 'record');
      return;
    }
    this.lost.add(unit.unitId);
    this.runtime.logger.info({ syncId, unitId: unit.unitId, fencingToken: unit.fencingToken }, 'sync ended: fetched page not published');
  }

  private async heartbeatAll(): Promise<void> {
    for (const unit of [...this.held.values()]) {
      if (this.lost.has(unit.unitId)) continue;
      try {
        this.afterWrite(unit, 'heartbeat', await this.units.heartbeat(unit.unitId, unit.fencingToken, this.settings.leaseMs));
      } catch (error) {
        this.runtime.logger.warn({ err: error, unitId: unit.unitId }, 'heartbeat failed; retrying on the next beat');
      }
    }
  }
}
