import { describe, expect, it } from '@jest/globals';
import { DATASET_FRESHNESS_S, deriveDatasetStatus } from './dataset-status.service.js';

const now = Date.parse('2026-11-22T12:00:00.000Z');
const at = (secondsAgo: number) => new Date(now - secondsAgo * 1000).toISOString();
const row = { fetched_at: at(60), captured_at: at(120), published_at: at(30), failing: false, error_code: null };

describe('deriveDatasetStatus', () => {
  it('is pending before the first committed batch', () => {
    expect(deriveDatasetStatus({ ...row, fetched_at: null, captured_at: null, published_at: null }, now)).toEqual({ status: 'pending', fetchedAt: null, capturedAt: null, publishedAt: null, errorCode: null });
  });

  it('is available with the three times when fresh, stale once the newest fetch is older than the freshness', () => {
    expect(deriveDatasetStatus(row, now)).toEqual({ status: 'available', fetchedAt: row.fetched_at, capturedAt: row.captured_at, publishedAt: row.published_at, errorCode: null });
    expect(deriveDatasetStatus({ ...row, fetched_at: at(DATASET_FRESHNESS_S) }, now).status).toBe('available');
    expect(deriveDatasetStatus({ ...row, fetched_at: at(DATASET_FRESHNESS_S + 1) }, now).status).toBe('stale');
  });

  it('is degraded with the provider code while the newest observation is a failure, with or without data', () => {
    expect(deriveDatasetStatus({ ...row, failing: true, error_code: 'provider_throttled' }, now)).toMatchObject({ status: 'degraded', errorCode: 'provider_throttled', fetchedAt: row.fetched_at });
    expect(deriveDatasetStatus({ fetched_at: null, captured_at: null, published_at: null, failing: true, error_code: 'provider_auth_required' }, now)).toMatchObject({ status: 'degraded', errorCode: 'provider_auth_required' });
  });
});
