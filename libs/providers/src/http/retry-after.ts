/**
 * `Retry-After` as milliseconds: delta-seconds, possibly fractional (Samsara sends `0.40235`), or
 * an HTTP date. Unparseable or negative values are ignored (undefined), never treated as 0.
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed) * 1000);
  // HTTP-date (IMF-fixdate), e.g. "Sun, 06 Nov 1994 08:49:37 GMT"; nothing looser.
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
