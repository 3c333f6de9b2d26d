/**
 * `events.connection.status.<connectionId>` v1: a connection's status changed (active, paused,
 * disconnected), published by the gateway from its outbox in the transaction of the change
 * (ConnectionsAdmin.apply: the operator's pause/resume/activate, the disconnect route). The full
 * configuration still travels on `events.connection.config.*`; this event names the transition,
 * which a snapshot cannot. Consumed by the gateway's webhook delivery role (`connection.paused`,
 * `connection.resumed`, `connection.disconnected`; docs/webhooks.md).
 * Invariant: `eventId` = nameUuid("connection-status", connectionId, revision) — the revision is
 * strictly increasing per connection, so the same change always has the same id.
 */
import { z } from 'zod';
import { providerV1 } from './connection-config.v1.js';

export const connectionStatusV1 = z.enum(['active', 'paused', 'disconnected']);

export const connectionStatusChangedV1 = z
  .object({
    eventId: z.uuid(),
    connectionId: z.uuid(),
    provider: providerV1,
    environment: z.enum(['sandbox', 'production']),
    previousStatus: connectionStatusV1,
    status: connectionStatusV1,
    /** The configuration revision that carries the new status. */
    revision: z.number().int().positive(),
    changedAt: z.iso.datetime({ offset: true }),
  })
  .strict()
  .refine((e) => e.previousStatus !== e.status, 'a status change changes the status');

export type ConnectionStatusChangedV1 = z.output<typeof connectionStatusChangedV1>;
