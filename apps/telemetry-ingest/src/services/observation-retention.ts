/**
 * Retention of observation history (issue 14, item 4; decision 0025): 400 days.
 * - Ingest stores no history observed before the horizon (`now − 400 days`): such a reading still
 *   moves the vehicle's latest reading (state, one row per vehicle and metric, kept without age),
 *   is counted in the log, and never recreates a dropped partition.
 * - Every process runs a pass a minute after start and then hourly (service-kit
 *   startRetentionPasses): it drops the monthly partitions of months wholly before the boundary —
 *   the first day of the month holding `now − 400 days − 1 day` — and deletes the usage rollups
 *   (15-minute slots, excluded intervals) before the same boundary, in chunks. The day between
 *   horizon and boundary means a batch that passed the horizon check a moment before a drop never
 *   writes into a dropped month (it would fail and be retried, then its old rows are refused).
 * So history and rollups always hold every reading of the last 400 days, and at most one more
 * month; reads reaching before that find nothing there (decision 0025: history pages hold what is
 * kept, usage counters report the dropped time as unobserved — `missing` or `partial`, never zero).
 */
import { HISTORY_RETENTION_DAYS } from '@switchyard/contracts';
import { sortLimitations, type UsageLimitation } from '@switchyard/domain';
import type { Orm } from '@switchyard/persistence';
import { ObservationRepository } from '../db/repositories/observation.repository.js';
import { UsageRollupRepository } from '../db/repositories/usage-rollup.repository.js';

const DAY_MS = 86_400_000;
/** The history horizon every store shares (libs/contracts history-retention.ts). */
export const OBSERVATION_RETENTION_DAYS = HISTORY_RETENTION_DAYS;
export const OBSERVATION_RETENTION_MS = OBSERVATION_RETENTION_DAYS * DAY_MS;
/** Margin between the ingest's horizon and the drop boundary (see the header). */
const DROP_MARGIN_MS = DAY_MS;
const CHUNK = 10_000;

/** The oldest observation time ingest still stores in history at `now`. */
export function observationHorizon(now: Date): Date {
  return new Date(now.getTime() - OBSERVATION_RETENTION_MS);
}

/**
 * A usage report's `limitations` with `window_beyond_retention` when its window starts before the
 * horizon at `now` (issue 25 item 2): the dropped time reads as unobserved (`missing` or `partial`),
 * and this reason tells it apart from time that was never collected.
 */
export function withRetentionLimit(limitations: UsageLimitation[], window: { startMs: number }, now = new Date()): UsageLimitation[] {
  return window.startMs < observationHorizon(now).getTime() ? sortLimitations([...limitations, 'window_beyond_retention']) : limitations;
}

/** The first instant still kept at `now`: the start of the month holding `now − retention − 1 day`. */
export function retentionBoundary(now: Date): Date {
  const edge = new Date(now.getTime() - OBSERVATION_RETENTION_MS - DROP_MARGIN_MS);
  return new Date(Date.UTC(edge.getUTCFullYear(), edge.getUTCMonth(), 1));
}

export interface ObservationPrune {
  /** The months whose partitions were dropped (`2025-01`). */
  months: string[];
  slots: number;
  excludedIntervals: number;
}

const observations = new ObservationRepository();
const rollups = new UsageRollupRepository();

/** One retention pass at `now`: drops old partitions, then the rollups before the same boundary. */
export async function pruneObservations(orm: Orm, now = new Date()): Promise<ObservationPrune> {
  const boundary = retentionBoundary(now);
  const months = await observations.dropPartitionsBefore(orm, boundary.toISOString().slice(0, 7));
  const pruned = { months, slots: 0, excludedIntervals: 0 };
  for (;;) {
    const chunk = await rollups.pruneBefore(orm.em.fork(), boundary, CHUNK);
    pruned.slots += chunk.slots;
    pruned.excludedIntervals += chunk.excludedIntervals;
    if (chunk.slots < CHUNK && chunk.excludedIntervals < CHUNK) return pruned;
  }
}
