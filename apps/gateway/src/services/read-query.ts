/**
 * Query parsing shared by the stored-read routes (trips, drivers, groups, vehicles). Every problem
 * is 400 `invalid_query` with a `Switchyard-Error-Detail` naming the parameter (unknown parameters
 * are already refused by the validation pipe). One rule for every comma-separated list (id lists,
 * `expand`): an empty item is refused, a repeated value is accepted and counts once in the result,
 * but a limit counts the items as sent, repeats included (51 copies of one id exceed 50):
 * - id lists are ONE comma-separated parameter (`vehicleIds=vcl_…,vcl_…`); a repeated parameter,
 *   an empty item, a malformed id or more than `max` items is refused, never truncated; ids are
 *   read case-insensitively (http/entity-ids.ts), then de-duplicated and sorted, so the cursor
 *   binding does not depend on spelling or order;
 * - `limit` is a whole number within the route's range (its default when absent): digits outside
 *   it are `out_of_range`, anything else `malformed`;
 * - `expand` is a comma-separated subset of the route's expandable references;
 * - a time window is two date-times read by the one request date-time parser (http/instant.ts:
 *   RFC 3339, either case, within years 0001-9999), handed on in canonical form, `from` < `to`;
 * - the page byte budget: the directory fills `results` up to the response limit minus
 *   READ_ENVELOPE_RESERVE, which covers the rest of the page (status, times, coverage and a cursor
 *   of at most 8 KiB), so a response never exceeds the limit. The page also travels as ONE core
 *   NATS reply, whose size the server caps (max_payload, 1 MiB by default): the budget is the
 *   smaller of the two, so an oversized page ends early and continues with `next` instead of
 *   failing on the bus. Raise NATS_MAX_PAYLOAD_BYTES only together with the server's max_payload.
 */
import { parseLimit, type LimitRange } from '@switchyard/contracts';
import type { EntityKind } from '@switchyard/domain';
import { invalid } from '../http/api-error.js';
import { canonicalId } from '../http/entity-ids.js';
import { parseInstant } from '../http/instant.js';

export const READ_ENVELOPE_RESERVE = 16_384;
/** nats-server's default max_payload. */
export const NATS_MAX_PAYLOAD_BYTES = 1_048_576;

export function resultsByteBudget(responseByteLimit: number, busPayloadLimit = NATS_MAX_PAYLOAD_BYTES): number {
  return Math.min(responseByteLimit, busPayloadLimit) - READ_ENVELOPE_RESERVE;
}

export function limitOf(raw: string | undefined, range: LimitRange): number {
  const limit = parseLimit(raw, range);
  if (!limit.ok) throw invalid('invalid_query', 'query', 'limit', /^[0-9]+$/.test(raw ?? '') ? 'out_of_range' : 'malformed');
  return limit.value;
}

export function parseIdList(raw: string | undefined, kind: EntityKind, max: number): string[] {
  if (raw === undefined) return [];
  const name = `${kind}Ids`;
  const items = listItems(raw, name);
  if (items.length > max) throw invalid('invalid_query', 'query', name, 'too_many');
  const ids = items.map((item) => canonicalId(kind, item));
  if (ids.some((id) => id === undefined)) throw invalid('invalid_query', 'query', name, 'malformed');
  return [...new Set(ids as string[])].sort();
}

export function parseExpand<E extends string>(raw: string | undefined, allowed: readonly E[]): Record<E, boolean> {
  const asked = raw === undefined ? [] : listItems(raw, 'expand');
  if (asked.some((e) => !(allowed as readonly string[]).includes(e))) throw invalid('invalid_query', 'query', 'expand', 'not_allowed');
  return Object.fromEntries(allowed.map((e) => [e, asked.includes(e)])) as Record<E, boolean>;
}

/** The items of one comma-separated parameter; an empty item (`a,,b`, `a,`, ``) is refused. */
function listItems(raw: string, name: string): string[] {
  const items = raw.split(',');
  if (items.some((item) => item === '')) throw invalid('invalid_query', 'query', name, 'empty_item');
  return items;
}

const instant = (name: string, v: string | undefined): { iso: string; ms: number } | undefined => {
  if (v === undefined) return undefined;
  const parsed = parseInstant(v);
  if (!parsed.ok) throw invalid('invalid_query', 'query', name, parsed.reason);
  return parsed;
};

export function parseWindow(from: string | undefined, to: string | undefined): { from?: string; to?: string } {
  const [a, b] = [instant('from', from), instant('to', to)];
  if (a !== undefined && b !== undefined && a.ms >= b.ms) throw invalid('invalid_query', 'query', 'from', 'not_before_to');
  return { ...(a !== undefined ? { from: a.iso } : {}), ...(b !== undefined ? { to: b.iso } : {}) };
}
