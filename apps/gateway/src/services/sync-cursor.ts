/**
 * Cursors of GET /v1/syncs (spec 4.1 rule 6): signed with the gateway's CURSOR_SECRET (the
 * orchestrator never sees them), valid 15 minutes, and bound to the application, the connection,
 * the credentialVersion the caller authenticated with, the Connection-Token it came with, the
 * connection's access epoch (bumped by every disconnect) and the status filter — so a cursor
 * replayed with another filter, after a grant or credential change, with another (e.g. rotated)
 * Connection-Token, across a disconnect, by another application, after expiry or after tampering
 * is refused as `invalid_cursor`. (Issuing or revoking a token does not move credentialVersion, so
 * the token itself must be in the binding.) The payload is the fixed creation horizon of the first
 * page (the orchestrator's opaque snapshot) and the keyset position of the last row served.
 */
import { decodeCursor, encodeCursor, filtersHash, SYNC_CURSOR_TTL_MS, type CursorBinding } from '@switchyard/contracts';
import { syncListHorizonV1 } from '@switchyard/messaging';
import { z } from 'zod';
import type { ApplicationPrincipal } from '../auth/principal.js';

const iso = z.iso.datetime({ offset: true });
const payloadSchema = z.object({ h: syncListHorizonV1, r: iso, i: z.string().min(1).max(64) }).strict();

export interface SyncListPosition {
  horizon: string;
  after: { requestedAt: string; id: string };
}

function binding(principal: ApplicationPrincipal, status: string | undefined): CursorBinding {
  return {
    route: 'GET /v1/syncs',
    applicationId: principal.applicationId,
    connectionId: principal.connectionId,
    credentialVersion: principal.credentialVersion,
    accessEpoch: principal.accessEpoch,
    connectionTokenId: principal.connectionTokenId,
    filters: filtersHash({ status: status ?? null }),
  };
}

export class SyncCursorCodec {
  constructor(
    private readonly secret: string,
    private readonly now: () => number = Date.now,
  ) {}

  encode(principal: ApplicationPrincipal, status: string | undefined, position: SyncListPosition): string {
    return encodeCursor({ h: position.horizon, r: position.after.requestedAt, i: position.after.id }, binding(principal, status), {
      secret: this.secret,
      now: this.now(),
      ttlMs: SYNC_CURSOR_TTL_MS,
    });
  }

  /** The position, or undefined for any cursor that must be refused (one answer for every reason). */
  decode(principal: ApplicationPrincipal, status: string | undefined, token: string): SyncListPosition | undefined {
    const decoded = decodeCursor(token, binding(principal, status), { secret: this.secret, now: this.now(), schema: payloadSchema });
    if (!decoded.ok) return undefined;
    return { horizon: decoded.payload.h, after: { requestedAt: decoded.payload.r, id: decoded.payload.i } };
  }
}
