/**
 * Scheduled collection (issue 4; spec 8 scheduler window): a loop in every orchestrator process
 * that, each SCHEDULER_TICK_MS,
 * 1. gives every projected connection a schedule row (due at once);
 * 2. stops the open scheduled runs of connections that were paused, disconnected or had their
 *    unified-collection gate closed: the run fails with that reason (`connection_paused`,
 *    `connection_disconnected`, `collection_gate_closed`). Collectors ask `proceed()` before every
 *    provider page, so a run stopped mid-flight makes no provider call after the page in flight;
 *    its leases are left to expire (spec 3 rule 2), and no unit of a stopped connection is leased
 *    (unit-lease.repository.ts). The next run after resuming covers the failed run's interval
 *    again (schedule-window.ts), so nothing is lost;
 * 3. claims due schedules one at a time (`FOR UPDATE SKIP LOCKED`, schedule.repository.ts) and, in
 *    the claim's transaction, either creates the window's internal runs through the
 *    ScheduledRunCreator port — one run, or several parts when the window's plan is over the run
 *    limits (SCHEDULE_RUN_MAX_UNITS / _BYTES, decision 0009), all or none — or records why it
 *    skipped, then moves the schedule to its next window.
 * Reads and cancel of public syncs never pass through here, so they keep working while collection
 * is stopped. A failing tick is logged and the next tick tries again; nothing here deletes data.
 */
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { inTransaction, type Em } from '@switchyard/persistence';
import { capabilitiesFor } from '@switchyard/providers';
import { crashPoint, RUNTIME, whenMigrated, type ServiceRuntime } from '@switchyard/service-kit';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadSyncOrchestratorSettings, SYNC_ORCHESTRATOR_SETTINGS, type SchedulerSettings, type SyncOrchestratorSettings } from '../config.js';
import { ScheduleRepository } from '../db/repositories/schedule.repository.js';
import { UnitReceiptService } from '../services/unit-receipts.service.js';
import { collectionStopReason, nextDueAt, runInterval, scheduleDecision, scheduledPurposes, windowStatus } from './schedule-window.js';
import { SCHEDULED_RUN_CREATOR, type ScheduledRunCreator } from './scheduled-run.port.js';

/** Decisions per tick at most; the rest stay due and the next tick takes them. */
const MAX_DECISIONS_PER_TICK = 1_000;

export interface TickReport {
  /** Connection and run ids of every window created (one decision each; several ids for a split window). */
  created: { connectionId: string; syncIds: readonly string[] }[];
  /** Connection and reason of every due schedule that created nothing. */
  skipped: { connectionId: string; reason: string }[];
  /** Open scheduled runs failed because their connection's collection stopped. */
  stopped: { connectionId: string; syncId: string; reason: string }[];
}

type Decided = { connectionId: string; syncIds: readonly string[] } | { connectionId: string; reason: string };

@Injectable()
export class CollectionScheduler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly schedules = new ScheduleRepository();
  private readonly settings: SchedulerSettings;
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly units: UnitReceiptService,
    @Inject(SCHEDULED_RUN_CREATOR) private readonly creator: ScheduledRunCreator,
    @Inject(SYNC_ORCHESTRATOR_SETTINGS) settings?: SyncOrchestratorSettings,
  ) {
    this.settings = (settings ?? loadSyncOrchestratorSettings(process.env)).scheduler;
  }

  onApplicationBootstrap(): void {
    if (!this.settings.enabled) return;
    this.loop = whenMigrated(this.runtime).then((migrated) => (migrated && !this.abort.signal.aborted ? this.run() : undefined));
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.abort.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.abort.signal.aborted) {
      try {
        await this.tick();
      } catch (error) {
        this.runtime.logger.error({ err: error }, 'scheduler tick failed; the next tick tries again');
      }
      await sleep(this.settings.tickMs, undefined, { signal: this.abort.signal }).catch(() => undefined);
    }
  }

  /** One pass (public so tests can drive a scheduler that is not looping). */
  async tick(): Promise<TickReport> {
    const orm = this.runtime.orm;
    const report: TickReport = { created: [], skipped: [], stopped: [] };
    await inTransaction(orm, (em) => this.schedules.ensureSchedules(em));

    for (const run of await inTransaction(orm, (em) => this.schedules.openRunsOfStoppedConnections(em))) {
      const reason = collectionStopReason(run.config);
      if (reason && (await this.units.failSync(run.syncId, reason))) report.stopped.push({ connectionId: run.connectionId, syncId: run.syncId, reason });
    }
    if (report.stopped.length > 0) this.runtime.logger.info({ stopped: report.stopped }, 'scheduled runs stopped: their connection no longer collects');

    for (let i = 0; i < MAX_DECISIONS_PER_TICK && !this.abort.signal.aborted; i++) {
      const decided = await inTransaction(orm, async (em) => {
        const decision = await this.decideOne(em);
        if (decision) crashPoint('scheduler-before-commit'); // a window decided, before COMMIT
        return decision;
      });
      if (!decided) break;
      if ('syncIds' in decided) report.created.push(decided);
      else report.skipped.push(decided);
    }
    if (report.created.length + report.skipped.length > 0) this.runtime.logger.debug({ created: report.created, skipped: report.skipped }, 'scheduler decisions');
    return report;
  }

  /** Claims one due schedule and decides its window, all in `em`'s transaction; undefined when none is due. */
  private async decideOne(em: Em): Promise<Decided | undefined> {
    const claimed = await this.schedules.claimDue(em);
    if (!claimed) return undefined;
    const { connectionId, config, now } = claimed;
    const next = { nextDueAt: nextDueAt(claimed.dueAt, now, this.settings.windowMs), decidedAt: now };
    // The previous window: all its parts, open while any part is (windowStatus).
    const status = claimed.previous && windowStatus(claimed.previous.statuses);
    const previous = claimed.previous && status && { status, startFrom: claimed.previous.startFrom, intervalEnd: claimed.previous.intervalEnd };
    const decision = scheduleDecision({ config, purposes: scheduledPurposes(config, capabilitiesFor(config.provider).fields), previousStatus: previous?.status });
    if (decision.action === 'skip') {
      await this.schedules.recordOutcome(em, connectionId, { ...next, decision: decision.reason });
      return { connectionId, reason: decision.reason };
    }
    const { startFrom, intervalEnd } = runInterval(claimed.coveredUntil, previous, now, this.settings);
    const result = await this.creator.createScheduledRuns(em, { connectionId, config, purposes: decision.purposes, startFrom, intervalEnd, limits: this.settings.runLimits });
    if (!result.created) {
      // Nothing to collect for the interval (e.g. trips alone and an empty one), or one vehicle's own work over the run limits: recorded, never truncated.
      await this.schedules.recordOutcome(em, connectionId, { ...next, decision: result.reason });
      return { connectionId, reason: result.reason };
    }
    await this.schedules.recordOutcome(em, connectionId, { ...next, decision: 'created', runs: { syncIds: result.syncIds, intervalEnd } });
    return { connectionId, syncIds: result.syncIds };
  }
}
