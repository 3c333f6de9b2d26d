/**
 * The AsyncAPI 3.0.0 document of the subjects an outside team may consume (asyncapi/asyncapi.json,
 * `npm run asyncapi`; a test fails when the committed file is stale and parses it with
 * @asyncapi/parser, decision 0018). Generated from the name authority (STREAMS, EVENTS in
 * subjects.ts) and the zod schemas: the payload is the consumer-side v1 schema
 * (`faultTransitionConsumerV1`, tolerant of additive changes), the headers are the CloudEvents
 * binary-mode attributes (fault-transition-events.ts) plus the bus's own. Stream, retention,
 * duplicate window and subject hierarchy come from STREAMS / EVENTS, so they cannot drift.
 * Only `fleet.faults.*` is published for outside consumers today; every other subject is internal.
 */
import { ID_PATTERNS } from '@switchyard/domain';
import { z } from 'zod';
import { CLOUDEVENTS_SPEC_VERSION, faultTransitionConsumerV1, faultTransitionCloudEventType } from '../fault-transition-events.js';
import { HEADERS } from '../headers.js';
import { EVENTS, STREAMS } from '../subjects.js';

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

export function buildAsyncApiDocument(): Record<string, unknown> {
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
        'x-jetstream': {
          stream: stream.name,
          subjects: stream.subjects,
          maxAge: maxAge(stream.maxAgeMs),
          duplicateWindow: isoDuration(stream.duplicateWindowMs),
          maxBytes: stream.maxBytes,
          discard: stream.discard,
          retention: 'limits',
          storage: 'file',
        },
      },
    },
    operations: {
      receiveFaultTransitions: {
        action: 'receive',
        channel: { $ref: '#/channels/faultTransitions' },
        summary: 'Consume fault transitions (durable consumer, explicit ack).',
        messages: [{ $ref: '#/channels/faultTransitions/messages/faultTransition' }],
      },
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
      },
    },
  };
}

/** The committed text: two-space JSON with a final newline. */
export const renderAsyncApi = (): string => `${JSON.stringify(buildAsyncApiDocument(), null, 2)}\n`;
