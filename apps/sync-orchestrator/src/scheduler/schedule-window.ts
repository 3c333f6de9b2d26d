/**
 * Window arithmetic and skip decisions of scheduled collection (spec 8 "Scheduler window: five-minute
 * default, with no exact freshness promise"). Pure: the scheduler (collection-scheduler.service.ts)
 * hands in the claimed schedule row, the connection's projected configuration and the previous
 * scheduled window, and stores what comes back.
 *
 * A window is created as one run, or as several (parts) when its plan is over the run limits
 * (`splitPlan`, decision 0009); all parts share the window's interval and are created together.
 * Wherever "the previous run" is read below it is the previous window: its parts' statuses combined
 * by `windowStatus` (open while any part is open, failed when any part failed).
 *
 * Decisions:
 * - cadence: a schedule is due at `nextDueAt`; after a decision (run or skip) the next due time is
 *   the first `dueAt + k × window` (k ≥ 1) after now, so a stalled scheduler resumes on its grid and
 *   never creates a burst of catch-up runs;
 * - interval: a run covers [start, now). start is where the last created run ended
 *   (`coveredUntil`); when that run FAILED (provider error, paused mid-run) its interval is covered
 *   again from its own start, so a failure never leaves a hole; the first run of a connection looks
 *   back `firstLookbackMs` (default one window). Skipped windows (paused, gate closed, previous run
 *   still open) leave `coveredUntil` where it was, so the next run catches the gap up. The start is
 *   never earlier than now − `maxCatchUpMs` (default one day): older history is a public sync's job
 *   (`lookbackDays`), not the scheduler's;
 * - purposes (`scheduledPurposes`): the public ones enabled on the connection plus the internal
 *   ones its signals allow (decision 0009), each only when the provider supports it — an
 *   unsupported purpose is left out of scheduled runs instead of blocking the schedule forever;
 * - skips, in this order: connection paused / disconnected, unified-collection gate closed, no
 *   purpose to collect, no approved vehicle (no approved selection: nothing is collected, not even
 *   the connection-level drivers and groups), a part of the previous window still
 *   requested/in_progress (no pile-up: the next window waits for the slowest part).
 */
import type { ConnectionConfig } from '@switchyard/domain';
import { internalPurposes } from '../domain/collection-scope.js';
import { ALL_SYNC_PURPOSES, PURPOSE_REQUIREMENTS, type SyncPurpose } from '../domain/sync-planner.js';
import { isOpen, type SyncStatus } from '../domain/sync-state.js';

export interface ScheduleWindowSettings {
  readonly windowMs: number;
  /** How far the first run of a connection reaches back. */
  readonly firstLookbackMs: number;
  /** Earliest start of any run, relative to now. */
  readonly maxCatchUpMs: number;
}

/** The last scheduled window the schedule row points at: its runs' combined status (`windowStatus`) and its interval. */
export interface PreviousScheduledRun {
  readonly status: SyncStatus;
  readonly startFrom: Date;
  readonly intervalEnd: Date;
}

export type ScheduleSkipReason =
  | 'connection_paused'
  | 'connection_disconnected'
  | 'collection_gate_closed'
  | 'no_purpose_enabled'
  | 'no_approved_vehicle'
  | 'previous_run_open';

export type ScheduleDecision = { readonly action: 'create'; readonly purposes: readonly SyncPurpose[] } | { readonly action: 'skip'; readonly reason: ScheduleSkipReason };

/**
 * The status of a window from its parts': open (the most advanced open status) while any part is
 * open, else `failed` when any part failed — the whole window is then covered again, a completed
 * part's units collected twice into idempotent stores, as a failed one-run window's receipted units
 * always were — else `completed`. Undefined for no part.
 */
export function windowStatus(parts: readonly SyncStatus[]): SyncStatus | undefined {
  if (parts.includes('in_progress')) return 'in_progress';
  if (parts.includes('requested')) return 'requested';
  if (parts.includes('failed')) return 'failed';
  return parts.length > 0 ? 'completed' : undefined;
}

/** The first `dueAt + k × windowMs` (k ≥ 1) strictly after `now`. */
export function nextDueAt(dueAt: Date, now: Date, windowMs: number): Date {
  if (!(windowMs > 0)) throw new RangeError(`nextDueAt: window ${windowMs}`);
  const behind = now.getTime() - dueAt.getTime();
  const steps = behind < 0 ? 1 : Math.floor(behind / windowMs) + 1;
  return new Date(dueAt.getTime() + steps * windowMs);
}

/** The interval [startFrom, intervalEnd = now) of the run created now. */
export function runInterval(coveredUntil: Date | null, previous: PreviousScheduledRun | undefined, now: Date, settings: ScheduleWindowSettings): { startFrom: Date; intervalEnd: Date } {
  let start: number;
  if (previous?.status === 'failed') start = previous.startFrom.getTime();
  else if (coveredUntil) start = coveredUntil.getTime();
  else start = now.getTime() - settings.firstLookbackMs;
  start = Math.max(start, now.getTime() - settings.maxCatchUpMs);
  return { startFrom: new Date(Math.min(start, now.getTime())), intervalEnd: now };
}

/**
 * The purposes a scheduled run of this connection collects (issue 4: entities, latest telemetry and
 * history of the selected signals, fault snapshots or records, trips): what `internalPurposes` keeps
 * of every purpose — public ones (vehicles, groupMemberships, trips) while enabled on the
 * connection; drivers and groups; telemetryLatest and telemetryHistory with a collectable selected
 * metric; faults with the `faults` signal — and the provider supports. The one place scheduled
 * purposes are chosen; the window's planning (SyncLifecycleService.createScheduledRuns) applies
 * `internalPurposes` again with the run's interval (windowed purposes drop out of an empty one).
 */
export function scheduledPurposes(config: ConnectionConfig, support: Readonly<Record<string, string>>): SyncPurpose[] {
  return internalPurposes(ALL_SYNC_PURPOSES, config, support, false).filter((p) => PURPOSE_REQUIREMENTS[p].every((field) => (support[field] ?? 'unsupported') !== 'unsupported'));
}

/** Why a connection's collection is stopped right now, or undefined when it may collect. */
export function collectionStopReason(config: Pick<ConnectionConfig, 'status' | 'unifiedCollection'>): 'connection_paused' | 'connection_disconnected' | 'collection_gate_closed' | undefined {
  if (config.status === 'paused') return 'connection_paused';
  if (config.status === 'disconnected') return 'connection_disconnected';
  if (!config.unifiedCollection) return 'collection_gate_closed';
  return undefined;
}

export function scheduleDecision(input: { config: ConnectionConfig; purposes: readonly SyncPurpose[]; previousStatus: SyncStatus | undefined }): ScheduleDecision {
  const stopped = collectionStopReason(input.config);
  if (stopped) return { action: 'skip', reason: stopped };
  if (input.purposes.length === 0) return { action: 'skip', reason: 'no_purpose_enabled' };
  if (input.config.approvedVehicleIds.length === 0) return { action: 'skip', reason: 'no_approved_vehicle' };
  if (input.previousStatus !== undefined && isOpen(input.previousStatus)) return { action: 'skip', reason: 'previous_run_open' };
  return { action: 'create', purposes: input.purposes };
}
