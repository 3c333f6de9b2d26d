/**
 * The adapter's opaque, resumable cursor for Samsara. One adapter listing may need several Samsara
 * cursor chains ("lanes"): drivers are listed once per activation status, stats take at most 3 types
 * per request, id filters are sent in chunks of 50. The cursor names the lane and Samsara's own
 * `endCursor` inside it, so a collector that stops between pages resumes exactly there — as long as
 * it repeats the same query (the lanes are derived from it).
 * Encoding: base64url of a small JSON object, which fits the public cursor pattern `[A-Za-z0-9_-]+`.
 */
import { ProviderError } from '../errors.js';

export interface LaneCursor {
  /** Index of the lane. */
  readonly l: number;
  /** Samsara `after` within the lane; null at the lane's start. */
  readonly a: string | null;
}

export function encodeLaneCursor(cursor: LaneCursor): string {
  return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

export function decodeLaneCursor(raw: string | null | undefined, lanes: number): LaneCursor {
  if (raw === null || raw === undefined || raw === '') return { l: 0, a: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const c = parsed as Partial<LaneCursor> | undefined;
  if (!c || typeof c !== 'object' || !Number.isInteger(c.l) || (c.a !== null && typeof c.a !== 'string') || (c.l as number) < 0 || (c.l as number) >= lanes) {
    // A cursor we did not issue for this query: a caller error, not a provider failure.
    throw new ProviderError('provider_config_invalid', { message: 'unrecognized Samsara cursor' });
  }
  return { l: c.l as number, a: c.a };
}

/** The cursor after a page of lane `l` whose Samsara continuation is `after`; null when all lanes are done. */
export function nextLaneCursor(l: number, after: string | null, lanes: number): string | null {
  if (after !== null) return encodeLaneCursor({ l, a: after });
  return l + 1 < lanes ? encodeLaneCursor({ l: l + 1, a: null }) : null;
}

/** Splits ids into request-sized chunks (Samsara caps `ids` of /trips/stream at 50; stats filters likewise, defensively). */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
