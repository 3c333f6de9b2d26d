import { describe, expect, it } from '@jest/globals';
import { delistedDataset, passKeyOf, rosterPosition } from './roster-pass.service.js';

describe('passKeyOf', () => {
  const batch = { syncId: 'sync_01JD0000000000000000000000', unitId: '7', batchId: 'b1' };

  it('is the unit of the sync, whatever the batch', () => {
    expect(passKeyOf(batch)).toBe(passKeyOf({ ...batch, batchId: 'b2' }));
    expect(passKeyOf(batch)).not.toBe(passKeyOf({ ...batch, unitId: '8' }));
    expect(passKeyOf(batch)).not.toBe(passKeyOf({ ...batch, syncId: 'sync_01JD0000000000000000000001' }));
    expect(passKeyOf(batch)).not.toBe(passKeyOf({ ...batch, syncId: null }));
  });

  it("is the sync's units of one purpose when the batch names its pass", () => {
    const pass = { purpose: 'vehicles', units: 24 };
    expect(passKeyOf({ ...batch, pass })).toBe(passKeyOf({ ...batch, unitId: '8', batchId: 'b2', pass }));
    expect(passKeyOf({ ...batch, pass })).not.toBe(passKeyOf({ ...batch, pass: { purpose: 'groupMemberships', units: 24 } }));
    expect(passKeyOf({ ...batch, pass })).not.toBe(passKeyOf({ ...batch, syncId: 'sync_01JD0000000000000000000001', pass }));
  });

  it('is the batch alone when it has no unit', () => {
    expect(passKeyOf({ syncId: null, unitId: null, batchId: 'b1' })).not.toBe(passKeyOf({ syncId: null, unitId: null, batchId: 'b2' }));
  });
});

describe('rosterPosition', () => {
  const open = (from: number) => ({ from_seq: from, to_seq: null });
  const closed = (from: number, to: number) => ({ from_seq: from, to_seq: to });

  it('is unlisted before any complete pass and for a driver no pass listed', () => {
    expect(rosterPosition([open(1)], undefined)).toBe('unlisted');
    expect(rosterPosition([], 3)).toBe('unlisted');
  });

  it('is listed inside an interval, the closing pass excluded', () => {
    expect(rosterPosition([open(2)], 2)).toBe('listed');
    expect(rosterPosition([open(2)], 9)).toBe('listed');
    expect(rosterPosition([closed(2, 4)], 3)).toBe('listed');
    expect(rosterPosition([closed(2, 4)], 4)).toBe('delisted');
  });

  it('is unlisted for a pass before its first listing, even when a later pass lists it', () => {
    expect(rosterPosition([open(5)], 4)).toBe('unlisted');
  });

  it('follows a driver removed and listed again', () => {
    const intervals = [closed(1, 3), open(5)];
    expect(rosterPosition(intervals, 2)).toBe('listed');
    expect(rosterPosition(intervals, 4)).toBe('delisted');
    expect(rosterPosition(intervals, 6)).toBe('listed');
  });
});

describe('delistedDataset', () => {
  const directory = { status: 'available' as const, fetchedAt: '2026-11-22T12:00:00.000Z', capturedAt: '2026-11-22T12:00:00.000Z', publishedAt: '2026-11-22T12:00:01.000Z', errorCode: null };

  it('is stale with the record fetch time, keeping the directory capture time', () => {
    expect(delistedDataset(directory, '2026-11-22T11:00:00.000Z')).toEqual({ ...directory, status: 'stale', fetchedAt: '2026-11-22T11:00:00.000Z' });
    expect(delistedDataset({ ...directory, status: 'stale' }, '2026-11-22T11:00:00.000Z').status).toBe('stale');
  });

  it('stays degraded with its reason', () => {
    expect(delistedDataset({ ...directory, status: 'degraded', errorCode: 'provider_throttled' }, '2026-11-22T11:00:00.000Z')).toMatchObject({ status: 'degraded', errorCode: 'provider_throttled' });
  });
});
