import { describe, expect, it } from '@jest/globals';
import { isOpen, nextStatus, progressOf, SYNC_STATUS_LIST, type SyncEvent } from './sync-state.js';

const EVENTS: SyncEvent[] = ['work_started', 'all_units_receipted', 'collection_failed', 'cancel', 'retry'];

describe('sync state machine', () => {
  it('allows exactly the documented moves', () => {
    const table = Object.fromEntries(SYNC_STATUS_LIST.map((s) => [s, Object.fromEntries(EVENTS.map((e) => [e, nextStatus(s, e) ?? null]))]));
    expect(table).toEqual({
      requested: { work_started: 'in_progress', all_units_receipted: 'completed', collection_failed: 'failed', cancel: 'failed', retry: null },
      in_progress: { work_started: 'in_progress', all_units_receipted: 'completed', collection_failed: 'failed', cancel: 'failed', retry: null },
      completed: { work_started: null, all_units_receipted: null, collection_failed: null, cancel: null, retry: null },
      failed: { work_started: null, all_units_receipted: null, collection_failed: null, cancel: null, retry: 'requested' },
    });
  });

  it('retry only from failed, cancel only from requested or in_progress (spec 3 rules 1-2)', () => {
    expect(SYNC_STATUS_LIST.filter((s) => nextStatus(s, 'retry'))).toEqual(['failed']);
    expect(SYNC_STATUS_LIST.filter((s) => nextStatus(s, 'cancel'))).toEqual(['requested', 'in_progress']);
    expect(SYNC_STATUS_LIST.filter(isOpen)).toEqual(['requested', 'in_progress']);
  });

  it('cancellation never completes', () => {
    for (const s of SYNC_STATUS_LIST) expect(nextStatus(s, 'cancel')).not.toBe('completed');
  });
});

describe('progressOf', () => {
  it('is receipted / admitted × 100, and 100 only when every unit is receipted', () => {
    expect(progressOf(0, 4)).toBe(0);
    expect(progressOf(1, 3)).toBe(33.33);
    expect(progressOf(2, 3)).toBe(66.66);
    expect(progressOf(9_999, 10_000)).toBe(99.99);
    expect(progressOf(3, 3)).toBe(100);
  });

  it('refuses impossible counts instead of inventing a number', () => {
    expect(() => progressOf(1, 0)).toThrow(RangeError);
    expect(() => progressOf(4, 3)).toThrow(RangeError);
    expect(() => progressOf(-1, 3)).toThrow(RangeError);
  });
});
