import { describe, expect, it } from '@jest/globals';
import { VEHICLE_METADATA_KEYS } from '@switchyard/contracts';
import { PROVIDERS, TELEMETRY_METRICS } from '@switchyard/domain';
import { CAPABILITY_FIELDS, capabilitiesFor } from './index.js';

describe.each(PROVIDERS)('%s capabilities', (provider) => {
  const caps = capabilitiesFor(provider);

  it('names its adapter version', () => {
    expect(caps.adapterVersion).toMatch(new RegExp(`^${provider}-adapter/\\d+\\.\\d+\\.\\d+$`));
  });

  it('maps every capability field, and only those, to a spec support value', () => {
    expect(Object.keys(caps.fields).sort()).toEqual([...CAPABILITY_FIELDS].sort());
    for (const v of Object.values(caps.fields)) expect(['supported', 'conditional', 'unsupported']).toContain(v);
    for (const m of TELEMETRY_METRICS) expect(caps.fields).toHaveProperty([`telemetry.${m}`]);
  });

  it('has a VehicleMetadataCapability with exactly the 15 keys (spec 2.3)', () => {
    expect(caps.vehicleMetadata.optInConfig).toBe('vehicleMetadata');
    expect(caps.vehicleMetadata.defaultEnabled).toBe(false);
    expect(Object.keys(caps.vehicleMetadata.fields).sort()).toEqual([...VEHICLE_METADATA_KEYS].sort());
    for (const v of Object.values(caps.vehicleMetadata.fields)) expect(['conditional', 'unsupported']).toContain(v);
  });

  it('has the GroupInventoryCapability constants (spec 2.2)', () => {
    expect(caps.groupInventory).toEqual({
      optInConfig: 'groupInventory',
      defaultEnabled: false,
      selection: 'explicit_approved_ids',
      maxGroupIds: 100,
      parentResolution: 'approved_groups_only',
      raw: 'unsupported',
      sourceTimestamps: 'unsupported',
    });
  });

  it('states collection, authentication and limitations', () => {
    expect(['native_feed', 'poll']).toContain(caps.collection);
    expect(caps.authentication.length).toBeGreaterThan(0);
    expect(caps.limitations.length).toBeGreaterThan(0);
  });

  it('cannot be edited by a caller', () => {
    expect(() => {
      (caps.fields as Record<string, string>)['vehicle.vin'] = 'unsupported';
    }).toThrow(TypeError);
  });
});

describe('provider-specific facts', () => {
  it('uses the fault model and collection of each provider', () => {
    expect(capabilitiesFor('samsara')).toMatchObject({ faultModel: 'complete_snapshot', collection: 'poll', authentication: ['api_token', 'oauth'] });
    expect(capabilitiesFor('motive')).toMatchObject({ faultModel: 'complete_snapshot', collection: 'poll', authentication: ['api_key', 'oauth'] });
    expect(capabilitiesFor('geotab')).toMatchObject({ faultModel: 'explicit_records', collection: 'native_feed', authentication: ['service_account'] });
  });

  it('matches the provider references on the telling fields', () => {
    expect(capabilitiesFor('samsara').fields['vehicle.fuelType']).toBe('unsupported'); // "no fuel-type field"
    expect(capabilitiesFor('motive').fields['vehicle.fuelType']).toBe('supported'); // fuel_type
    expect(capabilitiesFor('geotab').vehicleMetadata.fields.make).toBe('unsupported'); // Device has no make
    expect(capabilitiesFor('samsara').fields['driver.firstName']).toBe('unsupported'); // single name field
    // No vehicle status field: the directory derives it from the roster once a complete pass lists the vehicle (decision 0011).
    expect([capabilitiesFor('samsara').fields['vehicle.status'], capabilitiesFor('samsara').vehicleMetadata.fields.status]).toEqual(['conditional', 'conditional']);
    expect(capabilitiesFor('motive').fields['telemetry.totalIdleTime']).toBe('unsupported'); // daily rollups only
    expect(capabilitiesFor('geotab').fields['trip.startLocation']).toBe('conditional'); // no start point on Trip
  });

  it('refuses an unknown provider', () => {
    expect(() => capabilitiesFor('verizon' as never)).toThrow(TypeError);
  });
});
