/**
 * The public shapes of connect sessions and disconnect (spec 2.8, 4.3): ConnectSession (what
 * `POST /v1/connections/{id}/connect-sessions` answers), SessionStatus (`GET …/{sessionId}`) and
 * Disconnect (`POST …/disconnect`). The gateway builds them from its own tables; there is no RPC.
 *
 * Invariants: `selected_signals` is null until the customer approved a selection, then 1 to 4
 * unique items of the four signals (spec 8 "Selected signals"); every timestamp is the wire form
 * (decision 0017). Nothing here ever carries a provider credential.
 */
import { z } from 'zod';
import { signalV1 } from './connection-config.v1.js';
import { wireDateTimeV1 } from './public-wire.v1.js';

/** Spec 3: the session states. `expired` is reported once ten minutes passed, whatever the state short of complete. */
export const SESSION_STATUSES = ['created', 'started', 'consumed', 'complete', 'failed', 'cancelled', 'expired'] as const;
export type SessionStatusValue = (typeof SESSION_STATUSES)[number];

/** Spec 2.8 enrollment_method values. */
export const ENROLLMENT_METHODS = ['oauth', 'api_token', 'service_account'] as const;
export type EnrollmentMethod = (typeof ENROLLMENT_METHODS)[number];

/** Spec 8: a connect link lives ten minutes. */
export const CONNECT_SESSION_TTL_SECONDS = 600;

const uniqueItems = <T>(items: readonly T[]): boolean => new Set(items).size === items.length;

export const connectSessionV1 = z
  .object({
    sessionId: z.uuid(),
    expiresAt: wireDateTimeV1.describe('Ten minutes after creation; the page is dead afterwards.'),
    url: z.url().describe('The hosted authorization page to hand to the fleet customer. Single use; never embed the consumer key next to it.'),
  })
  .strict()
  .meta({ id: 'ConnectSession', description: 'A new connect session (spec 2.8). Creating it is not authorization: poll its status until `complete`.' });

export const sessionStatusV1 = z
  .object({
    id: z.uuid(),
    status: z.enum(SESSION_STATUSES),
    expires_at: wireDateTimeV1,
    enrollment_method: z.enum(ENROLLMENT_METHODS).nullable().optional(),
    disclosure_version: z.string().nullable().optional().describe('Version of the disclosure text the customer accepted.'),
    selected_signals: z.array(signalV1).min(1).max(4).refine(uniqueItems, 'items must be unique').nullable().optional(),
    accepted_at: wireDateTimeV1.nullable().optional().describe('When the customer accepted the disclosure and submitted the enrollment.'),
    completed_at: wireDateTimeV1.nullable().optional().describe('When the provider verified the credentials and the enrollment was stored.'),
  })
  .strict()
  .meta({
    id: 'SessionStatus',
    description:
      'A connect session (spec 2.8, 3): created → started (page opened) → consumed (credentials submitted) → complete or failed; cancelled when the customer declines; expired ten minutes after creation whatever the state short of complete.',
  });

export const disconnectV1 = z
  .object({
    connectionId: z.uuid(),
    status: z.literal('disconnected'),
  })
  .strict()
  .meta({ id: 'Disconnect', description: "The connection's local access and collection are disabled and its provider credentials destroyed (spec 2.8, 3)." });

export type ConnectSessionV1 = z.output<typeof connectSessionV1>;
export type SessionStatusV1 = z.output<typeof sessionStatusV1>;
export type DisconnectV1 = z.output<typeof disconnectV1>;
