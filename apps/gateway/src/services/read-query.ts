/**
 * Query parsing shared by the stored-read routes (trips, drivers, groups, vehicles). Every problem
 * is 400 `invalid_query` (unknown parameters are already refused by the validation pipe):
 * - id lists are ONE comma-separated parameter (`vehicleIds=vcl_…,vcl_…`); a repeated parameter,
 *   an empty item, a malformed id or more than `max` ids is refused, never truncated; duplicates
 *   collapse and the list is sorted, so the cursor binding does not depend on spelling order;
 * - `expand` is a comma-separated subset of the route's expandable references;
 * - a time window is two date-times naming real instants, in the form the directory request schema
 *   accepts (`isWireDateTime`: uppercase T and Z, no leap second; anything else would fail that
 *   schema on the bus and answer 500), `from` < `to` when both are given;
 * - the page byte budget: the directory fills `results` up to the response limit minus
 *   READ_ENVELOPE_RESERVE, which covers the rest of the page (status, times, coverage and a cursor
 *   of at most 8 KiB), so a response never exceeds the limit. The page also travels as ONE core
 *   NATS reply, whose size the server caps (max_payload, 1 MiB by default): the budget is the
 *   smaller of the two, so an oversized page ends early and continues with `next` instead of
 *   failing on the bus. Raise NATS_MAX_PAYLOAD_BYTES only together with the server's max_payload.
 */
import { isEntityId, type EntityKind } from '@switchyard/domain';
import { isWireDateTime } from '@switchyard/messaging';
import { ApiError } from '../http/api-error.js';

export const READ_ENVELOPE_RESERVE = 16_384;
/** nats-server's default max_payload. */
export const NATS_MAX_PAYLOAD_BYTES = 1_048_576;

export function resultsByteBudget(responseByteLimit: number, busPayloadLimit = NATS_MAX_PAYLOAD_BYTES): number {
  return Math.min(responseByteLimit, busPayloadLimit) - READ_ENVELOPE_RESERVE;
}

export function parseIdList(raw: string | undefined, kind: EntityKind, max: number): string[] {
  if (raw === undefined) return [];
  const items = raw.split(',');
  if (items.some((id) => !isEntityId(kind, id))) throw new ApiError('invalid_query');
  const ids = [...new Set(items)].sort();
  if (ids.length > max) throw new ApiError('invalid_query');
  return ids;
}

export function parseExpand<E extends string>(raw: string | undefined, allowed: readonly E[]): Record<E, boolean> {
  const asked = raw === undefined ? [] : raw.split(',');
  if (asked.some((e) => !(allowed as readonly string[]).includes(e))) throw new ApiError('invalid_query');
  return Object.fromEntries(allowed.map((e) => [e, asked.includes(e)])) as Record<E, boolean>;
}

const instant = (v: string | undefined): number | undefined => {
  if (v === undefined) return undefined;
  const ms = Date.parse(v);
  if (!isWireDateTime(v) || Number.isNaN(ms)) throw new ApiError('invalid_query');
  return ms;
};

export function parseWindow(from: string | undefined, to: string | undefined): { from?: string; to?: string } {
  const [a, b] = [instant(from), instant(to)];
  if (a !== undefined && b !== undefined && a >= b) throw new ApiError('invalid_query');
  return { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) };
}
