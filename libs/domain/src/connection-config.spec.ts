import { describe, expect, it } from '@jest/globals';
import { defaultConnectionConfig, validateConnectionConfig, type ConnectionConfig } from './connection-config.js';

const id = '3f1c2a9e-8b7d-4c6e-9a51-2d0f4b8e7c13';
const now = new Date('2026-01-02T03:04:05.000Z');

describe('defaultConnectionConfig', () => {
  it('collects nothing until something is turned on', () => {
    const c = defaultConnectionConfig(id, 'geotab', 'sandbox', now);
    expect(c).toEqual({
      connectionId: id,
      provider: 'geotab',
      environment: 'sandbox',
      status: 'active',
      unifiedCollection: false,
      purposes: { vehicles: false, groupMemberships: false, trips: false },
      approvedVehicleIds: [],
      includeVehicleIds: [],
      excludeVehicleIds: [],
      includeStatuses: [],
      optIns: { groupInventory: false, vehicleMetadata: false, extendedTelemetry: false },
      approvedGroupIds: [],
      selectedSignals: [],
      revision: 1,
      updatedAt: '2026-01-02T03:04:05.000Z',
    });
    expect(validateConnectionConfig(c)).toEqual([]);
  });
});

describe('validateConnectionConfig', () => {
  const base = defaultConnectionConfig(id, 'samsara', 'production', now);
  const paths = (c: unknown) => validateConnectionConfig(c).map((p) => p.path);

  it('accepts a full valid config', () => {
    const c: ConnectionConfig = {
      ...base,
      unifiedCollection: true,
      purposes: { vehicles: true, groupMemberships: true, trips: true },
      approvedVehicleIds: ['281474976710657'],
      includeVehicleIds: ['1'],
      excludeVehicleIds: ['2'],
      includeStatuses: ['active'],
      approvedGroupIds: Array.from({ length: 100 }, (_, i) => `g${i}`),
      selectedSignals: ['odometer', 'faults', 'engineHours', 'location'],
      revision: 7,
    };
    expect(validateConnectionConfig(c)).toEqual([]);
  });

  it('limits approved group ids to 100', () => {
    expect(paths({ ...base, approvedGroupIds: Array.from({ length: 101 }, (_, i) => `g${i}`) })).toEqual(['approvedGroupIds']);
  });

  it('requires unique known signals, at most 4', () => {
    expect(paths({ ...base, selectedSignals: ['odometer', 'odometer'] })).toEqual(['selectedSignals']);
    expect(paths({ ...base, selectedSignals: ['driverNames'] })).toEqual(['selectedSignals[0]']);
    expect(paths({ ...base, selectedSignals: ['odometer', 'faults', 'engineHours', 'location', 'odometer'] })).toEqual([
      'selectedSignals',
      'selectedSignals',
    ]);
  });

  it('refuses empty or duplicate ids and include/exclude overlap', () => {
    expect(paths({ ...base, approvedVehicleIds: ['', 'a', 'a'] })).toEqual(['approvedVehicleIds[0]', 'approvedVehicleIds[2]']);
    expect(paths({ ...base, includeVehicleIds: ['a', 'b'], excludeVehicleIds: ['b'] })).toEqual(['excludeVehicleIds']);
    expect(paths({ ...base, approvedGroupIds: [7] })).toEqual(['approvedGroupIds[0]']);
  });

  it('lists every problem at once', () => {
    const problems = paths({ ...base, connectionId: 'x', provider: 'verizon', revision: 0, updatedAt: 'yesterday', purposes: { vehicles: 'yes' } });
    expect(problems).toEqual(
      expect.arrayContaining(['connectionId', 'provider', 'revision', 'updatedAt', 'purposes.vehicles', 'purposes.groupMemberships']),
    );
    expect(validateConnectionConfig(null)).toEqual([{ path: '', problem: 'must be an object' }]);
  });
});
