/**
 * The committed AsyncAPI document (asyncapi/asyncapi.json): equal to what the code renders (stale
 * → run `npm run asyncapi`), valid AsyncAPI 3.0.0 for @asyncapi/parser (no error diagnostics),
 * and the messages fault-feed actually sends (CloudEvents headers from
 * `faultTransitionCloudEventHeaders`, a v1 payload) validate against its header and payload
 * schemas — also a payload with a field and an enum value v1 does not know yet (the versioning rule).
 * Mutation tried: dropping `ce-subject` from `faultTransitionCloudEventHeaders` fails the header check.
 */
import { describe, expect, it } from '@jest/globals';
import { Parser } from '@asyncapi/parser';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { faultTransitionCloudEventHeaders, faultTransitionConsumerV1 } from '../fault-transition-events.js';
import { HEADERS } from '../headers.js';
import { faultTransitionV1, type FaultTransitionV1 } from '../schemas/ingest-fault-transition.v1.js';
import { connectionStatusChangedV1 } from '../schemas/connection-status.v1.js';
import { syncOutcomeV1 } from '../schemas/sync-outcome.v1.js';
import { webhookEndpointDisabledV1 } from '../schemas/webhook.v1.js';
import { buildAsyncApiDocument, renderAsyncApi } from './document.js';

const committedPath = path.resolve(import.meta.dirname, '../../../../asyncapi/asyncapi.json');
const committed = readFileSync(committedPath, 'utf8');

const transition: FaultTransitionV1 = faultTransitionV1.parse({
  transitionId: '0b7e3c43-8f2a-4c1e-9d55-3f1e2a7b9c01',
  sequence: 42,
  connectionId: '5d2c7a10-3b9e-4f6a-8c21-7e4d9b0a1f32',
  provider: 'samsara',
  kind: 'opened',
  occurrenceId: '9a1f0c3e-2d4b-4e8f-a6c7-1b2d3e4f5a60',
  vehicleId: 'vcl_01JD00000000000000000000AB',
  vehicleSourceId: '281474977',
  faultKey: 'j1939:0:spn110:fmi0',
  code: 'SPN 110 FMI 0',
  description: 'Engine coolant temperature: high',
  model: 'complete_snapshot',
  observedAt: '2026-11-20T08:00:00.000Z',
  clearedBy: null,
  bootstrap: false,
});

describe('AsyncAPI document', () => {
  it('is the committed asyncapi/asyncapi.json, byte for byte', () => {
    if (renderAsyncApi() !== committed) throw new Error('asyncapi/asyncapi.json is stale: run npm run asyncapi');
    expect(renderAsyncApi()).toBe(committed);
  });

  it('parses as AsyncAPI 3.0.0 without error diagnostics', async () => {
    const { document, diagnostics } = await new Parser().parse(committed);
    expect(diagnostics.filter((d) => d.severity === 0)).toEqual([]);
    expect(document?.version()).toBe('3.0.0');
    const channel = document!.channels().get('faultTransitions');
    expect(channel?.address()).toBe('fleet.faults.{connectionId}.{kind}');
    expect(channel?.messages().all().map((m) => m.id())).toEqual(['faultTransition']);
    expect(document!.operations().all().map((o) => o.action())).toEqual(['receive', 'receive', 'receive', 'receive']);
    expect(document!.channels().all().map((c) => c.address())).toEqual(['fleet.faults.{connectionId}.{kind}', 'events.connection.status.{connectionId}', 'events.sync.outcome.{connectionId}', 'events.webhook.disabled.{applicationId}']);
  });

  it('documents each domain event with the payload its producer publishes (the subjects.ts schema)', () => {
    const messages = (buildAsyncApiDocument() as { components: { messages: Record<string, { payload: object }> } }).components.messages;
    const ajvDomain = new Ajv({ strict: false, allErrors: true });
    addFormats.default(ajvDomain);
    const connection = '5d2c7a10-3b9e-4f6a-8c21-7e4d9b0a1f32';
    const samples: Record<string, unknown> = {
      ConnectionStatusV1: connectionStatusChangedV1.parse({ eventId: '0b7e3c43-8f2a-8c1e-9d55-3f1e2a7b9c01', connectionId: connection, provider: 'motive', environment: 'sandbox', previousStatus: 'active', status: 'paused', revision: 4, changedAt: '2026-11-20T08:00:00.000Z' }),
      SyncOutcomeV1: syncOutcomeV1.parse({
        eventId: '0b7e3c43-8f2a-8c1e-9d55-3f1e2a7b9c02',
        connectionId: connection,
        applicationId: '9a1f0c3e-2d4b-4e8f-a6c7-1b2d3e4f5a60',
        sync: { id: 'sync_01JD3Y7Q8ZK5V2N4R6T8W0X2Y4', status: 'completed', requestedAt: '2026-11-20T08:00:00.000Z', startFrom: '2026-11-19T08:00:00.000Z', completedAt: '2026-11-20T08:01:00.000Z', attempts: 1, progress: 100, issues: [], providerRequests: [] },
        occurredAt: '2026-11-20T08:01:00.000Z',
      }),
      WebhookEndpointDisabledV1: webhookEndpointDisabledV1.parse({ eventId: '0b7e3c43-8f2a-4c1e-9d55-3f1e2a7b9c03', endpointId: '0b7e3c43-8f2a-4c1e-9d55-3f1e2a7b9c04', applicationId: connection, origin: 'https://hooks.example.com', reason: 'gone', failingSince: null, disabledAt: '2026-11-20T08:00:00.000Z' }),
    };
    for (const [name, sample] of Object.entries(samples)) {
      const valid = ajvDomain.compile(messages[name]!.payload);
      expect({ name, ok: valid(sample), errors: valid.errors ?? null }).toEqual({ name, ok: true, errors: null });
    }
  });

  const doc = buildAsyncApiDocument() as { components: { messages: { FaultTransitionV1: { headers: object; payload: object } } } };
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const message = doc.components.messages.FaultTransitionV1;

  it('describes the headers fault-feed sends (CloudEvents binary mode) and the payload', () => {
    const headers = { ...faultTransitionCloudEventHeaders(transition), [HEADERS.msgId]: transition.transitionId, [HEADERS.msgVersion]: '1' };
    expect(headers).toMatchObject({ 'ce-specversion': '1.0', 'ce-id': transition.transitionId, 'ce-type': 'com.switchyard.fleet.fault.opened.v1', 'ce-time': transition.observedAt, 'ce-subject': transition.vehicleId });
    const validHeaders = ajv.compile(message.headers);
    expect({ ok: validHeaders(headers), errors: validHeaders.errors ?? null }).toEqual({ ok: true, errors: null });
    const validPayload = ajv.compile(message.payload);
    expect(validPayload(transition)).toBe(true);
  });

  it('accepts an additive v1 change on the consumer side (unknown field, new open-enum value), not a breaking one', () => {
    const additive = { ...transition, kind: 'cleared', clearedBy: 'provider_reset', provider: 'newprovider', severity: 'high', structured: { standard: 'iso14229', did: 61840 } };
    expect(ajv.compile(message.payload)(additive)).toBe(true);
    expect(faultTransitionConsumerV1.parse(additive)).toMatchObject({ clearedBy: 'provider_reset', severity: 'high', structured: { standard: 'iso14229', did: 61840 } });
    expect(ajv.compile(message.payload)({ ...transition, structured: { standard: 'j1939', spn: 110, fmi: 0, sourceAddress: 0 } })).toBe(true);
    expect(faultTransitionConsumerV1.safeParse({ ...transition, kind: 'acknowledged' }).success).toBe(false);
    const { sequence: _dropped, ...withoutSequence } = transition;
    expect(faultTransitionConsumerV1.safeParse(withoutSequence).success).toBe(false);
  });
});
