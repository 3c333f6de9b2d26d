/**
 * The connection-health event (sync-orchestrator → gateway), declared beside subjects.ts with its
 * schema so publisher and consumer parse with the same entry. It lives on the EVENTS stream
 * (`events.>`), so no stream changes; the msgId helper makes one observation one stored message
 * inside the duplicate window however often the collector republishes it.
 */
import type { ConsumerDefinition, EventDefinition } from './port.js';
import { connectionHealthV1 } from './schemas/connection-health.v1.js';
import { STREAMS } from './subjects.js';

export const CONNECTION_HEALTH_EVENT = {
  subject: 'events.connection.health.*',
  stream: STREAMS.EVENTS.name,
  schema: connectionHealthV1,
  version: 1,
} as const satisfies EventDefinition<typeof connectionHealthV1>;

/**
 * A durable consumer of the health events (gateway's connection row, directory's dataset status):
 * ackWait 30 s (one conditional write per message), maxAckPending 64 — every consumer's write is
 * order-safe, so parallel delivery is harmless.
 */
export function connectionHealthConsumer(durable: string): ConsumerDefinition<typeof connectionHealthV1> {
  return { durable, event: CONNECTION_HEALTH_EVENT, ackWaitMs: 30_000, maxDeliver: 10, maxAckPending: 64 };
}

/** Stable message id of one observation: `health:<connectionId>:<sequence>`. */
export function connectionHealthMsgId(event: { connectionId: string; sequence: string }): string {
  return `health:${event.connectionId}:${event.sequence}`;
}

export * from './schemas/connection-health.v1.js';
