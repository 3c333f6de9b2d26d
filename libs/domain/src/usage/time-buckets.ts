/**
 * Local-time buckets of a usage report (docs/metrics.md "Intervals"): the edges of the local hours or
 * local days of an IANA time zone inside a window, as UTC instants. Pure: the zone's offsets come
 * from the runtime's `Intl` time-zone data, nothing else.
 * Invariants:
 * - the buckets tile the window exactly: the first starts at the window's start, the last ends at its
 *   end, each ends where the next starts; a bucket cut by the window's edge is the part inside it;
 * - a bucket is one local hour or one local calendar day, so a local day across a DST change lasts
 *   23 or 25 hours, and the repeated local hour of a fall-back change is two buckets (two distinct
 *   UTC hours); zones with 30- or 45-minute offsets get their own hour edges.
 */

export const BUCKET_SIZES = ['hour', 'day'] as const;
export type BucketSize = (typeof BUCKET_SIZES)[number];

const HOUR_MS = 3_600_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(zone, f);
  }
  return f;
}

/** Whether `zone` is an IANA time zone name the runtime knows (`Europe/Berlin`, `UTC`); offsets such as `+02:00` are not zones. */
export function isTimeZone(zone: unknown): zone is string {
  if (typeof zone !== 'string' || zone.length === 0 || zone.length > 64 || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone)) return false;
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/** The local wall-clock fields of `utcMs` in `zone`, as a UTC timestamp of the same fields (seconds precision). */
function localFieldsMs(zone: string, utcMs: number): number {
  const parts: Record<string, number> = {};
  for (const p of formatter(zone).formatToParts(new Date(utcMs))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return Date.UTC(parts['year'] ?? 1970, (parts['month'] ?? 1) - 1, parts['day'] ?? 1, parts['hour'] ?? 0, parts['minute'] ?? 0, parts['second'] ?? 0);
}

/** The zone's UTC offset at `utcMs` in milliseconds (local = UTC + offset). */
export function zoneOffsetMs(zone: string, utcMs: number): number {
  const whole = utcMs - (((utcMs % 1000) + 1000) % 1000);
  return localFieldsMs(zone, whole) - whole;
}

/** The earliest instant after `t` at which the zone's offset differs from its offset at `t`, if one lies in (t, limit]. */
function offsetChangeIn(zone: string, t: number, limit: number): number | undefined {
  const off = zoneOffsetMs(zone, t);
  if (zoneOffsetMs(zone, limit) === off) return undefined;
  let [lo, hi] = [t, limit]; // offset(lo) = off, offset(hi) ≠ off
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (zoneOffsetMs(zone, mid) === off) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** The first bucket edge strictly after `t`. */
function nextEdge(zone: string, size: BucketSize, t: number): number {
  const off = zoneOffsetMs(zone, t);
  const local = t + off;
  let candidate: number;
  if (size === 'hour') {
    candidate = t + (HOUR_MS - (((local % HOUR_MS) + HOUR_MS) % HOUR_MS));
  } else {
    const d = new Date(local);
    candidate = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1) - off;
  }
  // An offset change before the candidate moves the edge: a change is itself an edge for hours
  // (changes happen on whole local hours); for days the local midnight is recomputed with the new offset.
  const change = offsetChangeIn(zone, t, candidate - 1);
  if (change === undefined) return candidate;
  if (size === 'hour') return change;
  const d = new Date(local);
  const midnightLocal = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
  const after = midnightLocal - zoneOffsetMs(zone, change);
  return after > t ? after : change;
}

/** The bucket edges of [startMs, endMs): startMs, every local hour/day edge inside, endMs. */
export function bucketEdges(zone: string, size: BucketSize, startMs: number, endMs: number): number[] {
  const edges = [startMs];
  let t = startMs;
  for (;;) {
    t = nextEdge(zone, size, t);
    if (t >= endMs) break;
    edges.push(t);
  }
  edges.push(endMs);
  return edges;
}

/** How many buckets [startMs, endMs) splits into, without listing them beyond `cap` (+1 when more). */
export function bucketCount(zone: string, size: BucketSize, startMs: number, endMs: number, cap: number): number {
  let n = 1;
  let t = startMs;
  for (;;) {
    t = nextEdge(zone, size, t);
    if (t >= endMs || n > cap) return n;
    n++;
  }
}
