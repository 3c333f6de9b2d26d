/**
 * Page-size parsing for query strings. Invariant: an out-of-range or malformed limit is refused with
 * `invalid_query`, never clamped — a client asking for 500 rows must learn the maximum is 100 rather
 * than silently get 100 and believe it has everything.
 */
import { DRIVER_PAGE_MAX, PROFILE_PAGE_MAX, SYNC_PAGE, TRIP_PAGE_MAX } from './limits.js';

export interface LimitRange {
  readonly min: number;
  readonly max: number;
  readonly default: number;
}

export type ParsedLimit = { readonly ok: true; readonly value: number } | { readonly ok: false; readonly error: 'invalid_query'; readonly detail: string };

// Plain decimal digits only: "+5", "5.0", "0x10", "1e2" and " 5" are refused, as is a leading zero.
const DIGITS = /^(0|[1-9]\d{0,8})$/;

/** Parses a `limit` query value (string from the URL, number from a parsed body, or absent). */
export function parseLimit(raw: unknown, range: LimitRange): ParsedLimit {
  const bad = (detail: string): ParsedLimit => ({ ok: false, error: 'invalid_query', detail });
  if (raw === undefined) return { ok: true, value: range.default };
  let n: number;
  if (typeof raw === 'number') {
    if (!Number.isInteger(raw)) return bad('limit must be an integer');
    n = raw;
  } else if (typeof raw === 'string') {
    if (!DIGITS.test(raw)) return bad('limit must be a whole number');
    n = Number(raw);
  } else {
    // Arrays come from a repeated parameter (?limit=1&limit=2).
    return bad('limit must be given once');
  }
  if (n < range.min || n > range.max) return bad(`limit must be between ${range.min} and ${range.max}`);
  return { ok: true, value: n };
}

/** Page-size ranges of the list routes. Trips, profiles and drivers default to their maximum. */
export const PAGE_RANGES = {
  syncs: SYNC_PAGE,
  trips: { min: 1, max: TRIP_PAGE_MAX, default: TRIP_PAGE_MAX },
  vehicleProfiles: { min: 1, max: PROFILE_PAGE_MAX, default: PROFILE_PAGE_MAX },
  drivers: { min: 1, max: DRIVER_PAGE_MAX, default: DRIVER_PAGE_MAX },
} as const satisfies Record<string, LimitRange>;
