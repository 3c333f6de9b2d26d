/**
 * The Geotab adapter's opaque cursors, and the time-slice paging that stands in for a cursor on
 * `Get` (which has none: only `search` dates and `resultsLimit`).
 *
 * Cursor kinds: `feed` = a GetFeed `toVersion` (Device, User, FaultData; resume point after a
 * restart), `slice` = (device index, slice start, slice width) for windowed `Get` paging, `offset`
 * = position in a caller-supplied vehicle list. Encoded as base64url JSON, so they are safe to
 * persist and contain only [A-Za-z0-9_-]. Invariant: a slice whose `Get` returned `resultsLimit`
 * rows may have been cut, so it is halved and re-read before anything from it is emitted — no
 * silent truncation until a slice is narrower than MIN_SLICE_MS.
 */
import type { SkippedRecord } from '../adapter.js';
import { ProviderError } from '../errors.js';

export type GeotabCursor =
  | { k: 'feed'; v: string }
  | { k: 'slice'; i: number; t: number; w: number }
  | { k: 'offset'; o: number; v?: string };

/** A slice is not halved below one minute; beyond that a full page is emitted as is. */
export const MIN_SLICE_MS = 60_000;

export function encodeCursor(cursor: GeotabCursor): string {
  return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

export function decodeCursor<K extends GeotabCursor['k']>(raw: string | null | undefined, kind: K): Extract<GeotabCursor, { k: K }> | null {
  if (!raw) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (!parsed || typeof parsed !== 'object' || (parsed as { k?: unknown }).k !== kind) {
    throw new ProviderError('provider_config_invalid', { path: 'geotab:cursor', message: `not a geotab ${kind} cursor` });
  }
  return parsed as Extract<GeotabCursor, { k: K }>;
}

export interface SliceWindow {
  fromMs: number;
  toMs: number;
  /** Devices to walk one by one; `[null]` means one pass over all devices. */
  devices: readonly (string | null)[];
}

export interface SliceRead<T> {
  /** Rows of the slice [t, end), already filtered to the slice. */
  rows: T[];
  /** True when some call of the slice returned `resultsLimit` rows (possibly cut). */
  full: boolean;
  /** Malformed rows of the slice's calls, reported on the page. */
  skipped?: readonly SkippedRecord[];
}

/**
 * Reads one slice page: halves the slice while `read` reports a full result, then computes the
 * next cursor (next slice of the same device, then the next device; the width grows again after a
 * sparse slice so a quiet window costs few calls).
 */
export async function readSlice<T>(
  window: SliceWindow,
  cursor: Extract<GeotabCursor, { k: 'slice' }> | null,
  read: (device: string | null, startMs: number, endMs: number) => Promise<SliceRead<T>>,
): Promise<{ device: string | null; startMs: number; endMs: number; rows: T[]; skipped: readonly SkippedRecord[]; next: string | null }> {
  const span = Math.max(1, window.toMs - window.fromMs);
  const state = cursor ?? { k: 'slice' as const, i: 0, t: window.fromMs, w: span };
  if (state.i >= window.devices.length || state.t >= window.toMs) return { device: null, startMs: state.t, endMs: state.t, rows: [], skipped: [], next: null };
  const device = window.devices[state.i];
  let width = Math.max(1, state.w);
  for (;;) {
    const endMs = Math.min(state.t + width, window.toMs);
    const result = await read(device, state.t, endMs);
    if (result.full && width > MIN_SLICE_MS) {
      width = Math.max(MIN_SLICE_MS, Math.floor(width / 2));
      continue;
    }
    let next: GeotabCursor | null = null;
    if (endMs < window.toMs) next = { k: 'slice', i: state.i, t: endMs, w: result.full ? width : Math.min(width * 2, span) };
    else if (state.i + 1 < window.devices.length) next = { k: 'slice', i: state.i + 1, t: window.fromMs, w: span };
    return { device, startMs: state.t, endMs, rows: result.rows, skipped: result.skipped ?? [], next: next ? encodeCursor(next) : null };
  }
}

export function parseWindowMs(from: string | undefined, to: string | undefined, nowMs: number): { fromMs: number; toMs: number } {
  const fromMs = from === undefined ? NaN : Date.parse(from);
  const toMs = to === undefined ? nowMs : Date.parse(to);
  if ((from !== undefined && Number.isNaN(fromMs)) || Number.isNaN(toMs)) {
    throw new ProviderError('provider_config_invalid', { path: 'geotab:window', message: 'window bounds must be RFC 3339 date-times' });
  }
  return { fromMs, toMs };
}

export const isoMs = (ms: number): string => new Date(ms).toISOString();
