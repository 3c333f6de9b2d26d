import { describe, expect, it } from '@jest/globals';
import { PoisonMessage, RetryLater } from '../errors.js';
import { backoffDelay, serverMaxDeliver, settle, settleAfterDeadLetterFailure, settleBeforeHandling } from './settlement.js';

const policy = { initialMs: 100, maxMs: 1_000 };

describe('settlement', () => {
  it('acks a handler that returned', () => {
    expect(settle({ kind: 'ok' }, 1, 5, policy)).toEqual({ action: 'ack' });
  });

  it('dead-letters a schema-invalid payload on the first delivery, never naks it', () => {
    expect(settle({ kind: 'schema_invalid', detail: 'n: expected number' }, 1, 5, policy)).toEqual({
      action: 'dead_letter',
      reason: 'schema_invalid',
      detail: 'n: expected number',
    });
  });

  it('dead-letters PoisonMessage with its own reason and detail', () => {
    expect(settle({ kind: 'failed', error: new PoisonMessage('unknown_vehicle', 'vin missing') }, 1, 5, policy)).toEqual({
      action: 'dead_letter',
      reason: 'unknown_vehicle',
      detail: 'vin missing',
    });
    expect(settle({ kind: 'failed', error: new PoisonMessage() }, 2, 5, policy)).toEqual({ action: 'dead_letter', reason: 'poison' });
  });

  it('naks an ordinary error with exponential backoff by delivery count', () => {
    expect(settle({ kind: 'failed', error: new Error('db down') }, 1, 5, policy)).toEqual({ action: 'nak', delayMs: 100 });
    expect(settle({ kind: 'failed', error: new Error('db down') }, 2, 5, policy)).toEqual({ action: 'nak', delayMs: 200 });
    expect(settle({ kind: 'failed', error: new Error('db down') }, 4, 5, policy)).toEqual({ action: 'nak', delayMs: 800 });
  });

  it('caps the backoff and never overflows', () => {
    expect(backoffDelay(5, policy)).toBe(1_000);
    expect(backoffDelay(10_000, policy)).toBe(1_000);
    expect(backoffDelay(1)).toBe(1_000);
    expect(backoffDelay(3)).toBe(4_000);
  });

  it('uses the RetryLater delay when given, the backoff when not', () => {
    expect(settle({ kind: 'failed', error: new RetryLater(2_500) }, 1, 5, policy)).toEqual({ action: 'nak', delayMs: 2_500 });
    expect(settle({ kind: 'failed', error: new RetryLater() }, 3, 5, policy)).toEqual({ action: 'nak', delayMs: 400 });
  });

  it('dead-letters max_deliveries when the last allowed delivery fails', () => {
    const last = settle({ kind: 'failed', error: new TypeError('boom') }, 5, 5, policy);
    expect(last).toEqual({ action: 'dead_letter', reason: 'max_deliveries', detail: 'TypeError: boom' });
    expect(settle({ kind: 'failed', error: new RetryLater(10) }, 5, 5, policy)).toMatchObject({ action: 'dead_letter', reason: 'max_deliveries' });
  });

  it('dead-letters before handling a message already delivered more than maxDeliver times', () => {
    expect(settleBeforeHandling(5, 5)).toBeUndefined();
    expect(settleBeforeHandling(6, 5)).toMatchObject({ action: 'dead_letter', reason: 'max_deliveries' });
  });

  it('leaves the server spare deliveries beyond ours', () => {
    expect(serverMaxDeliver(5)).toBeGreaterThan(5);
  });

  it('naks (never terminates) when the dead-letter write fails', () => {
    expect(settleAfterDeadLetterFailure(2, policy)).toEqual({ action: 'nak', delayMs: 200 });
  });

  it('rejects non-snake_case reasons at the source', () => {
    expect(() => new PoisonMessage('Bad Reason')).toThrow(TypeError);
  });
});
