import { describe, expect, it } from '@jest/globals';
import { expectEventually, pollUntil } from './poll.js';

describe('pollUntil', () => {
  it('returns the first truthy-enough value, retrying through errors and empty results', async () => {
    let calls = 0;
    const value = await pollUntil(
      () => {
        calls++;
        if (calls === 1) throw new Error('not yet');
        return calls < 3 ? undefined : { rows: calls };
      },
      { intervalMs: 1 },
    );
    expect(value).toEqual({ rows: 3 });
  });

  it('treats 0 and empty string as values (only undefined, null and false mean "not yet")', async () => {
    expect(await pollUntil(() => 0, { intervalMs: 1 })).toBe(0);
  });

  it('times out with the description and the last value seen', async () => {
    await expect(pollUntil(() => null, { timeoutMs: 30, intervalMs: 5, description: 'a row' })).rejects.toThrow(/timed out after 30 ms for a row \(\d+ attempts; last value: null\)/);
    await expect(pollUntil(() => Promise.reject(new Error('boom')), { timeoutMs: 20, intervalMs: 5 })).rejects.toThrow('last error: boom');
  });
});

describe('expectEventually', () => {
  it('resolves once the assertion passes', async () => {
    let n = 0;
    await expectEventually(() => expect(++n).toBeGreaterThan(2), { intervalMs: 1 });
    expect(n).toBe(3);
  });

  it('rethrows the last assertion failure on timeout', async () => {
    await expect(expectEventually(() => expect(1).toBe(2), { timeoutMs: 20, intervalMs: 5 })).rejects.toThrow(/still failing after 20 ms: [\s\S]*Expected: 2/);
  });
});
