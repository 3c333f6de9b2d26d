/**
 * Cursors of the fault routes (spec 2.9, 4.4, 6):
 * - Faults (`GET …/faults`): a stored-read cursor (read-cursor.ts: bound to route, key,
 *   connection, grant and access epoch, 24 h) over the open sequence of the page's last occurrence;
 * - FaultEvents (`GET …/fault-events`): a DURABLE cursor — signed (CURSOR_SECRET, tamper-proof),
 *   bound only to the route and the connection, with no expiry: a client stores it and resumes
 *   next week, with another key of the same connection too (a key rotation must not lose a
 *   maintenance app its place). It carries the last sequence passed. Another connection's cursor,
 *   a tampered or malformed one is `invalid_cursor`; one before the retention horizon is
 *   `cursor_beyond_retention` (fault-feed decides, the cursor itself stays valid).
 */
import { decodeCursor, encodeCursor } from '@switchyard/contracts';
import { faultSequencePositionV1 } from '@switchyard/messaging';
import { z } from 'zod';

export const FAULT_EVENTS_ROUTE = 'GET /v1/connections/{id}/fault-events';

const eventsPosition = z.object({ s: faultSequencePositionV1 }).strict();

export class FaultEventCursorCodec {
  constructor(
    private readonly secret: string,
    private readonly now: () => number = Date.now,
  ) {}

  encode(connectionId: string, sequence: string): string {
    return encodeCursor({ s: sequence }, { route: FAULT_EVENTS_ROUTE, connectionId }, { secret: this.secret, now: this.now() });
  }

  /** The last sequence passed, or undefined for a cursor that must be refused. */
  decode(connectionId: string, token: string): string | undefined {
    const decoded = decodeCursor(token, { route: FAULT_EVENTS_ROUTE, connectionId }, { secret: this.secret, now: this.now(), schema: eventsPosition });
    return decoded.ok ? decoded.payload.s : undefined;
  }
}
