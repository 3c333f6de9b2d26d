/**
 * The connection-health event's schema and message id (`EVENTS.connectionHealth` in subjects.ts,
 * sync-orchestrator → gateway and directory). The msgId makes one observation one stored message
 * inside the duplicate window however often the collector republishes it.
 */
/** Stable message id of one observation: `health:<connectionId>:<sequence>`. */
export function connectionHealthMsgId(event: { connectionId: string; sequence: string }): string {
  return `health:${event.connectionId}:${event.sequence}`;
}

export * from './schemas/connection-health.v1.js';
