/**
 * A telemetry listing (latest or history) in two lanes run one after the other: the core metrics
 * (`location`, `odometer`), then the extended ones (collection-scope.ts) — two provider calls, as
 * the on-demand refresh makes them, so a provider that refuses the extended fields (a 403 on
 * Samsara's extended stat types) never costs the odometer and location (spec 4.4).
 *
 * The lanes live inside the listing's cursor (`{l: lane, c: provider cursor}`, collector-jobs.ts
 * LaneCursor): the core lane's last page continues with the extended lane's first, so the purpose
 * fetchers page, publish and resume (a re-leased unit resumes in the lane it stopped in) exactly
 * as for a one-call listing, and a unit's final batch comes with the last lane's last page. A
 * cursor of a lane the connection no longer collects (the opt-in turned off since) restarts the
 * listing. A failure of the extended lane goes to `ctx.extendedFailed` first (failure-codes.ts
 * extendedLaneFailure decides): a refusal ends the listing there (an empty last page), anything
 * else is thrown as from any listing.
 */
import type { Observation, TelemetryMetric } from '@switchyard/domain';
import type { Page } from '@switchyard/providers';
import { isExtendedMetric } from '../domain/collection-scope.js';
import { decodeLaneCursor, encodeLaneCursor } from './collector-jobs.js';

export type TelemetryLane = 'core' | 'extended';

export interface TelemetryLanePlan {
  readonly lane: TelemetryLane;
  readonly metrics: readonly TelemetryMetric[];
}

/** The non-empty lanes of `metrics`, core first. */
export function telemetryLanes(metrics: readonly TelemetryMetric[]): TelemetryLanePlan[] {
  const lanes: TelemetryLanePlan[] = [
    { lane: 'core', metrics: metrics.filter((m) => !isExtendedMetric(m)) },
    { lane: 'extended', metrics: metrics.filter(isExtendedMetric) },
  ];
  return lanes.filter((l) => l.metrics.length > 0);
}

const EMPTY: Page<never> = { items: [], next: null };

/**
 * The listing of `metrics` as one cursor-paged fetch (see the header). `fetch` asks the provider
 * for one page of some metrics; `extendedFailed` says whether a failure of the extended lane is
 * absorbed (true: the listing ends) or thrown.
 */
export function laneListing(
  metrics: readonly TelemetryMetric[],
  fetch: (metrics: readonly TelemetryMetric[], cursor: string | null) => Promise<Page<Observation>>,
  extendedFailed: (error: unknown) => boolean,
): (cursor: string | null) => Promise<Page<Observation>> {
  const lanes = telemetryLanes(metrics);
  const [first, ...rest] = lanes.map((l) => l.lane);
  return async (raw) => {
    if (first === undefined) return EMPTY;
    const at = decodeLaneCursor(raw, [first, ...rest]);
    const index = lanes.findIndex((l) => l.lane === at.lane);
    const lane = lanes[index] as TelemetryLanePlan;
    let page: Page<Observation>;
    try {
      page = await fetch(lane.metrics, at.cursor);
    } catch (error) {
      if (lane.lane === 'extended' && extendedFailed(error)) return EMPTY;
      throw error;
    }
    const following = lanes[index + 1];
    const next = page.next !== null ? encodeLaneCursor({ lane: lane.lane, cursor: page.next }) : following ? encodeLaneCursor({ lane: following.lane, cursor: null }) : null;
    return { ...page, next };
  };
}
