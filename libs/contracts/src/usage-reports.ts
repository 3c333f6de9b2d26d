/**
 * Limits of the usage reports (spec 2.10 Counter/Utilization, 4.4; definitions docs/metrics.md; the
 * spec names none beyond maxObservationGapSeconds, these are ours and the OpenAPI document states them):
 * - a window spans at most 93 days (a quarter); hourly intervals at most 31 days (744 buckets);
 * - a FleetUtilization page holds at most 100 vehicles (default 25).
 */
import type { LimitRange } from './pagination.js';

export const USAGE_WINDOW_MAX_DAYS = 93;
export const USAGE_WINDOW_MAX_MS = USAGE_WINDOW_MAX_DAYS * 24 * 60 * 60 * 1000;
export const USAGE_HOURLY_MAX_DAYS = 31;
export const USAGE_HOURLY_MAX_MS = USAGE_HOURLY_MAX_DAYS * 24 * 60 * 60 * 1000;
export const FLEET_UTILIZATION_PAGE = { min: 1, max: 100, default: 25 } as const satisfies LimitRange;
