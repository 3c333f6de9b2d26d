/**
 * The port the scheduler creates a window's runs through, so the scheduler does not depend on how
 * runs are planned and stored (SyncLifecycleService.createScheduledRuns: the same internal-run
 * gates and purposes as createInternal, then the window's plan split into runs within `limits`
 * — `splitPlan`, decision 0009 — with origin SCHEDULED_ORIGIN).
 *
 * Invariant: every run of the window is written on the caller's transaction (`em`) — the one that
 * holds the claimed schedule row — so the window's runs and the schedule's move past its window
 * commit together or not at all: a window is covered only when all its parts exist.
 */
import type { ConnectionConfigV1 } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import type { PlanFailure, SyncPurpose } from '../domain/sync-planner.js';

export interface ScheduledRunRequest {
  readonly connectionId: string;
  /** The connection's projected configuration the decision was made on (approved vehicles, provider). */
  readonly config: ConnectionConfigV1;
  readonly purposes: readonly SyncPurpose[];
  readonly startFrom: Date;
  /** Exclusive end, also the runs' requestedAt. */
  readonly intervalEnd: Date;
  /** Limits of one run (SCHEDULE_RUN_MAX_UNITS / _BYTES, at most the plan limit of spec 4.1 rule 8). */
  readonly limits: { readonly maxUnits: number; readonly maxBytes: number };
}

/** Created: the window's runs (one, or the parts of a split plan, in plan order); else why none was. */
export type ScheduledRunResult = { readonly created: true; readonly syncIds: readonly string[] } | { readonly created: false; readonly reason: PlanFailure; readonly detail: string };

export interface ScheduledRunCreator {
  createScheduledRuns(em: Em, request: ScheduledRunRequest): Promise<ScheduledRunResult>;
}

export const SCHEDULED_RUN_CREATOR = Symbol('sync-orchestrator.scheduled-run-creator');
