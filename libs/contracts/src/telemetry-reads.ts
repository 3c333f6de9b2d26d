/**
 * Limits of the stored telemetry reads (spec 2.10, 4.2 locations, 4.4 telemetry and history; the
 * spec names none, these are ours and the OpenAPI document and catalog state them):
 * - a FleetLocations page holds at most 100 entries (default 100), like the other stored lists;
 * - a History page holds at most 1,000 readings (default 500) and never more than the response
 *   byte budget; the window may span at most 31 days (the observations table is partitioned by
 *   month, so a window touches at most two partitions).
 */
import type { LimitRange } from './pagination.js';

export const LOCATIONS_PAGE = { min: 1, max: 100, default: 100 } as const satisfies LimitRange;
export const HISTORY_PAGE = { min: 1, max: 1000, default: 500 } as const satisfies LimitRange;
export const HISTORY_WINDOW_MAX_DAYS = 31;
export const HISTORY_WINDOW_MAX_MS = HISTORY_WINDOW_MAX_DAYS * 24 * 60 * 60 * 1000;
