import { describe, expect, it } from '@jest/globals';
import { budgetAccountKey, PROVIDER_RATES, PROVIDER_TIERS } from './provider-rates.js';

describe('budgetAccountKey', () => {
  it('is the provider and 16 hex digits of a hash, never the credential', () => {
    const key = budgetAccountKey('samsara', { apiToken: 'samsara_api_0123456789abcdef' });
    expect(key).toMatch(/^samsara:[0-9a-f]{16}$/);
    expect(key).not.toContain('0123456789abcdef');
    expect(budgetAccountKey('samsara', { apiToken: 'samsara_api_0123456789abcdef' })).toBe(key);
    expect(budgetAccountKey('samsara', { apiToken: 'another-token' })).not.toBe(key);
  });

  it('keys Geotab by database and user, so a rotated password keeps the account budget', () => {
    const a = budgetAccountKey('geotab', { database: 'acme', userName: 'Svc@Example.com', password: 'one' });
    expect(budgetAccountKey('geotab', { database: 'acme', userName: 'svc@example.com', password: 'two' })).toBe(a);
    expect(budgetAccountKey('geotab', { database: 'other', userName: 'svc@example.com', password: 'one' })).not.toBe(a);
  });

  it('never budgets more than the provider allows in any one second (rate + burst)', () => {
    expect(PROVIDER_RATES.samsara.ratePerSecond + PROVIDER_RATES.samsara.burst).toBeLessThanOrEqual(150);
    expect(PROVIDER_RATES.geotab.ratePerSecond + PROVIDER_RATES.geotab.burst).toBeLessThanOrEqual(15);
    expect(PROVIDER_RATES.motive.ratePerSecond + PROVIDER_RATES.motive.burst).toBeLessThanOrEqual(50);
  });
});

describe('PROVIDER_TIERS', () => {
  const tier = (path: string) => PROVIDER_TIERS.samsara.find((t) => t.matches(path))?.name;

  it("maps Samsara's tiered endpoints, and only those, to their tier", () => {
    expect(tier('/trips/stream')).toBe('trips-stream');
    expect(tier('/fleet/vehicles')).toBe('fleet-vehicles');
    expect(tier('/fleet/drivers')).toBe('fleet-drivers');
    expect(tier('/fleet/drivers/123')).toBe('fleet-drivers');
    expect(tier('/fleet/vehicles/stats')).toBeUndefined();
    expect(tier('/v1/fleet/trips')).toBeUndefined();
    expect(tier('/tags')).toBeUndefined();
  });

  it('keeps every tier under its published limit in any window (rate + burst)', () => {
    const limits: Record<string, { perSecond: number; windowS: number }> = {
      'trips-stream': { perSecond: 5, windowS: 1 },
      'fleet-vehicles': { perSecond: 25, windowS: 1 },
      'fleet-drivers': { perSecond: 100 / 60, windowS: 60 },
    };
    for (const t of PROVIDER_TIERS.samsara) {
      const limit = limits[t.name]!;
      expect(t.ratePerSecond * limit.windowS + t.burst).toBeLessThanOrEqual(limit.perSecond * limit.windowS);
    }
  });
});
