/** Batch ids, record splitting and the batch schemas' edges. */
import { describe, expect, it } from '@jest/globals';
import { INGEST_MAX_RECORDS, directoryBatchV1, ingestBatchId, splitIngestRecords, telemetryBatchV1 } from './ingest-batch.v1.js';

const parts = { connectionId: '0B6C1D52-7A55-4C3A-9D0E-000000000001', kind: 'observations' as const, unitId: '7', fencingToken: '2', pageKey: 'start', part: 0 };

describe('ingestBatchId', () => {
  it('is stable, case-insensitive on the connection, and differs per lease, page and part', () => {
    const id = ingestBatchId(parts);
    expect(id).toMatch(/^b_[0-9a-f]{40}$/);
    expect(ingestBatchId({ ...parts, connectionId: parts.connectionId.toLowerCase() })).toBe(id);
    for (const change of [{ fencingToken: '3' }, { pageKey: 'c2' }, { part: 1 }, { unitId: null }]) expect(ingestBatchId({ ...parts, ...change })).not.toBe(id);
  });
});

describe('splitIngestRecords', () => {
  it('splits by record count and by bytes, never returning an empty part for non-empty input', () => {
    const many = Array.from({ length: INGEST_MAX_RECORDS.vehicles * 2 + 1 }, (_, i) => ({ i }));
    expect(splitIngestRecords('vehicles', many).map((p) => p.length)).toEqual([200, 200, 1]);
    const big = Array.from({ length: 5 }, () => ({ blob: 'x'.repeat(400) }));
    expect(splitIngestRecords('groups', big, 1_000).map((p) => p.length)).toEqual([2, 2, 1]);
    expect(splitIngestRecords('groups', [])).toEqual([[]]);
  });
});

describe('batch schemas', () => {
  const base = {
    batchId: 'b_0123456789abcdef',
    connectionId: '0b6c1d52-7a55-4c3a-9d0e-000000000001',
    provider: 'samsara',
    syncId: null,
    unitId: null,
    fencingToken: null,
    fetchedAt: '2026-01-01T00:00:00.000Z',
    providerCursor: null,
    final: true,
  };
  it('accepts a scheduled (no sync) batch and refuses a half-set sync reference', () => {
    expect(telemetryBatchV1.safeParse({ ...base, kind: 'observations', records: [] }).success).toBe(true);
    expect(telemetryBatchV1.safeParse({ ...base, unitId: '1', kind: 'observations', records: [] }).success).toBe(false);
  });
  it('refuses more records than the kind allows and a kind the subject does not carry', () => {
    const tooMany = Array.from({ length: INGEST_MAX_RECORDS.groups + 1 }, (_, i) => ({
      provider: 'samsara',
      sourceId: `g${i}`,
      name: { status: 'missing', value: null, source: 's' },
      description: { status: 'missing', value: null, source: 's' },
      parentSourceId: null,
      fetchedAt: base.fetchedAt,
    }));
    expect(directoryBatchV1.safeParse({ ...base, kind: 'groups', records: tooMany.slice(1) }).success).toBe(true);
    expect(directoryBatchV1.safeParse({ ...base, kind: 'groups', records: tooMany }).success).toBe(false);
    expect(directoryBatchV1.safeParse({ ...base, kind: 'observations', records: [] }).success).toBe(false);
  });
  it('refuses an observation whose value is null (an observation always carries a real value)', () => {
    const obs = { provider: 'samsara', vehicleSourceId: 'v', metric: 'odometer', value: { meters: null }, source: 's', observedAt: base.fetchedAt, fetchedAt: base.fetchedAt };
    expect(telemetryBatchV1.safeParse({ ...base, kind: 'observations', records: [obs] }).success).toBe(false);
  });
});
