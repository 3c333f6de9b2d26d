import { describe, expect, it } from '@jest/globals';
import { available, missing, type TripRecord } from '@switchyard/domain';
import { INGEST_MAX_RECORDS, ingestBatchId, tripsBatchV1 } from '@switchyard/messaging';
import type { LeasedUnit } from '../db/repositories/unit-lease.repository.js';
import { decodeFleetCursor, decodeLaneCursor, encodeFleetCursor, encodeLaneCursor, MEMBERSHIP_LANES, groupIntoJobs, groupVehicles, healthDatasets, healthScopes, pageBatches, sharedCursor } from './collector-jobs.js';
import { extendedLaneFailure, failureCode, RETRYABLE_CODES } from './failure-codes.js';
import { ProviderError } from '@switchyard/providers';
import { BusTimeoutError, BusUnavailableError, RpcError } from '@switchyard/messaging';

const CONNECTION = '0b9f3c1e-2f4a-4d7e-9b1c-3a2e5f6d7c8b';
let nextId = 1;
function unit(syncId: string, purpose: LeasedUnit['purpose'], vehicle: string, extra: Partial<LeasedUnit> = {}): LeasedUnit {
  return {
    unitId: String(nextId++),
    syncId,
    connectionId: CONNECTION,
    purpose,
    vehicleSourceId: vehicle,
    windowStart: purpose === 'trips' ? '2026-01-01T00:00:00.000Z' : null,
    windowEnd: purpose === 'trips' ? '2026-01-02T00:00:00.000Z' : null,
    attempt: 1,
    fencingToken: '3',
    providerCursor: null,
    leaseExpiresAt: '2026-01-01T00:01:00.000Z',
    signals: [],
    extendedTelemetry: false,
    passUnits: 1,
    trace: { correlationId: `sync:${syncId}` },
    ...extra,
  };
}

function trip(i: number): TripRecord {
  return {
    provider: 'samsara',
    sourceId: `v1:${i}`,
    vehicleSourceId: 'v1',
    driverSourceId: null,
    startedAt: '2026-01-01T01:00:00.000Z',
    endedAt: '2026-01-01T02:00:00.000Z',
    durationMs: 3_600_000,
    distanceKm: available(12.5, 'test'),
    distanceBasis: 'odometer',
    startLocation: missing('test.start'),
    endLocation: missing('test.end'),
    fetchedAt: '2026-01-01T03:00:00.000Z',
  };
}

describe('groupIntoJobs', () => {
  it('lists the fleet once per sync and snapshot purpose, and gives each trips unit its own job', () => {
    const a1 = unit('sync_a', 'vehicles', 'v1');
    const a2 = unit('sync_a', 'vehicles', 'v2');
    const b1 = unit('sync_b', 'vehicles', 'v1');
    const m1 = unit('sync_a', 'groupMemberships', 'v1');
    const t1 = unit('sync_a', 'trips', 'v1');
    const t2 = unit('sync_a', 'trips', 'v2');
    const m2 = unit('sync_a', 'groupMemberships', 'v2');
    const jobs = groupIntoJobs([a1, a2, b1, m1, t1, t2, m2]);
    expect(jobs.map((j) => (j.kind === 'unit' ? [j.purpose, j.unit.unitId] : [j.purpose, j.syncId, j.units.map((u) => u.unitId)]))).toEqual([
      ['vehicles', 'sync_a', [a1.unitId, a2.unitId]],
      ['vehicles', 'sync_b', [b1.unitId]],
      ['groupMemberships', 'sync_a', [m1.unitId, m2.unitId]],
      ['trips', t1.unitId],
      ['trips', t2.unitId],
    ]);
  });

  it('resumes a group only from a cursor every unit shares', () => {
    expect(sharedCursor([unit('s', 'vehicles', 'v1', { providerCursor: 'c2' }), unit('s', 'vehicles', 'v2', { providerCursor: 'c2' })])).toBe('c2');
    expect(sharedCursor([unit('s', 'vehicles', 'v1', { providerCursor: 'c2' }), unit('s', 'vehicles', 'v2', { providerCursor: null })])).toBeNull();
  });

  it('round-trips the membership lanes and restarts on a cursor it does not know', () => {
    expect(decodeLaneCursor(encodeLaneCursor({ lane: 'vehicles', cursor: null }), MEMBERSHIP_LANES)).toEqual({ lane: 'vehicles', cursor: null });
    expect(decodeLaneCursor(encodeLaneCursor({ lane: 'groups', cursor: 'abc' }), MEMBERSHIP_LANES)).toEqual({ lane: 'groups', cursor: 'abc' });
    expect(decodeLaneCursor('not json', MEMBERSHIP_LANES)).toEqual({ lane: 'groups', cursor: null });
    expect(decodeLaneCursor(null, MEMBERSHIP_LANES)).toEqual({ lane: 'groups', cursor: null });
    // A lane this listing does not run (another listing's cursor, or one of a lane since dropped) restarts it.
    expect(decodeLaneCursor(encodeLaneCursor({ lane: 'extended', cursor: 'x' }), MEMBERSHIP_LANES)).toEqual({ lane: 'groups', cursor: null });
  });
});

describe('internal purposes', () => {
  it('groups latest telemetry and faults per sync like vehicles, and gives history, drivers and groups units their own jobs', () => {
    const l1 = unit('sync_a', 'telemetryLatest', 'v1');
    const f1 = unit('sync_a', 'faults', 'v1');
    const h1 = unit('sync_a', 'telemetryHistory', 'v1');
    const d = unit('sync_a', 'drivers', 'v1', { vehicleSourceId: null });
    const l2 = unit('sync_a', 'telemetryLatest', 'v2');
    const g = unit('sync_a', 'groups', 'v1', { vehicleSourceId: null });
    const jobs = groupIntoJobs([l1, f1, h1, d, l2, g]);
    expect(jobs.map((j) => (j.kind === 'unit' ? [j.purpose, j.unit.unitId] : [j.purpose, j.units.map((u) => u.unitId)]))).toEqual([
      ['telemetryLatest', [l1.unitId, l2.unitId]],
      ['faults', [f1.unitId]],
      ['telemetryHistory', h1.unitId],
      ['drivers', d.unitId],
      ['groups', g.unitId],
    ]);
  });

  it('binds a fleet cursor to the vehicle set it was asked for', () => {
    const vehicles = groupVehicles([unit('s', 'faults', 'v2'), unit('s', 'faults', 'v1'), unit('s', 'faults', 'v1')]);
    expect(vehicles).toEqual(['v1', 'v2']);
    const stored = encodeFleetCursor(vehicles, 'offset-25');
    expect(decodeFleetCursor(stored, ['v1', 'v2'])).toBe('offset-25');
    expect(decodeFleetCursor(stored, ['v1'])).toBeNull();
    expect(decodeFleetCursor('raw-provider-cursor', vehicles)).toBeNull();
    expect(decodeFleetCursor(null, vehicles)).toBeNull();
  });

  it('reports telemetry with an extended metric under both health scopes, everything else under core', () => {
    const support = { 'telemetry.odometer': 'supported', 'telemetry.engineHours': 'conditional' };
    const extended = unit('s', 'telemetryHistory', 'v1', { signals: ['odometer', 'engineHours'], extendedTelemetry: true });
    const [job] = groupIntoJobs([extended]);
    expect(healthScopes(job!, support)).toEqual(['core', 'extended']);
    const [optedOut] = groupIntoJobs([{ ...extended, extendedTelemetry: false }]);
    expect(healthScopes(optedOut!, support)).toEqual(['core']);
    const [faults] = groupIntoJobs([unit('s', 'faults', 'v1', { signals: ['faults', 'engineHours'], extendedTelemetry: true })]);
    expect(healthScopes(faults!, support)).toEqual(['core']);
  });

  it('names the directory dataset each purpose feeds in its health, none for telemetry and faults', () => {
    const purposes = ['vehicles', 'groupMemberships', 'trips', 'drivers', 'groups', 'telemetryLatest', 'telemetryHistory', 'faults'] as const;
    const jobs = groupIntoJobs(purposes.map((purpose) => unit('s', purpose, 'v1')));
    expect(Object.fromEntries(jobs.map((job) => [job.purpose, healthDatasets(job)]))).toEqual({
      vehicles: ['vehicles'],
      groupMemberships: ['groups'],
      trips: ['trips'],
      drivers: ['drivers'],
      groups: ['groups'],
      telemetryLatest: [],
      telemetryHistory: [],
      faults: [],
    });
  });
});

describe('pageBatches', () => {
  const t = unit('sync_01JD0000000000000000000000', 'trips', 'v1');
  const input = { unit: t, provider: 'samsara' as const, kind: 'trips' as const, pageKey: 'start', providerCursor: 'next-1', fetchedAt: '2026-01-01T03:00:00.000Z' };

  it('splits a page at the record limit, marks only the last part of the last page final, and ids each part stably', () => {
    const records = Array.from({ length: INGEST_MAX_RECORDS.trips + 1 }, (_, i) => trip(i));
    const batches = pageBatches({ ...input, records, last: true });
    expect(batches.map((b) => [b.records.length, b.final])).toEqual([
      [INGEST_MAX_RECORDS.trips, false],
      [1, true],
    ]);
    expect(batches.map((b) => b.batchId)).toEqual([0, 1].map((part) => ingestBatchId({ connectionId: CONNECTION, kind: 'trips', unitId: t.unitId, fencingToken: '3', pageKey: 'start', part })));
    for (const b of batches) expect(tripsBatchV1.safeParse(b).success).toBe(true);
    expect(batches[0]).toMatchObject({ syncId: t.syncId, unitId: t.unitId, fencingToken: '3', providerCursor: 'next-1' });
  });

  it('sends an empty final batch so a unit whose vehicle has no records still completes, and no final before the last page', () => {
    expect(pageBatches({ ...input, records: [], last: true }).map((b) => [b.records.length, b.final])).toEqual([[0, true]]);
    expect(pageBatches({ ...input, records: [trip(1)], last: false }).map((b) => b.final)).toEqual([false]);
  });

  it('names the roster pass (sync purpose, its unit count) on vehicles and drivers batches only', () => {
    const v = unit('sync_01JD0000000000000000000000', 'groupMemberships', 'v1', { passUnits: 24 });
    const [vehicles] = pageBatches({ ...input, unit: v, kind: 'vehicles', records: [], last: true });
    expect(vehicles).toMatchObject({ pass: { purpose: 'groupMemberships', units: 24 }, final: true });
    const [trips] = pageBatches({ ...input, records: [], last: true });
    expect(trips).not.toHaveProperty('pass');
  });

  it('gives a re-leased unit (new fencing token) new batch ids', () => {
    const [first] = pageBatches({ ...input, records: [trip(1)], last: true });
    const [again] = pageBatches({ ...input, unit: { ...t, fencingToken: '4' }, records: [trip(1)], last: true });
    expect(again!.batchId).not.toBe(first!.batchId);
  });
});

describe('failureCode', () => {
  it('keeps provider codes, maps the gateway’s missing credentials and failed OAuth refreshes, a refused or unreachable bus to bus_unavailable, and calls anything else a retryable collector_error', () => {
    expect(failureCode(new ProviderError('provider_auth_required', { status: 401 }))).toBe('provider_auth_required');
    expect(failureCode(new RpcError('provider_config_invalid'))).toBe('provider_config_invalid');
    // The gateway could not refresh an OAuth grant: refused (the customer reconnects) or the token endpoint was down (retried).
    expect(failureCode(new RpcError('provider_auth_required', 'the OAuth grant could not be refreshed'))).toBe('provider_auth_required');
    expect(failureCode(new RpcError('provider_unavailable'))).toBe('provider_unavailable');
    expect(failureCode(new RpcError('internal_error'))).toBe('collector_error');
    // A full INGEST stream (decision 0026) or NATS down: retried on the next lease, never a verdict on the sync.
    expect(failureCode(new BusUnavailableError('ingest.telemetry.c1', 'stream_full'))).toBe('bus_unavailable');
    expect(failureCode(new BusTimeoutError('ingest.telemetry.c1', 5000))).toBe('bus_unavailable');
    expect(failureCode(new Error('socket hang up'))).toBe('collector_error');
    expect([...RETRYABLE_CODES].sort()).toEqual(['bus_unavailable', 'collector_error', 'provider_throttled', 'provider_unavailable']);
  });
});

describe('extendedLaneFailure', () => {
  // Mutation tried: answering 'fail' for provider_scope_mismatch fails this test (and the system
  // test of a refused stat type: the run fails instead of completing with its core readings).
  it('absorbs a refusal of the extended fields, retries a passing failure, fails on revoked credentials', () => {
    expect(extendedLaneFailure(new ProviderError('provider_scope_mismatch', { status: 403 }))).toBe('refused');
    expect(extendedLaneFailure(new ProviderError('provider_config_invalid', { status: 400 }))).toBe('refused');
    expect(extendedLaneFailure(new ProviderError('provider_response_changed'))).toBe('refused');
    expect(extendedLaneFailure(new ProviderError('provider_throttled', { status: 429 }))).toBe('retry');
    expect(extendedLaneFailure(new ProviderError('provider_unavailable', { status: 503 }))).toBe('retry');
    expect(extendedLaneFailure(new BusTimeoutError('ingest.telemetry.c1', 5000))).toBe('retry');
    expect(extendedLaneFailure(new ProviderError('provider_auth_required', { status: 401 }))).toBe('fail');
    expect(extendedLaneFailure(new RpcError('provider_auth_required'))).toBe('fail');
    expect(extendedLaneFailure(new RpcError('provider_config_invalid'))).toBe('fail');
  });
});
