/**
 * The port the scheduler creates its runs through, so the scheduler does not depend on how a run is
 * planned and stored (SyncLifecycleService.createScheduledRun: the same internal-run planning as
 * createInternal — gates, `internalPurposes`, planner, one insert — with origin SCHEDULED_ORIGIN).
 *
 * Invariant: the run is written on the caller's transaction (`em`) — the one that holds the claimed
 * schedule row — so the run and the schedule's move past its window commit together or not at all.
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
  /** Exclusive end, also the run's requestedAt. */
  readonly intervalEnd: Date;
}

export type ScheduledRunResult = { readonly created: true; readonly syncId: string } | { readonly created: false; readonly reason: PlanFailure; readonly detail: string };

export interface ScheduledRunCreator {
  createScheduledRun(em: Em, request: ScheduledRunRequest): Promise<ScheduledRunResult>;
}

export const SCHEDULED_RUN_CREATOR = Symbol('sync-orchestrator.scheduled-run-creator');
