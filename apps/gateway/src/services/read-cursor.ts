/**
 * Cursors of the connection-scoped stored reads (trips, drivers, groups, vehicles; spec 2.5-2.7,
 * 4.2): the same signed token as the sync list (libs/contracts cursor.ts, CURSOR_SECRET), bound to
 * the route, the consumer key, the connection, the key's credentialVersion (bumped by every grant
 * change), the connection's access epoch (bumped by every disconnect) and a hash of the filters —
 * so a cursor replayed with changed filters, on another connection, by another key, after a grant
 * change, across a disconnect or after tampering is `invalid_cursor`, one answer for every reason. The payload is the resource's keyset position plus the walk's horizon
 * (the directory's snapshot), checked against the resource's schema after the MAC.
 * `limit` and `expand` are not filters: changing them between pages is allowed.
 * Lifetime READ_CURSOR_TTL_MS (24 h, our choice; the spec names none for these reads): a walk
 * older than a day re-starts from a fresh horizon.
 */
import { decodeCursor, encodeCursor, filtersHash, type CursorBinding } from '@switchyard/contracts';
import type { z } from 'zod';
import type { ConsumerPrincipal } from '../auth/principal.js';

export const READ_CURSOR_TTL_MS = 24 * 60 * 60 * 1000;

function binding(principal: ConsumerPrincipal, route: string, filters: unknown): CursorBinding {
  return {
    route,
    consumerKeyId: principal.consumerKeyId,
    connectionId: principal.connectionId,
    credentialVersion: principal.credentialVersion,
    accessEpoch: principal.accessEpoch,
    filters: filtersHash(filters),
  };
}

export class ReadCursorCodec<T> {
  constructor(
    private readonly secret: string,
    /** e.g. `GET /v1/connections/{id}/trips`: a cursor of one route is refused by every other. */
    private readonly route: string,
    private readonly schema: z.ZodType<T>,
    private readonly now: () => number = Date.now,
  ) {}

  encode(principal: ConsumerPrincipal, filters: unknown, payload: T): string {
    return encodeCursor(payload, binding(principal, this.route, filters), { secret: this.secret, now: this.now(), ttlMs: READ_CURSOR_TTL_MS });
  }

  /** The payload, or undefined for any cursor that must be refused. */
  decode(principal: ConsumerPrincipal, filters: unknown, token: string): T | undefined {
    const decoded = decodeCursor(token, binding(principal, this.route, filters), { secret: this.secret, now: this.now(), schema: this.schema });
    return decoded.ok ? decoded.payload : undefined;
  }
}
