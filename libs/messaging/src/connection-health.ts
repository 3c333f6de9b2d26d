/**
 * The connection-health event (sync-orchestrator → gateway), declared beside subjects.ts with its
 * schema so publisher and consumer parse with the same entry. It lives on the EVENTS stream
 * (`events.>`), so no stream changes; the msgId helper makes one observation one stored message
 * inside the duplicate window however often the collector republishes it.
 */
import type { EventDefinition } from './port.js';
import { connectionHealthV1 } from './schemas/connection-health.v1.js';
import { STREAMS } from './subjects.js';

export const CONNECTION_HEALTH_EVENT = {
  subject: 'events.connection.health.*',
  stream: STREAMS.EVENTS.name,
  schema: connectionHealthV1,
  version: 1,
} as const satisfies EventDefinition<typeof connectionHealthV1>;

/** Stable message id of one observation: `health:<connectionId>:<sequence>`. */
export function connectionHealthMsgId(event: { connectionId: string; sequence: string }): string {
  return `health:${event.connectionId}:${event.sequence}`;
}

export * from './schemas/connection-health.v1.js';
