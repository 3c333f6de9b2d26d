/**
 * The webhook tables of migration 0009 as the ORM sees them (for the schema-drift check; the SQL
 * that reads and writes them is db/repositories/webhook-*.repository.ts).
 */
import { defineEntity, p } from '@mikro-orm/postgresql';
import { Application, reference } from './credential.entity.js';

export const WebhookEndpoint = defineEntity({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoint',
  properties: {
    id: p.uuid().primary(),
    applicationId: reference(Application, 'webhook_endpoint', 'application_id'),
    url: p.text(),
    description: p.text().nullable(),
    eventTypes: p.array(),
    enabled: p.boolean().default(true),
    disabledReason: p.text().nullable(),
    disabledAt: p.datetime().nullable(),
    failingSince: p.datetime().nullable(),
    secrets: p.json(),
    createdAt: p.datetime().defaultRaw('now()'),
    updatedAt: p.datetime().defaultRaw('now()'),
  },
  indexes: [{ name: 'webhook_endpoint_application', properties: ['applicationId'] }],
  checks: [{ name: 'webhook_endpoint_disabled_reason_check', expression: "disabled_reason in ('gone', 'failing', 'manual')" }],
});

export const WebhookEvent = defineEntity({
  name: 'WebhookEvent',
  tableName: 'webhook_event',
  properties: {
    seq: p.bigint().primary().autoincrement(),
    id: p.uuid().unique('webhook_event_id_key'),
    type: p.text(),
    connectionId: p.uuid(),
    orderKey: p.text(),
    body: p.text(),
    recordedAt: p.datetime().defaultRaw('now()'),
  },
  indexes: [
    { name: 'webhook_event_connection', properties: ['connectionId', 'seq'] },
    { name: 'webhook_event_recorded', properties: ['recordedAt'] },
  ],
});

export const WebhookMessage = defineEntity({
  name: 'WebhookMessage',
  tableName: 'webhook_message',
  properties: {
    endpointId: reference(WebhookEndpoint, 'webhook_message', 'endpoint_id', 'cascade').primary(),
    eventSeq: p.manyToOne(WebhookEvent).mapToPk().fieldName('event_seq').foreignKeyName('webhook_message_event_seq_fkey').updateRule('no action').deleteRule('cascade').primary(),
    orderKey: p.text(),
    state: p.text(),
    attemptCount: p.integer().default(0),
    roundAttempts: p.integer().default(0),
    replay: p.boolean().default(false),
    nextAttemptAt: p.datetime().nullable(),
    leaseUntil: p.datetime().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    deliveredAt: p.datetime().nullable(),
  },
  indexes: [
    { name: 'webhook_message_due', properties: ['nextAttemptAt'], where: "state = 'pending'" },
    { name: 'webhook_message_order', properties: ['endpointId', 'orderKey', 'eventSeq'], where: "state = 'pending'" },
  ],
  checks: [{ name: 'webhook_message_state_check', expression: "state in ('pending', 'delivered', 'failed', 'suppressed')" }],
});

export const WebhookAttempt = defineEntity({
  name: 'WebhookAttempt',
  tableName: 'webhook_attempt',
  properties: {
    id: p.bigint().primary().autoincrement(),
    endpointId: reference(WebhookEndpoint, 'webhook_attempt', 'endpoint_id', 'cascade'),
    eventSeq: p.manyToOne(WebhookEvent).mapToPk().fieldName('event_seq').foreignKeyName('webhook_attempt_event_seq_fkey').updateRule('no action').deleteRule('cascade'),
    attempt: p.integer(),
    trigger: p.text(),
    startedAt: p.datetime(),
    status: p.integer().nullable(),
    latencyMs: p.integer(),
    error: p.text().nullable(),
    retryAfterMs: p.integer().nullable(),
  },
  indexes: [{ name: 'webhook_attempt_message', properties: ['endpointId', 'eventSeq', 'id'] }],
  checks: [{ name: 'webhook_attempt_trigger_check', expression: "trigger in ('scheduled', 'replay')" }],
});
