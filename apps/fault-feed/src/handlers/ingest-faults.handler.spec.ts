/**
 * `faultsObserved`: the per-vehicle times fault-feed reports for Telemetry `faultsObservedAt` —
 * the time each vehicle's faults were read up to (docs/faults.md), one meaning for both models.
 */
import { describe, expect, it } from '@jest/globals';
import { vehicleId } from '@switchyard/domain';
import type { FaultBatchV1 } from '@switchyard/messaging';
import { faultsObserved } from './ingest-faults.handler.js';

const connectionId = '0b9f3c1e-2f4a-4d7e-9b1c-3a2e5f6d7c8b';
const envelope = { batchId: 'b_0123456789', connectionId, syncId: null, unitId: null, fencingToken: null, fetchedAt: '2026-03-08T06:00:05.000Z', providerCursor: null };
const record = { model: 'explicit_records', provider: 'geotab', sourceId: 'bF1', vehicleSourceId: 'b1', faultKey: 'k', code: 'P0420', description: null, observedAt: '2026-03-05T07:00:00.000Z', providerState: 'Active', dismissedAt: null, fetchedAt: envelope.fetchedAt } as const;
const vcl = (sourceId: string, provider: 'geotab' | 'samsara' = 'geotab') => vehicleId({ connectionId, provider, sourceId });

describe('faultsObserved', () => {
  // mutation: the `read` branch removed (records' own times for every batch) → b1 reports 03-05 07:00 and b2 nothing: this fails.
  it('an explicit-records read reports its vehicle at the window end on its final batch, also when it found no record', () => {
    const read = { vehicleSourceId: 'b1', windowEnd: '2026-03-08T06:00:00.000Z' };
    const batch = (final: boolean, records: (typeof record)[], vehicle = 'b1'): FaultBatchV1 => ({ ...envelope, provider: 'geotab', kind: 'fault_records', final, records, read: { ...read, vehicleSourceId: vehicle } });
    expect(faultsObserved(batch(true, [record]))?.vehicles).toEqual([{ vehicleId: vcl('b1'), observedAt: read.windowEnd }]);
    expect(faultsObserved(batch(true, [], 'b2'))?.vehicles).toEqual([{ vehicleId: vcl('b2'), observedAt: read.windowEnd }]);
    expect(faultsObserved(batch(false, [record]))).toBeUndefined();
  });

  it('a snapshot reports its own time (the read); a records batch without `read` its records\' newest time', () => {
    const snapshots: FaultBatchV1 = { ...envelope, provider: 'samsara', kind: 'fault_snapshots', final: true, records: [{ model: 'complete_snapshot', provider: 'samsara', vehicleSourceId: 's1', observedAt: envelope.fetchedAt, active: [], fetchedAt: envelope.fetchedAt }] };
    expect(faultsObserved(snapshots)?.vehicles).toEqual([{ vehicleId: vcl('s1', 'samsara'), observedAt: envelope.fetchedAt }]);
    const legacy: FaultBatchV1 = { ...envelope, provider: 'geotab', kind: 'fault_records', final: true, records: [record] };
    expect(faultsObserved(legacy)?.vehicles).toEqual([{ vehicleId: vcl('b1'), observedAt: record.observedAt }]);
  });
});
