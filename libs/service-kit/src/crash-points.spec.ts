/** The crash plan's parsing: unset is off, `<point>[:<n>]` (comma-separated, each point once) with an optional SIGSTOP, anything else refused. */
import { describe, expect, it } from '@jest/globals';
import { crashPoint, parseCrashPlan } from './crash-points.js';

describe('parseCrashPlan', () => {
  it('is off when SWITCHYARD_CRASH_AT is unset or empty', () => {
    expect(parseCrashPlan({})).toBeUndefined();
    expect(parseCrashPlan({ SWITCHYARD_CRASH_AT: '' })).toBeUndefined();
  });

  it('reads the point, the hit count (default 1) and the signal (default SIGKILL)', () => {
    expect(parseCrashPlan({ SWITCHYARD_CRASH_AT: 'in-commit' })).toEqual({ points: [{ point: 'in-commit', nth: 1 }], signal: 'SIGKILL' });
    expect(parseCrashPlan({ SWITCHYARD_CRASH_AT: 'after-publish:3', SWITCHYARD_CRASH_SIGNAL: 'SIGSTOP' })).toEqual({ points: [{ point: 'after-publish', nth: 3 }], signal: 'SIGSTOP' });
  });

  it('reads several points, each with its own hit count', () => {
    expect(parseCrashPlan({ SWITCHYARD_CRASH_AT: 'in-commit:2,after-commit-before-ack,relay-after-publish:4' })).toEqual({
      points: [
        { point: 'in-commit', nth: 2 },
        { point: 'after-commit-before-ack', nth: 1 },
        { point: 'relay-after-publish', nth: 4 },
      ],
      signal: 'SIGKILL',
    });
  });

  it.each([['after-lunch'], ['in-commit:0'], ['in-commit:x'], ['in-commit:1:2'], ['after-fetch:1.5'], ['in-commit:1,in-commit:2'], ['in-commit,'], ['receipt-after-ledger:2,nowhere']])('refuses SWITCHYARD_CRASH_AT=%s', (value) => {
    expect(() => parseCrashPlan({ SWITCHYARD_CRASH_AT: value })).toThrow(/SWITCHYARD_CRASH_AT/);
  });

  it('refuses a signal other than SIGKILL or SIGSTOP', () => {
    expect(() => parseCrashPlan({ SWITCHYARD_CRASH_AT: 'in-commit', SWITCHYARD_CRASH_SIGNAL: 'SIGTERM' })).toThrow(/SWITCHYARD_CRASH_SIGNAL/);
  });

  it('does nothing in a process started without a plan', () => {
    expect(() => crashPoint('after-fetch')).not.toThrow();
  });
});
