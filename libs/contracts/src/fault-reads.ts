/**
 * Limits and retention of the fault reads (spec 2.9, 4.4, 6; the spec names none, these are ours
 * and the OpenAPI document, the catalog and docs/faults.md state them):
 * - a Faults page holds at most 100 open occurrences (default 100), like the other stored lists;
 * - a FaultEvents page holds at most 1,000 transitions (default 100);
 * - transitions stay readable on the HTTP feed for FAULT_EVENT_RETENTION_DAYS (90 days) after
 *   they were committed; a stored cursor that points before the oldest retained transition is
 *   refused with 400 `cursor_beyond_retention` (never silently moved forward: a skipped `opened`
 *   is an unhandled fault). The FAULTS stream keeps the subjects 30 days (libs/messaging STREAMS).
 */
import type { LimitRange } from './pagination.js';

export const FAULTS_PAGE = { min: 1, max: 100, default: 100 } as const satisfies LimitRange;
export const FAULT_EVENTS_PAGE = { min: 1, max: 1000, default: 100 } as const satisfies LimitRange;
export const FAULT_EVENT_RETENTION_DAYS = 90;
export const FAULT_EVENT_RETENTION_MS = FAULT_EVENT_RETENTION_DAYS * 24 * 60 * 60 * 1000;

/**
 * Explicit fault records (Geotab FaultData): an occurrence with no repeat record for this long
 * clears (`inactivity_timeout`, 7 days: longer than a weekend parked — a GO device repeats a fault
 * once per ignition cycle). The same span is how far the first read of a connection's records looks
 * back (sync-orchestrator's collector): a fault is active by that rule exactly when it has a record
 * within the last 7 days, so a shorter look-back misses faults already active when we start
 * watching, and a longer one only reads records the rule would clear on arrival. docs/faults.md.
 */
export const FAULT_INACTIVITY_TIMEOUT_MS = 7 * 24 * 60 * 60 * 1000;
