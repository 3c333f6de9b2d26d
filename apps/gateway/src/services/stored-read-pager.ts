/**
 * The list frame every stored read shares (trips, vehicles, drivers, groups; spec 4.2), once:
 * parse `limit` (the route's range) and `expand` (the route's tuple), decode the cursor against the
 * route, key, connection, grant and filters (read-cursor.ts), hand the directory the page frame
 * (limit, byte budget, and after the first page the walk's horizon and keyset position), and sign
 * the reply's next position with the same horizon into `next`. A controller's list method only
 * adds its filters and maps the reply to its public page.
 * The page's cursor member follows the one paging convention (libs/messaging public-wire.v1.ts,
 * decision 0017): `link` is `{ next }` while more rows follow and `{}` on the last page — a
 * controller spreads it into its page (`nextCursorLink(link.next)` for the spec's nullable
 * `nextCursor` of Vehicles) and never writes the member itself.
 * Invariants: `next` is issued exactly when the directory says more rows follow and names where
 * (`hasMore` and `next`); a cursor that does not decode is `invalid_cursor`, never a first page;
 * a bad limit or expand is `invalid_query` before the cursor is looked at.
 */
import { parseLimit, type LimitRange } from '@switchyard/contracts';
import { nextPageLink, readHorizonV1 } from '@switchyard/messaging';
import { z } from 'zod';
import type { ConsumerPrincipal } from '../auth/principal.js';
import type { GatewaySettings } from '../config.js';
import { ApiError } from '../http/api-error.js';
import { ReadCursorCodec } from './read-cursor.js';
import { parseExpand, resultsByteBudget } from './read-query.js';

/** The query parameters the frame reads; the route's own filters stay with its controller. */
export interface PageQuery {
  limit?: string;
  cursor?: string;
  expand?: string;
}

/** What the directory needs of every page request (spread into the RPC request). */
export interface PageFrame<P, E extends string> {
  limit: number;
  maxBytes: number;
  expand: Record<E, boolean>;
  horizon?: string;
  after?: P;
}

/** What every page reply says about the walk. */
interface WalkReply<P> {
  horizon: string;
  hasMore: boolean;
  next?: P;
}

export interface StoredReadRoute<P, E extends string> {
  /** The route the cursor is bound to, e.g. `GET /v1/connections/{id}/trips`. */
  route: string;
  /** The keyset position the directory returns as `next` and takes back as `after`. */
  position: z.ZodType<P>;
  range: LimitRange;
  expandable: readonly E[];
}

export class StoredReadPager<P, E extends string> {
  private readonly cursors: ReadCursorCodec<{ h: string; p: P }>;
  private readonly maxBytes: number;

  constructor(
    settings: Pick<GatewaySettings, 'cursorSecret' | 'responseByteLimit'>,
    private readonly spec: StoredReadRoute<P, E>,
  ) {
    this.cursors = new ReadCursorCodec(settings.cursorSecret, spec.route, z.object({ h: readHorizonV1, p: spec.position }).strict());
    this.maxBytes = resultsByteBudget(settings.responseByteLimit);
  }

  /** Checks limit and expand of a query that is answered without a walk (one page, no cursor). */
  parse(query: PageQuery): { limit: number; expand: Record<E, boolean> } {
    const limit = parseLimit(query.limit, this.spec.range);
    if (!limit.ok) throw new ApiError('invalid_query');
    return { limit: limit.value, expand: parseExpand(query.expand, this.spec.expandable) };
  }

  /** One page of a walk: `request` sends the frame (plus the route's filters) to the context; a framed reply says where the walk is in its `meta`. */
  async page<R extends WalkReply<P> | { meta: WalkReply<P> }>(
    principal: ConsumerPrincipal,
    query: PageQuery,
    filters: object,
    request: (frame: PageFrame<P, E>) => Promise<R>,
  ): Promise<{ reply: R; link: { next?: string } }> {
    const { limit, expand } = this.parse(query);
    const position = query.cursor === undefined ? undefined : this.cursors.decode(principal, filters, query.cursor);
    if (query.cursor !== undefined && !position) throw new ApiError('invalid_cursor');
    const reply = await request({ limit, maxBytes: this.maxBytes, expand, ...(position ? { horizon: position.h, after: position.p } : {}) });
    const walk: WalkReply<P> = 'meta' in reply ? reply.meta : reply;
    const next = walk.hasMore && walk.next !== undefined ? this.cursors.encode(principal, filters, { h: walk.horizon, p: walk.next }) : undefined;
    return { reply, link: nextPageLink(next) };
  }
}

const isIn = <T extends string>(allowed: readonly T[], value: string): value is T => (allowed as readonly string[]).includes(value);

/** A value the public shape narrows (a status or code enum) checked, not cast: a context answering outside it is a 500. */
export function narrowed<T extends string>(allowed: readonly T[], value: string): T {
  if (isIn(allowed, value)) return value;
  throw new Error(`context answered ${value}, outside the public enum ${allowed.join(', ')}`);
}

export const narrowedOrNull = <T extends string>(allowed: readonly T[], value: string | null): T | null => (value === null ? null : narrowed(allowed, value));
