/**
 * The one pager of every paged stored read (trips, vehicles, drivers, groups, fleet locations, open
 * faults, fleet utilization; spec 4.2, 4.4), once: parse `limit` (the route's range) and `expand`
 * (the route's tuple, if it has one), decode the cursor against the route, key, connection, grant
 * and filters (read-cursor.ts), hand the context the page frame (limit, byte budget, and after the
 * first page the walk's horizon and keyset position), and sign the reply's next position into
 * `next`. A controller's list method only adds its filters and maps the reply to its public page.
 * The cursor's payload is the walk (`cursor` of the route, its member names part of the format, so
 * a token issued before a deploy decodes after it): `{h, p}` — the horizon of a walk that keeps to
 * a snapshot and the position (directory lists, locations); or `{<key>: position}` alone for a walk
 * without a snapshot (`{p}` fleet utilization, `{s}` the open-fault sequence).
 * The page's cursor member follows the one paging convention (libs/messaging public-wire.v1.ts,
 * decision 0017): `link` is `{ next }` while more rows follow and `{}` on the last page — a
 * controller spreads it into its page (`nextCursorLink(link.next)` for the spec's nullable
 * `nextCursor` of Vehicles, FleetLocations, Faults and FleetUtilization) and never writes the
 * member itself.
 * Invariants: `next` is issued exactly when the context says more rows follow and names where
 * (`hasMore` and `next`); a cursor that does not decode is `invalid_cursor`, never a first page;
 * a bad limit or expand is `invalid_query` (naming the parameter) before the cursor is looked at.
 */
import { type LimitRange } from '@switchyard/contracts';
import { nextPageLink, readHorizonV1 } from '@switchyard/messaging';
import { z } from 'zod';
import type { ConsumerPrincipal } from '../auth/principal.js';
import type { GatewaySettings } from '../config.js';
import { ApiError } from '../http/api-error.js';
import { ReadCursorCodec } from './read-cursor.js';
import { limitOf, parseExpand, resultsByteBudget } from './read-query.js';

/** The query parameters the frame reads; the route's own filters stay with its controller. */
export interface PageQuery {
  limit?: string | undefined;
  cursor?: string | undefined;
  expand?: string | undefined;
}

/** What the context needs of every page request (spread into the RPC request); `expand` only on a route that has expandable references. */
export type PageFrame<P, E extends string> = {
  limit: number;
  maxBytes: number;
  horizon?: string;
  after?: P;
} & ([E] extends [never] ? unknown : { expand: Record<E, boolean> });

/** What every page reply says about the walk (a walk without a snapshot has no horizon). */
interface WalkReply<P> {
  horizon?: string;
  hasMore: boolean;
  next?: P;
}

/** How the cursor carries the walk: `{h, p}` (the default) or, for a walk without a snapshot, the position alone under `key`. */
export type CursorShape = { horizon: true } | { horizon: false; key: 'p' | 's' };

export interface StoredReadRoute<P, E extends string = never> {
  /** The route the cursor is bound to, e.g. `GET /v1/connections/{id}/trips`. */
  route: string;
  /** The keyset position the context returns as `next` and takes back as `after`. */
  position: z.ZodType<P>;
  range: LimitRange;
  expandable?: readonly E[];
  cursor?: CursorShape;
}

/** The walk a cursor carries, whatever member names the route's format gives it. */
interface Walk<P> {
  h?: string;
  p: P;
}

export class StoredReadPager<P, E extends string = never> {
  private readonly cursors: ReadCursorCodec<Record<string, unknown>>;
  private readonly maxBytes: number;
  private readonly shape: CursorShape;

  constructor(
    settings: Pick<GatewaySettings, 'cursorSecret' | 'responseByteLimit'>,
    private readonly spec: StoredReadRoute<P, E>,
  ) {
    this.shape = spec.cursor ?? { horizon: true };
    const payload: z.ZodType<Record<string, unknown>> = this.shape.horizon ? z.object({ h: readHorizonV1, p: spec.position }).strict() : z.object({ [this.shape.key]: spec.position }).strict();
    this.cursors = new ReadCursorCodec(settings.cursorSecret, spec.route, payload);
    this.maxBytes = resultsByteBudget(settings.responseByteLimit);
  }

  /** Checks limit and expand of a query that is answered without a walk (one page, no cursor). */
  parse(query: PageQuery): { limit: number; expand: Record<E, boolean> } {
    return { limit: limitOf(query.limit, this.spec.range), expand: parseExpand(query.expand, this.spec.expandable ?? []) };
  }

  /** One page of a walk: `request` sends the frame (plus the route's filters) to the context; a framed reply says where the walk is in its `meta`. */
  async page<R extends WalkReply<P> | { meta: WalkReply<P> }>(
    principal: ConsumerPrincipal,
    query: PageQuery,
    filters: object,
    request: (frame: PageFrame<P, E>) => Promise<R>,
  ): Promise<{ reply: R; link: { next?: string } }> {
    const { limit, expand } = this.parse(query);
    const payload = query.cursor === undefined ? undefined : this.cursors.decode(principal, filters, query.cursor);
    if (query.cursor !== undefined && !payload) throw new ApiError('invalid_cursor');
    const position = payload && this.walkOf(payload);
    const frame = { limit, maxBytes: this.maxBytes, ...(this.spec.expandable?.length ? { expand } : {}), ...(position?.h !== undefined ? { horizon: position.h } : {}), ...(position ? { after: position.p } : {}) };
    const reply = await request(frame as PageFrame<P, E>);
    const walk: WalkReply<P> = 'meta' in reply ? reply.meta : reply;
    const next = walk.hasMore && walk.next !== undefined ? this.cursors.encode(principal, filters, this.cursorOf(walk.horizon, walk.next)) : undefined;
    return { reply, link: nextPageLink(next) };
  }

  /** The walk of a decoded cursor (its payload passed the route's schema). */
  private walkOf(payload: Record<string, unknown>): Walk<P> {
    return this.shape.horizon ? { h: payload['h'] as string, p: payload['p'] as P } : { p: payload[this.shape.key] as P };
  }

  /** The payload written into a cursor, in the route's member names. */
  private cursorOf(horizon: string | undefined, next: P): Record<string, unknown> {
    if (!this.shape.horizon) return { [this.shape.key]: next };
    if (horizon === undefined) throw new Error(`${this.spec.route}: a walk over a snapshot answered without its horizon`);
    return { h: horizon, p: next };
  }
}

const isIn = <T extends string>(allowed: readonly T[], value: string): value is T => (allowed as readonly string[]).includes(value);

/** A value the public shape narrows (a status or code enum) checked, not cast: a context answering outside it is a 500. */
export function narrowed<T extends string>(allowed: readonly T[], value: string): T {
  if (isIn(allowed, value)) return value;
  throw new Error(`context answered ${value}, outside the public enum ${allowed.join(', ')}`);
}

export const narrowedOrNull = <T extends string>(allowed: readonly T[], value: string | null): T | null => (value === null ? null : narrowed(allowed, value));
