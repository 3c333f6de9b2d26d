import { describe, expect, it } from '@jest/globals';
import { isRfc3339DateTime } from './date-time.js';
import { PROVIDERS, isProvider } from './providers.js';
import {
  AVAILABILITY_STATUSES,
  DATA_REASON_CODES,
  DERIVATION_CODES,
  derivedSource,
  DRIVER_DIRECTORY_REASON_CODES,
  GROUP_MEMBERSHIP_REASON_CODES,
  READING_STATUSES,
  isDataReasonCode,
} from './reason-codes.js';

describe('reason codes', () => {
  it('lists exactly the data reason codes of spec 7', () => {
    expect([...DATA_REASON_CODES].sort()).toEqual(
      [
        'provider_auth_required',
        'provider_config_invalid',
        'provider_throttled',
        'provider_unavailable',
        'provider_response_changed',
        'provider_scope_mismatch',
        'driver_persistence_unavailable',
        'group_persistence_unavailable',
        'group_dispatch_unavailable',
      ].sort(),
    );
    expect(isDataReasonCode('provider_throttled')).toBe(true);
    expect(isDataReasonCode('rate_limited')).toBe(false);
  });
  it('scopes the driver and membership subsets as spec 2.5 does', () => {
    expect(DRIVER_DIRECTORY_REASON_CODES).toContain('driver_persistence_unavailable');
    expect(DRIVER_DIRECTORY_REASON_CODES).not.toContain('group_dispatch_unavailable');
    expect(GROUP_MEMBERSHIP_REASON_CODES).toContain('group_dispatch_unavailable');
    expect(GROUP_MEMBERSHIP_REASON_CODES).not.toContain('driver_persistence_unavailable');
  });
  it('names a derivation in the source of the value it produced, and is no data reason code', () => {
    expect(DERIVATION_CODES).toEqual(['derived_from_roster']);
    expect(derivedSource('samsara:vehicles', 'derived_from_roster')).toBe('samsara:vehicles(derived_from_roster)');
    expect(isDataReasonCode('derived_from_roster')).toBe(false);
  });
  it('has the status vocabularies', () => {
    expect(AVAILABILITY_STATUSES).toEqual(['available', 'missing', 'invalid', 'unsupported']);
    expect(READING_STATUSES).toEqual(['available', 'stale', 'missing']);
  });
});

describe('providers', () => {
  it('knows the three providers', () => {
    expect(PROVIDERS).toEqual(['samsara', 'motive', 'geotab']);
    expect(isProvider('motive')).toBe(true);
    expect(isProvider('Motive')).toBe(false);
  });
});

describe('isRfc3339DateTime', () => {
  it('accepts Z and numeric offsets', () => {
    expect(isRfc3339DateTime('2024-09-01T06:03:40Z')).toBe(true);
    expect(isRfc3339DateTime('2024-09-01T06:03:40.000000Z')).toBe(true);
    expect(isRfc3339DateTime('2015-09-15T14:00:12-04:00')).toBe(true);
    expect(isRfc3339DateTime('2024-02-29T00:00:00Z')).toBe(true);
  });
  it('refuses partial or impossible values', () => {
    for (const bad of ['2024-09-01', '2024-09-01T06:03:40', '2023-02-29T00:00:00Z', '2024-13-01T00:00:00Z', '2024-09-01T24:00:00Z', 'Jan 1 2024', '2024-09-01T06:03:40+25:00']) {
      expect(isRfc3339DateTime(bad)).toBe(false);
    }
  });
});
