/**
 * Webhooks (issue 29; docs/webhooks.md, decision 0042), defined once:
 * - the event types an endpoint subscribes to and the CloudEvents 1.0 body each one is delivered
 *   as (structured mode, `application/cloudevents+json`). Its `id` is the event's stable id (the
 *   transition id for faults, a name-based UUID for sync outcomes and connection status changes)
 *   and is also the `webhook-id` header, the same on every attempt and replay, so a receiver
 *   de-duplicates by it; `sequence` is the position in the deployment's webhook log (increasing in
 *   the order events were recorded; a replay names a position of it). The OpenAPI document carries
 *   these bodies in its `webhooks` section, so the SDK's types and verifier know them;
 * - the public shapes of the endpoint routes (additions beyond the contract's 36 operations:
 *   endpoints, their delivery log and replay) — replies the gateway answers itself;
 * - `events.webhook.disabled.<applicationId>`: an endpoint that answered 410 or kept
 *   failing for the disable window was disabled (recorded on EVENTS from the gateway's outbox).
 * Invariant: a body is rendered once, when the event is recorded, and stored as text; every attempt
 * sends exactly those bytes, so the signature of a retry covers the same content.
 */
import { vehicleIdSchema } from '@switchyard/contracts';
import { z } from 'zod';
import { faultEventV1 } from './fault-read.v1.js';
import { syncRecordV1 } from './sync-api.v1.js';
import { pageCursorV1, wireDateTimeV1 } from './public-wire.v1.js';
import { connectionStatusV1 } from './connection-status.v1.js';
import { providerV1 } from './connection-config.v1.js';

/** Every event type an endpoint may subscribe to. */
export const WEBHOOK_EVENT_TYPES = ['fault.opened', 'fault.cleared', 'sync.completed', 'sync.failed', 'connection.paused', 'connection.resumed', 'connection.disconnected'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export const webhookEventTypeV1 = z.enum(WEBHOOK_EVENT_TYPES).describe('An event type: `fault.opened`, `fault.cleared`, `sync.completed`, `sync.failed`, `connection.paused`, `connection.resumed`, `connection.disconnected`.');

/** The CloudEvents `source` of a connection's events. */
export const webhookEventSource = (connectionId: string): string => `/switchyard/connections/${connectionId}`;

/** The CloudEvents media type the body is sent with (HTTP binding, structured content mode). */
export const WEBHOOK_CONTENT_TYPE = 'application/cloudevents+json';

const envelope = <T extends z.ZodType, S extends z.ZodType>(types: readonly WebhookEventType[], subject: S, data: T) =>
  z
    .object({
      specversion: z.literal('1.0').describe('CloudEvents spec version.'),
      id: z.uuid().describe('The event\'s stable id: the same on every attempt and replay (also the `webhook-id` header). De-duplicate by it.'),
      source: z.string().regex(/^\/switchyard\/connections\/[0-9a-f-]{36}$/).describe('`/switchyard/connections/<connectionId>`: the connection the event is about.'),
      type: z.enum(types as [WebhookEventType, ...WebhookEventType[]]),
      subject,
      time: wireDateTimeV1.describe('When the fact happened (faults: the transition\'s `observed_at`; syncs: when the outcome committed; connections: when the status changed).'),
      datacontenttype: z.literal('application/json'),
      sequence: z.string().regex(/^[1-9]\d{0,18}$/).describe('Position in the webhook log (decimal; compare as an integer): increasing in the order events were recorded, not gap-free. `POST …/replay` with `fromSequence` re-delivers from a position.'),
      data,
    })
    .strict();

/** `fault.opened` / `fault.cleared`: the FaultEvent of GET …/fault-events, with the fault it is about. */
export const webhookFaultDataV1 = faultEventV1
  .extend({
    fault_key: z.string().min(1).describe('Provider-scoped identity of the fault on the vehicle (the Fault\'s `fault_key`).'),
    code: z.string().min(1).describe('The code as the provider reports it.'),
    description: z.string().nullable().describe('The provider\'s description of the code; null when it gives none.'),
    cleared_by: z.enum(['snapshot_absent', 'dismissed', 'inactivity_timeout']).nullable().describe('Why it cleared; null on `fault.opened`.'),
  })
  .strict()
  .meta({ id: 'WebhookFaultData', description: 'The transition as the FaultEvent of GET /v1/connections/{id}/fault-events (same id and sequence), plus the fault\'s key, code, description and why it cleared.' });

export const webhookFaultEventV1 = envelope(['fault.opened', 'fault.cleared'], vehicleIdSchema.describe('The vehicle (`vcl_` id).'), webhookFaultDataV1).meta({
  id: 'WebhookFaultEvent',
  description: 'A fault occurrence opened or cleared. Per vehicle, a `fault.cleared` is never delivered before the `fault.opened` of its occurrence.',
});

export const webhookSyncDataV1 = z
  .object({ connectionId: z.uuid(), sync: syncRecordV1 })
  .strict()
  .meta({ id: 'WebhookSyncData', description: 'The connection and the Sync as GET /v1/syncs/{id} answered right after the outcome committed.' });

export const webhookSyncEventV1 = envelope(['sync.completed', 'sync.failed'], z.string().min(1).describe('The sync id.'), webhookSyncDataV1).meta({
  id: 'WebhookSyncEvent',
  description: 'A sync created by this application completed (every admitted unit committed) or failed (collection failure, rejected batch or cancel). A retried sync that ends again is a new event.',
});

export const webhookConnectionDataV1 = z
  .object({
    connectionId: z.uuid(),
    provider: providerV1,
    status: connectionStatusV1,
    previousStatus: connectionStatusV1,
    changedAt: wireDateTimeV1,
  })
  .strict()
  .meta({ id: 'WebhookConnectionData', description: 'The connection\'s status before and after the change.' });

export const webhookConnectionEventV1 = envelope(['connection.paused', 'connection.resumed', 'connection.disconnected'], z.uuid().describe('The connection id.'), webhookConnectionDataV1).meta({
  id: 'WebhookConnectionEvent',
  description: '`connection.paused`: collection stopped; `connection.resumed`: it became active again (resume or activation); `connection.disconnected`: its local access and collection are disabled.',
});

/** Every webhook body (what the SDK's verifier returns). */
export const webhookEventV1 = z.union([webhookFaultEventV1, webhookSyncEventV1, webhookConnectionEventV1]);
export type WebhookEventV1 = z.output<typeof webhookEventV1>;

/** The body schema of each event type (the OpenAPI `webhooks` section, one entry per type). */
export const WEBHOOK_BODY_SCHEMAS: Readonly<Record<WebhookEventType, z.ZodType>> = {
  'fault.opened': webhookFaultEventV1,
  'fault.cleared': webhookFaultEventV1,
  'sync.completed': webhookSyncEventV1,
  'sync.failed': webhookSyncEventV1,
  'connection.paused': webhookConnectionEventV1,
  'connection.resumed': webhookConnectionEventV1,
  'connection.disconnected': webhookConnectionEventV1,
};

// ---- Endpoint routes (public shapes; the gateway answers them itself) ----

export const WEBHOOK_DISABLED_REASONS = ['gone', 'failing', 'manual'] as const;

export const webhookSecretInfoV1 = z
  .object({
    id: z.string().regex(/^whs_[0-9a-z]{16}$/).describe('Which secret; the secret itself is shown only when it is issued.'),
    createdAt: wireDateTimeV1,
    expiresAt: wireDateTimeV1.describe('Present on the previous secret during a rotation: signatures with it stop at this time.').optional(),
  })
  .strict();

export const webhookEndpointV1 = z
  .object({
    id: z.uuid(),
    url: z.url().describe('Where events are POSTed (https to a public host in production).'),
    description: z.string().max(200).optional(),
    eventTypes: z.array(webhookEventTypeV1).min(1).describe('The event types delivered to this endpoint.'),
    enabled: z.boolean(),
    disabledReason: z
      .enum(WEBHOOK_DISABLED_REASONS)
      .describe('Why it is disabled: `gone` (it answered 410), `failing` (no successful delivery for the disable window, 5 days), `manual` (disabled through PATCH or the operator CLI).')
      .optional(),
    disabledAt: wireDateTimeV1.optional(),
    failingSince: wireDateTimeV1.describe('First failed attempt since the last successful delivery, while it keeps failing.').optional(),
    secrets: z.array(webhookSecretInfoV1).min(1).max(2).describe('The signing secrets in use, newest first; two during a rotation (each attempt is signed with both).'),
    createdAt: wireDateTimeV1,
    updatedAt: wireDateTimeV1,
  })
  .strict()
  .meta({ id: 'WebhookEndpoint', description: 'A webhook endpoint of the calling application.' });

export const webhookEndpointWithSecretV1 = z
  .object({
    endpoint: webhookEndpointV1,
    secret: z.string().regex(/^whsec_[A-Za-z0-9+/]{32}$/).describe('The new signing secret (`whsec_` + base64 of 24 random bytes). Shown only in this response; stored sealed.'),
  })
  .strict()
  .meta({ id: 'WebhookEndpointWithSecret', description: 'An endpoint with the signing secret just issued (create, rotate).' });

export const webhookEndpointsV1 = z
  .object({ endpoints: z.array(webhookEndpointV1) })
  .strict()
  .meta({ id: 'WebhookEndpoints', description: 'Every webhook endpoint of the calling application, oldest first.' });

export const webhookAttemptV1 = z
  .object({
    attempt: z.number().int().min(1).describe('1 for the first attempt of the message; counts every attempt, replays included.'),
    trigger: z.enum(['scheduled', 'replay']).describe('`replay`: the first attempt after a replay request.'),
    startedAt: wireDateTimeV1,
    status: z.number().int().min(100).max(599).nullable().describe('The HTTP status the endpoint answered; null when it answered none (see `error`).'),
    latencyMs: z.number().int().min(0).describe('From sending the request to the end of the response (or the failure).'),
    error: z
      .string()
      .nullable()
      .describe('Why the attempt failed when no 2xx came: `timeout` (no answer within 15 s), `connection_failed`, `egress_refused` (the URL or its address is not allowed), `redirect_refused` (3xx: redirects are not followed), `http_status` (any other status than 2xx); null on success. A response body is read up to 64 KiB and ignored.'),
    retryAfterMs: z.number().int().min(0).describe('The `Retry-After` the endpoint sent, in milliseconds.').optional(),
  })
  .strict()
  .meta({ id: 'WebhookAttempt', description: 'One delivery attempt of a message.' });

export const WEBHOOK_MESSAGE_STATES = ['pending', 'delivered', 'failed', 'suppressed'] as const;

export const webhookMessageV1 = z
  .object({
    eventId: z.uuid().describe('The event (its CloudEvents `id`, the `webhook-id` header).'),
    eventType: webhookEventTypeV1,
    sequence: z.string().regex(/^[1-9]\d{0,18}$/).describe('The event\'s position in the webhook log (CloudEvents `sequence`).'),
    connectionId: z.uuid(),
    state: z
      .enum(WEBHOOK_MESSAGE_STATES)
      .describe('`pending`: waiting for its first or next attempt (or for the endpoint to be enabled); `delivered`: a 2xx came within 15 s; `failed`: every attempt of the retry schedule failed; `suppressed`: not sent because the vehicle is hidden from the connection\'s grants.'),
    recordedAt: wireDateTimeV1.describe('When the event entered the webhook log (what `since` of a replay compares).'),
    nextAttemptAt: wireDateTimeV1.describe('When a pending message is attempted next.').optional(),
    deliveredAt: wireDateTimeV1.optional(),
    attemptCount: z.number().int().min(0),
    attempts: z.array(webhookAttemptV1).max(20).describe('The latest attempts, newest first (at most 20).'),
  })
  .strict()
  .meta({ id: 'WebhookMessage', description: 'One event for one endpoint and its delivery attempts.' });

export const webhookMessagesV1 = z
  .object({
    messages: z.array(webhookMessageV1),
    next: pageCursorV1.describe('Present while older messages follow: pass it back as `cursor`.').optional(),
  })
  .strict()
  .meta({ id: 'WebhookMessages', description: 'The endpoint\'s delivery log, newest event first.' });

export const webhookReplayV1 = z
  .object({
    replayed: z.number().int().min(0).describe('Messages queued for delivery now, in sequence order per vehicle or connection.'),
    fromSequence: z.string().regex(/^\d{1,19}$/).describe('The first position of the range (inclusive).'),
    throughSequence: z.string().regex(/^\d{1,19}$/).describe('The last position included (the log\'s end when the request arrived, or where the cap cut the range).'),
    complete: z.boolean().describe('False when the range held more than the cap (10,000 messages): replay again `fromSequence` = `throughSequence` + 1.'),
  })
  .strict()
  .meta({ id: 'WebhookReplay', description: 'What a replay queued: exactly the events of the range the endpoint subscribes to, of the connections the application holds a Connection-Token for.' });

// ---- The disable event on the bus ----

export const webhookEndpointDisabledV1 = z
  .object({
    eventId: z.uuid(),
    endpointId: z.uuid(),
    applicationId: z.uuid(),
    /** The endpoint's origin only: a path or query may carry the receiver's own token. */
    origin: z.string().min(1),
    reason: z.enum(['gone', 'failing']),
    failingSince: z.iso.datetime({ offset: true }).nullable(),
    disabledAt: z.iso.datetime({ offset: true }),
  })
  .strict();

export type WebhookEndpointDisabledV1 = z.output<typeof webhookEndpointDisabledV1>;
export type WebhookEndpointV1 = z.output<typeof webhookEndpointV1>;
export type WebhookMessageV1 = z.output<typeof webhookMessageV1>;
export type WebhookAttemptV1 = z.output<typeof webhookAttemptV1>;
