/**
 * The vehicle-visibility event's schema and message id (`EVENTS.vehicleVisibility` in
 * subjects.ts, directory → other contexts). The msgId makes one computed set one stored message
 * however often the directory's outbox relay republishes it.
 */
/** Stable message id of one computed set: `visibility:<connectionId>:<sequence>`. */
export function vehicleVisibilityMsgId(event: { connectionId: string; sequence: string }): string {
  return `visibility:${event.connectionId}:${event.sequence}`;
}

export * from './schemas/vehicle-visibility.v1.js';
