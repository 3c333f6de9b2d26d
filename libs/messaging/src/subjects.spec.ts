import { describe, expect, it } from '@jest/globals';
import { fromWireHeaders, toWireHeaders } from './headers.js';
import { connectionConfigV1 } from './schemas/connection-config.v1.js';
import { ALL_STREAMS, CONSUMERS, deadLetterSubject, EVENTS, Namespace, resolveBinding, RPCS, streamForSubject, subjectFor, subjectMatches } from './subjects.js';

describe('subjects', () => {
  it('fills pattern tokens in order and rejects bad tokens or counts', () => {
    expect(subjectFor(EVENTS.connectionConfigChanged.subject, 'c1')).toBe('events.connection.config.c1');
    expect(() => subjectFor('a.*.*', 'x')).toThrow(TypeError);
    expect(() => subjectFor('a.*', 'x.y')).toThrow(TypeError);
    expect(() => subjectFor('a.*', '>')).toThrow(TypeError);
  });

  it('matches NATS wildcards', () => {
    expect(subjectMatches('ingest.>', 'ingest.directory.c1')).toBe(true);
    expect(subjectMatches('ingest.>', 'ingest')).toBe(false);
    expect(subjectMatches('a.*.c', 'a.b.c')).toBe(true);
    expect(subjectMatches('a.*.c', 'a.b.c.d')).toBe(false);
    expect(subjectMatches('a.*', 'a')).toBe(false);
  });

  it('routes every declared event to a declared stream that captures it', () => {
    for (const event of Object.values(EVENTS)) {
      expect(streamForSubject(ALL_STREAMS, event.subject.replaceAll('*', 'x'))?.name).toBe(event.stream);
    }
    expect(deadLetterSubject('EVENTS', 'directory_config')).toBe('dlq.events.directory_config');
  });

  it('declares a ping per context', () => {
    expect(Object.values(RPCS.ping).map((r) => r.subject).sort()).toEqual(
      ['directory.ping', 'enrichment.ping', 'faults.ping', 'gateway.ping', 'sync.ping', 'telemetry.ping'].sort(),
    );
  });

  it('declares each durable once, on a declared event, and resolves every binding back to its entry', () => {
    const durables = Object.values(CONSUMERS).map((c) => c.durable);
    expect(new Set(durables).size).toBe(durables.length);
    for (const consumer of Object.values(CONSUMERS)) expect(Object.values(EVENTS)).toContain(consumer.event);
    expect(resolveBinding('consumer', CONSUMERS.directoryIngest.durable, 'directory')).toEqual({ kind: 'consumer', consumer: CONSUMERS.directoryIngest });
    expect(resolveBinding('consumer', CONSUMERS.connectionConfig.durable, 'fault-feed')).toMatchObject({ consumer: { durable: 'fault-feed-connection-config' } });
    expect(resolveBinding('consumer', 'nobody-consumes-this', 'directory')).toBeUndefined();
  });

  it('resolves request/reply patterns, the {context} template to the service prefix', () => {
    expect(resolveBinding('rpc', RPCS.directory.trips.list.subject, 'directory')).toEqual({ kind: 'rpc', rpc: RPCS.directory.trips.list });
    expect(resolveBinding('rpc', '{context}.ping', 'sync-orchestrator')).toEqual({ kind: 'rpc', rpc: RPCS.ping.syncOrchestrator });
    expect(resolveBinding('rpc', '{context}.ping', 'telemetry-ingest')).toEqual({ kind: 'rpc', rpc: RPCS.ping.telemetryIngest });
    expect(resolveBinding('rpc', 'directory.read.nothing', 'directory')).toBeUndefined();
  });

  it('namespaces subjects and names, and strips them back', () => {
    const ns = new Namespace('t1a2b3');
    expect(ns.subject('events.x')).toBe('t1a2b3.events.x');
    expect(ns.strip('t1a2b3.events.x')).toBe('events.x');
    expect(ns.stream('EVENTS')).toBe('T1A2B3_EVENTS');
    expect(ns.durable('directory_config')).toBe('T1A2B3_directory_config');
    const none = new Namespace('');
    expect(none.subject('events.x')).toBe('events.x');
    expect(none.stream('EVENTS')).toBe('EVENTS');
    expect(() => new Namespace('Bad.NS')).toThrow(TypeError);
    expect(() => ns.durable('a.b')).toThrow(TypeError);
  });
});

describe('headers', () => {
  it('maps port headers to the wire and back, dropping bus-owned and Nats-* names', () => {
    const wire = toWireHeaders({ correlationId: 'c-1', traceparent: '00-abc-def-01', 'X-Tenant': 't', 'Nats-Msg-Id': 'evil', 'x-msg-version': '9' }, { 'x-msg-version': '1' });
    expect(wire).toEqual({ 'x-correlation-id': 'c-1', traceparent: '00-abc-def-01', 'x-tenant': 't', 'x-msg-version': '1' });
    expect(fromWireHeaders(Object.entries({ ...wire, 'Nats-Msg-Id': 'm1' }))).toEqual({
      correlationId: 'c-1',
      traceparent: '00-abc-def-01',
      'x-tenant': 't',
      'x-msg-version': '1',
    });
  });
});

describe('connection-config.v1', () => {
  const valid = {
    connectionId: '7f0c7e7e-3b1a-4c55-9a55-0a4e2f6c1b11',
    provider: 'samsara',
    environment: 'sandbox',
    status: 'active',
    unifiedCollection: false,
    purposes: { vehicles: true, groupMemberships: false, trips: false },
    approvedVehicleIds: ['281474976710655'],
    includeVehicleIds: [],
    excludeVehicleIds: [],
    includeStatuses: ['active'],
    optIns: { groupInventory: false, vehicleMetadata: true, extendedTelemetry: false },
    approvedGroupIds: [],
    selectedSignals: ['odometer', 'faults'],
    revision: 3,
    updatedAt: '2026-11-22T12:00:00.000Z',
  };

  it('accepts a full snapshot', () => {
    expect(connectionConfigV1.parse(valid)).toEqual(valid);
  });

  it.each([
    ['duplicate signals', { selectedSignals: ['odometer', 'odometer'] }],
    ['five signals', { selectedSignals: ['odometer', 'faults', 'engineHours', 'location', 'odometer'] }],
    ['101 group ids', { approvedGroupIds: Array.from({ length: 101 }, (_, i) => `g${i}`) }],
    ['revision 0', { revision: 0 }],
    ['unknown provider', { provider: 'other' }],
    ['non-uuid id', { connectionId: 'c1' }],
    ['unknown key', { extra: 1 }],
  ])('rejects %s', (_label, patch) => {
    expect(connectionConfigV1.safeParse({ ...valid, ...patch }).success).toBe(false);
  });
});
