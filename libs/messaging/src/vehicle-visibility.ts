/**
 * The vehicle-visibility event (directory → other contexts), declared beside subjects.ts with its
 * schema like the connection-health event. It lives on the EVENTS stream (`events.>`), so no
 * stream changes; the msgId makes one computed set one stored message however often the
 * directory's outbox relay republishes it.
 */
import type { EventDefinition } from './port.js';
import { vehicleVisibilityChangedV1 } from './schemas/vehicle-visibility.v1.js';
import { STREAMS } from './subjects.js';

export const VEHICLE_VISIBILITY_EVENT = {
  subject: 'events.vehicle.visibility.*',
  stream: STREAMS.EVENTS.name,
  schema: vehicleVisibilityChangedV1,
  version: 1,
} as const satisfies EventDefinition<typeof vehicleVisibilityChangedV1>;

/** Stable message id of one computed set: `visibility:<connectionId>:<sequence>`. */
export function vehicleVisibilityMsgId(event: { connectionId: string; sequence: string }): string {
  return `visibility:${event.connectionId}:${event.sequence}`;
}

export * from './schemas/vehicle-visibility.v1.js';
