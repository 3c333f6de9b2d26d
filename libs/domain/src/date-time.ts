/**
 * RFC 3339 date-time checks (spec 2.3: "date-time (RFC 3339 style with Z or numeric offset)").
 * Invariant: a string passes only when it has the full shape (date, 'T', time, zone) and names a real
 * instant; `Date.parse` alone accepts far too much ("2024-01-01", "Jan 1 2024") to guard a contract.
 */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

export function isRfc3339DateTime(v: unknown): v is string {
  if (typeof v !== 'string') return false;
  const m = RFC3339.exec(v);
  if (!m) return false;
  const [, y, mo, d, h, mi, s, oh, om] = m.map(Number);
  if (mo < 1 || mo > 12 || h > 23 || mi > 59 || s > 60) return false;
  if (oh !== undefined && !Number.isNaN(oh) && (oh > 23 || om > 59)) return false;
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return d >= 1 && d <= daysInMonth;
}

/** Canonical wire form: UTC with milliseconds, e.g. 2024-09-01T06:03:40.000Z. */
export function toIsoUtc(d: Date | number): string {
  return new Date(d).toISOString();
}

/**
 * The one format every timestamp the public API emits has (see docs/architecture.md "Wire
 * conventions"): RFC 3339 in UTC with exactly millisecond precision, `YYYY-MM-DDTHH:mm:ss.sssZ` —
 * the form `Date.toISOString` and the stored reads' SQL (`isoSql`) produce.
 */
export const WIRE_DATE_TIME_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$';
const WIRE_DATE_TIME = new RegExp(WIRE_DATE_TIME_PATTERN);

/**
 * A date-time in the wire format: a provider's `2026-11-24T10:15:23Z`, `…23.5+02:00` or
 * `…23.123456Z` becomes `2026-11-24T08:15:23.500Z`-style UTC milliseconds (sub-millisecond digits
 * are cut, as JavaScript holds milliseconds). A value that names no instant, or one whose UTC year
 * leaves 0000-9999, is returned unchanged for the caller's own check to refuse.
 */
export function toWireDateTime(v: string): string {
  if (WIRE_DATE_TIME.test(v)) return v;
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) return v;
  const wire = new Date(ms).toISOString();
  return WIRE_DATE_TIME.test(wire) ? wire : v;
}
