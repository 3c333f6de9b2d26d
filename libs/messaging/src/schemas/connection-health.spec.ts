import { describe, expect, it } from '@jest/globals';
import { connectionHealthV1, healthDatasetsOf } from './connection-health.v1.js';

const event = {
  connectionId: '0b9f3c1e-2f4a-4d7e-9b1c-3a2e5f6d7c8b',
  observedAt: '2026-11-22T12:00:00.000Z',
  outcome: 'failure',
  errorCode: 'provider_scope_mismatch',
  scope: 'core',
  nextRetryAt: null,
  sequence: '7',
};

describe('connection-health.v1 datasets', () => {
  it('parses an event of a publisher from before `datasets` unchanged (it counts for every dataset)', () => {
    const parsed = connectionHealthV1.parse(event);
    expect(parsed).toEqual(event);
    expect('datasets' in parsed).toBe(false);
    expect(healthDatasetsOf(parsed)).toEqual(['vehicles', 'drivers', 'groups', 'trips']);
  });

  it('carries the datasets a job feeds, none for telemetry and fault work', () => {
    expect(healthDatasetsOf(connectionHealthV1.parse({ ...event, datasets: ['trips'] }))).toEqual(['trips']);
    expect(healthDatasetsOf(connectionHealthV1.parse({ ...event, datasets: [] }))).toEqual([]);
  });

  it('rejects an unknown or repeated dataset', () => {
    expect(connectionHealthV1.safeParse({ ...event, datasets: ['faults'] }).success).toBe(false);
    expect(connectionHealthV1.safeParse({ ...event, datasets: ['trips', 'trips'] }).success).toBe(false);
    expect(connectionHealthV1.safeParse({ ...event, datasets: 'trips' }).success).toBe(false);
  });
});
