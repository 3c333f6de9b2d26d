/**
 * What an outside team needs to consume `fleet.faults.<connectionId>.<opened|cleared>` (EVENTS.faultTransition,
 * documented in asyncapi/asyncapi.json and docs/faults.md):
 * - CloudEvents 1.0 attributes carried as NATS headers (binary content mode of the CloudEvents NATS
 *   binding: `ce-` attributes in headers, the payload is the event data, `content-type` its media
 *   type), so standard CloudEvents tooling reads them: `ce-id` = the transition id (also the
 *   JetStream msgId), `ce-source` = the connection's fault feed, `ce-type` = the kind and payload
 *   version, `ce-time` = `observedAt`, `ce-subject` = the vehicle id;
 * - the versioning rule: additive changes (a new optional field, a new `clearedBy` or `provider`
 *   value) keep v1 and consumers ignore what they do not know; a breaking change (a removed or
 *   renamed field, a changed meaning or type, a new `kind`) is a new versioned subject and type
 *   (`…v2`) published beside v1 for a deprecation period. `faultTransitionConsumerV1` is the v1
 *   schema a consumer parses with: unknown fields kept and ignored, open enums as strings.
 */
import { z } from 'zod';
import { faultTransitionV1, type FaultTransitionV1 } from './schemas/ingest-fault-transition.v1.js';

export const CLOUDEVENTS_SPEC_VERSION = '1.0';

/** `ce-type` of a transition: `com.switchyard.fleet.fault.<opened|cleared>.v1`. */
export const faultTransitionCloudEventType = (kind: FaultTransitionV1['kind']): string => `com.switchyard.fleet.fault.${kind}.v1`;

/** `ce-source` of a connection's transitions (a URI reference). */
export const faultTransitionCloudEventSource = (connectionId: string): string => `/switchyard/fault-feed/connections/${connectionId}`;

/** The CloudEvents binary-mode headers of one transition. */
export function faultTransitionCloudEventHeaders(t: FaultTransitionV1): Record<string, string> {
  return {
    'ce-specversion': CLOUDEVENTS_SPEC_VERSION,
    'ce-id': t.transitionId,
    'ce-source': faultTransitionCloudEventSource(t.connectionId),
    'ce-type': faultTransitionCloudEventType(t.kind),
    'ce-time': t.observedAt,
    'ce-subject': t.vehicleId,
    'content-type': 'application/json',
  };
}

/** The v1 payload as a consumer should parse it: tolerant of additive changes (see the header). */
export const faultTransitionConsumerV1 = faultTransitionV1
  .extend({
    transitionId: faultTransitionV1.shape.transitionId.describe('The transition id; equal to the `ce-id` header and the JetStream msgId.'),
    sequence: faultTransitionV1.shape.sequence.describe('Strictly increasing per connection in commit order, gap-free; a consumer that keeps the highest sequence it applied per connection can drop replays.'),
    provider: z.string().min(1).describe('The telematics provider: `samsara`, `motive` or `geotab` today; more may be added (additive).'),
    kind: faultTransitionV1.shape.kind.describe('`opened` or `cleared` (closed set: a new kind would be a v2 subject).'),
    occurrenceId: faultTransitionV1.shape.occurrenceId.describe('The fault occurrence (the `id` of GET /v1/connections/{id}/faults); a re-opened fault is a new occurrence.'),
    vehicleId: faultTransitionV1.shape.vehicleId.describe('The vehicle (`vcl_` id, as the REST API names it); also the `ce-subject` header.'),
    faultKey: faultTransitionV1.shape.faultKey.describe('Provider-scoped identity of the fault on the vehicle; one open occurrence per vehicle and key.'),
    model: faultTransitionV1.shape.model.describe('How the provider reports faults: `complete_snapshot` (Samsara, Motive) or `explicit_records` (Geotab); see docs/faults.md.'),
    observedAt: faultTransitionV1.shape.observedAt.describe('opened: when first seen open; cleared: when seen cleared. Also the `ce-time` header.'),
    clearedBy: z
      .string()
      .min(1)
      .nullable()
      .describe('Why it cleared, null for opens: `snapshot_absent`, `dismissed` or `inactivity_timeout` today; more may be added (additive).'),
    bootstrap: faultTransitionV1.shape.bootstrap.describe('True on the `opened` of a fault already active when the vehicle was first watched (its start is unknown).'),
    structured: z
      .object({ standard: z.string().min(1) })
      .loose()
      .nullable()
      .optional()
      .describe(
        'The code\'s structure where the provider gives it, null when it has none: `{standard: "j1939", spn, fmi, sourceAddress, occurrenceCount?}` (occurrenceCount: the provider\'s J1939 occurrence count at the latest observation, absent when never reported), `{standard: "obdii", dtc, status}` (status confirmed, pending, permanent or null), `{standard: "geotab", diagnosticId, failureModeId, controllerId, occurrenceCount?}` (FaultData `count`). More standards and members may be added (additive).',
      ),
  })
  .loose()
  .describe('Fault transition v1. Consumers must ignore fields they do not know (additive changes keep v1).');

export type FaultTransitionConsumerV1 = z.output<typeof faultTransitionConsumerV1>;
