import { describe, expect, it } from '@jest/globals';
import { SYNC_PAGE } from './limits.js';
import { PAGE_RANGES, parseLimit } from './pagination.js';

describe('parseLimit', () => {
  it('defaults when absent', () => {
    expect(parseLimit(undefined, SYNC_PAGE)).toEqual({ ok: true, value: 25 });
    expect(parseLimit(undefined, PAGE_RANGES.trips)).toEqual({ ok: true, value: 100 });
  });
  it('accepts the bounds', () => {
    expect(parseLimit('1', SYNC_PAGE)).toEqual({ ok: true, value: 1 });
    expect(parseLimit('100', SYNC_PAGE)).toEqual({ ok: true, value: 100 });
    expect(parseLimit(50, SYNC_PAGE)).toEqual({ ok: true, value: 50 });
  });
  it('refuses rather than clamps', () => {
    for (const bad of ['0', '101', '-1', '+5', '5.0', '1e2', '0x10', ' 5', '05', '', 'ten', 2.5, ['1', '2'], null, true]) {
      expect(parseLimit(bad, SYNC_PAGE)).toMatchObject({ ok: false, error: 'invalid_query' });
    }
  });
});
