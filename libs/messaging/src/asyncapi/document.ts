/**
 * The AsyncAPI 3.0.0 document of the subjects an outside team may consume (asyncapi/asyncapi.json,
 * `npm run asyncapi`; a test fails when the committed file is stale and parses it with
 * @asyncapi/parser, decision 0018). Generated from the name authority (STREAMS, EVENTS in
 * subjects.ts) and the zod schemas: the payload is the consumer-side v1 schema
 * (`faultTransitionConsumerV1`, tolerant of additive changes), the headers are the CloudEvents
 * binary-mode attributes (fault-transition-events.ts) plus the bus's own. Stream, retention,
 * duplicate window and subject hierarchy come from STREAMS / EVENTS, so they cannot drift.
 * `fleet.faults.*` is published for outside consumers; the domain events the webhook delivery role
 * consumes (connection status, sync outcomes) and the webhook endpoint record (DOMAIN_EVENTS below)
 * are documented too, from the same entries, with the bus's own headers.
 */
import { ID_PATTERNS } from '@switchyard/domain';
import { z } from 'zod';
import { CLOUDEVENTS_SPEC_VERSION, faultTransitionConsumerV1, faultTransitionCloudEventType } from '../fault-transition-events.js';
import { HEADERS } from '../headers.js';
import { EVENTS, STREAMS } from '../subjects.js';
import type { EventDefinition, StreamDefinition } from '../port.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const isoDuration = (ms: number) => (ms % DAY_MS === 0 ? `P${ms / DAY_MS}D` : `PT${ms / 1000}S`);
/** A stream's max age as an ISO 8601 duration; `unlimited` when it has none. */
const maxAge = (ms: number | undefined) => (ms === undefined ? 'unlimited' : isoDuration(ms));

const UUID = { type: 'string', format: 'uuid' } as const;

/** The NATS headers of a fault transition message, as JSON Schema. */
function faultTransitionHeaders() {
  const kinds = faultTransitionConsumerV1.shape.kind.options;
  return {
    type: 'object',
    required: ['ce-specversion', 'ce-id', 'ce-source', 'ce-type', 'ce-time', 'ce-subject', 'content-type', HEADERS.msgId, HEADERS.msgVersion],
    properties: {
      'ce-specversion': { type: 'string', const: CLOUDEVENTS_SPEC_VERSION, description: 'CloudEvents spec version (binary content mode).' },
      'ce-id': { ...UUID, description: 'The transition id (payload `transitionId`); unique per event.' },
      'ce-source': { type: 'string', format: 'uri-reference', pattern: '^/switchyard/fault-feed/connections/[0-9a-f-]{36}$', description: "The connection's fault feed: `/switchyard/fault-feed/connections/<connectionId>`." },
      'ce-type': { type: 'string', enum: kinds.map(faultTransitionCloudEventType), description: 'The kind and payload version.' },
      'ce-time': { type: 'string', format: 'date-time', description: 'When the transition was observed (payload `observedAt`).' },
      'ce-subject': { type: 'string', pattern: ID_PATTERNS.vehicle, description: 'The vehicle id (payload `vehicleId`).' },
      'content-type': { type: 'string', const: 'application/json', description: 'Media type of the payload (CloudEvents `datacontenttype`).' },
      [HEADERS.msgId]: { ...UUID, description: 'JetStream de-duplication id; equals `ce-id`.' },
      [HEADERS.msgVersion]: { type: 'string', const: String(EVENTS.faultTransition.version), description: 'Payload schema version.' },
      [HEADERS.correlationId]: { type: 'string', description: 'Correlation id of the work that produced the transition, when known.' },
      [HEADERS.traceparent]: { type: 'string', description: 'W3C trace context, when known.' },
    },
  };
}

/**
 * Domain events documented beside the fault subjects: channel key → the EVENTS entry, its producer
 * and consumers, and what the `*` token of its subject names. Added here when a producer adds one.
 */
const DOMAIN_EVENTS: readonly { key: string; event: EventDefinition; title: string; description: string; parameter: string }[] = [
  {
    key: 'connectionStatus',
    event: EVENTS.connectionStatus,
    title: 'Connection status changes',
    description: 'The gateway, from its outbox in the transaction of the change: a connection became active, paused or disconnected (the webhook events `connection.paused`, `connection.resumed`, `connection.disconnected`). `eventId` is stable per configuration revision.',
    parameter: 'connectionId',
  },
  {
    key: 'syncOutcome',
    event: EVENTS.syncOutcome,
    title: 'Sync outcomes',
    description: 'The sync-orchestrator, from its outbox in the transaction that completed or failed a public sync (the webhook events `sync.completed`, `sync.failed`); the payload carries the public Sync as GET /v1/syncs/{id} answers it. `eventId` is stable per sync, attempt and status.',
    parameter: 'connectionId',
  },
  {
    key: 'webhookEndpointDisabled',
    event: EVENTS.webhookEndpointDisabled,
    title: 'Webhook endpoints disabled',
    description: 'The gateway\'s webhook delivery role, from the gateway outbox: an endpoint answered 410 (`gone`) or had no successful delivery for the disable window (`failing`, 5 days by default) and was disabled (docs/webhooks.md).',
    parameter: 'applicationId',
  },
];

/** The `x-jetstream` facts of a channel's stream. */
const jetstreamOf = (stream: StreamDefinition) => ({
  stream: stream.name,
  subjects: stream.subjects,
  maxAge: maxAge(stream.maxAgeMs),
  duplicateWindow: isoDuration(stream.duplicateWindowMs),
  maxBytes: stream.maxBytes,
  discard: stream.discard,
  retention: 'limits',
  storage: 'file',
});

/** The bus's own headers of a domain event (every publish sets the msgId and version). */
function busHeaders(event: EventDefinition) {
  return {
    type: 'object',
    required: [HEADERS.msgId, HEADERS.msgVersion],
    properties: {
      [HEADERS.msgId]: { type: 'string', description: 'JetStream de-duplication id; equals the payload\'s `eventId`.' },
      [HEADERS.msgVersion]: { type: 'string', const: String(event.version), description: 'Payload schema version.' },
      [HEADERS.correlationId]: { type: 'string', description: 'Correlation id of the work that produced the event, when known.' },
      [HEADERS.traceparent]: { type: 'string', description: 'W3C trace context, when known.' },
    },
  };
}

/**
 * A payload schema with its named parts (zod `.meta({ id })`, e.g. the public Sync) inlined: the
 * generator refers to them as `#/definitions/<id>` of the payload, which inside an AsyncAPI
 * document would resolve against the document's root.
 */
function inlineDefinitions(schema: Record<string, unknown>): Record<string, unknown> {
  const { definitions = {}, $schema: _draft, ...rest } = schema as { definitions?: Record<string, unknown>; $schema?: string };
  const resolve = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(resolve);
    if (!node || typeof node !== 'object') return node;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/definitions/')) return resolve(definitions[ref.slice('#/definitions/'.length)]);
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolve(v)]));
  };
  return resolve(rest) as Record<string, unknown>;
}

function domainEventParts() {
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  for (const { key, event, title, description, parameter } of DOMAIN_EVENTS) {
    const stream = STREAMS[event.stream as keyof typeof STREAMS];
    const capitalized = `${key.charAt(0).toUpperCase()}${key.slice(1)}`;
    const name = `${capitalized}V${event.version}`;
    const payload = inlineDefinitions(z.toJSONSchema(event.schema, { target: 'draft-7', io: 'output' }) as Record<string, unknown>);
    channels[key] = {
      address: event.subject.replace('*', `{${parameter}}`),
      title,
      description: `${description} Stream \`${stream.name}\` (${stream.subjects.join(', ')}), retention ${maxAge(stream.maxAgeMs)}, duplicate window ${isoDuration(stream.duplicateWindowMs)}.`,
      parameters: { [parameter]: { description: `The ${parameter === 'connectionId' ? 'connection' : 'application'} (uuid) the event is about.` } },
      messages: { [key]: { $ref: `#/components/messages/${name}` } },
      'x-jetstream': jetstreamOf(stream),
    };
    operations[`receive${capitalized}`] = { action: 'receive', channel: { $ref: `#/channels/${key}` }, summary: `Consume ${title.toLowerCase()} (durable consumer, explicit ack).`, messages: [{ $ref: `#/channels/${key}/messages/${key}` }] };
    messages[name] = { name, title: `${title} v${event.version}`, contentType: 'application/json', headers: busHeaders(event), payload, correlationId: { location: `$message.header#/${HEADERS.msgId}`, description: 'The event id.' } };
  }
  return { channels, operations, messages };
}

export function buildAsyncApiDocument(): Record<string, unknown> {
  const domain = domainEventParts();
  const stream = STREAMS[EVENTS.faultTransition.stream];
  const payload = z.toJSONSchema(faultTransitionConsumerV1, { target: 'draft-7', io: 'output' });
  delete (payload as { $schema?: string }).$schema;
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Switchyard internal events',
      version: '1.0.0',
      description: [
        'Subjects of the Switchyard NATS JetStream deployment that teams outside the Switchyard services may consume. Every other subject is internal and may change without notice.',
        '',
        'Versioning: an additive change (a new optional field, a new value of an open enum such as `provider` or `clearedBy`) keeps v1 — consumers must ignore fields and values they do not know. A breaking change (a removed, renamed or retyped field, a changed meaning, a new `kind`) is a new versioned subject and `ce-type` (`…v2`), published beside v1 for a deprecation period.',
        '',
        'Headers carry the CloudEvents 1.0 attributes in binary content mode (`ce-*`), so CloudEvents tooling reads the messages as events whose data is the payload.',
        '',
        'Delivery: at least once. Use a durable JetStream consumer (explicit ack) and de-duplicate by `ce-id` or by keeping the highest `sequence` applied per connection. The pull feed GET /v1/connections/{id}/fault-events carries the same transitions with the same ids and sequences. See docs/faults.md and examples/fault-consumer.',
      ].join('\n'),
    },
    defaultContentType: 'application/json',
    servers: {
      production: {
        host: 'nats.switchyard.internal:4222',
        protocol: 'nats',
        description: 'The deployment NATS server (JetStream enabled). Subjects and stream names carry no namespace prefix in production; test runs prefix them with their own namespace.',
      },
    },
    channels: {
      faultTransitions: {
        address: 'fleet.faults.{connectionId}.{kind}',
        title: 'Fault transitions',
        description: [
          `One message per opened or cleared fault occurrence, published by fault-feed after the transition committed (transactional outbox), in per-connection \`sequence\` order.`,
          `Stream \`${stream.name}\` captures \`${stream.subjects.join(', ')}\`; retention ${maxAge(stream.maxAgeMs)} (limits policy, max age), duplicate window ${isoDuration(stream.duplicateWindowMs)}.`,
          `At most ${stream.maxBytes} bytes by default (a deployment sets its own, NATS_STREAM_MAX_BYTES_${stream.name}); a full stream refuses new transitions (fault-feed keeps them in its outbox and publishes them once there is room) and never drops unread ones (discard ${stream.discard}).`,
          'Subscribe to `fleet.faults.>` for every connection, `fleet.faults.<connectionId>.>` for one connection, `fleet.faults.*.opened` for opens only.',
        ].join(' '),
        parameters: {
          connectionId: { description: 'The connection (uuid) the fault belongs to.' },
          kind: { enum: [...faultTransitionConsumerV1.shape.kind.options], description: 'The transition kind.' },
        },
        messages: { faultTransition: { $ref: '#/components/messages/FaultTransitionV1' } },
        'x-jetstream': jetstreamOf(stream),
      },
      ...domain.channels,
    },
    operations: {
      receiveFaultTransitions: {
        action: 'receive',
        channel: { $ref: '#/channels/faultTransitions' },
        summary: 'Consume fault transitions (durable consumer, explicit ack).',
        messages: [{ $ref: '#/channels/faultTransitions/messages/faultTransition' }],
      },
      ...domain.operations,
    },
    components: {
      messages: {
        FaultTransitionV1: {
          name: 'FaultTransitionV1',
          title: 'Fault transition v1',
          contentType: 'application/json',
          headers: faultTransitionHeaders(),
          payload,
          correlationId: { location: '$message.header#/ce-id', description: 'The transition id.' },
        },
        ...domain.messages,
      },
    },
  };
}

/** The committed text: two-space JSON with a final newline. */
export const renderAsyncApi = (): string => `${JSON.stringify(buildAsyncApiDocument(), null, 2)}\n`;
