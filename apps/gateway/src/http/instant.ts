/**
 * The one date-time parser of every request input (query `from`/`to`, body `startFrom`), so the
 * same text is accepted or refused the same way wherever it appears:
 * - RFC 3339 with a `Z` or numeric offset (`isRfc3339DateTime`), `T`/`Z` in either case;
 * - a leap second (…:60) names no instant JavaScript can hold: refused as `malformed`;
 * - a space where the offset sign belongs is the `+` of an unencoded query string: refused with its
 *   own reason (`unencoded_plus`), so the caller learns to send `%2B`;
 * - the instant must lie in [0001-01-02T00:00:00.000Z, 9999-12-30T23:59:59.999Z]: the wire form
 *   (`isoDateTimeV1`) has four-digit UTC years and PostgreSQL refuses year 0, so anything outside
 *   would fail on the bus or in SQL (a 500) instead of answering 400 (`out_of_range`). The day of
 *   margin at each end keeps what a context derives from a request date representable too: the
 *   usage reports read observations 30 minutes around their window, and a window ending at
 *   9999-12-31T23:59 made them ask for year 10000 (a 500 found by system-tests odd-input).
 * The accepted value is handed on in the canonical wire form (`toISOString`: UTC, uppercase,
 * milliseconds), so `2024-01-01t00:00:00+02:00` and `2023-12-31T22:00:00Z` are the same filter.
 */
import { isRfc3339DateTime } from '@switchyard/domain';
import type { ErrorDetailReason } from './error-detail.js';

export const EARLIEST_INSTANT = '0001-01-02T00:00:00.000Z';
export const LATEST_INSTANT = '9999-12-30T23:59:59.999Z';
export const EARLIEST_INSTANT_MS = Date.parse(EARLIEST_INSTANT);
export const LATEST_INSTANT_MS = Date.parse(LATEST_INSTANT);

const UNENCODED_PLUS = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})? \d{2}:\d{2}$/;

export type ParsedInstant = { ok: true; iso: string; ms: number } | { ok: false; reason: Extract<ErrorDetailReason, 'malformed' | 'unencoded_plus' | 'out_of_range'> };

export function parseInstant(raw: string): ParsedInstant {
  if (UNENCODED_PLUS.test(raw)) return { ok: false, reason: 'unencoded_plus' };
  if (!isRfc3339DateTime(raw)) return { ok: false, reason: 'malformed' };
  const ms = Date.parse(raw.toUpperCase());
  if (Number.isNaN(ms)) return { ok: false, reason: 'malformed' };
  if (ms < EARLIEST_INSTANT_MS || ms > LATEST_INSTANT_MS) return { ok: false, reason: 'out_of_range' };
  return { ok: true, iso: new Date(ms).toISOString(), ms };
}
