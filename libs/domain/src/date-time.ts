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
