import { describe, expect, it } from '@jest/globals';
import { storedVehicleStatus, vehicleStatus } from './vehicle.mapper.js';

describe('vehicleStatus (the one entity-status rule of stored vehicles)', () => {
  it('is the reported status when the provider reported one', () => {
    expect(vehicleStatus({ status: 'inactive', statusCell: 'available' })).toBe('inactive');
    expect(vehicleStatus({ status: 'active', statusCell: 'available' })).toBe('active');
  });

  it('is active for a provider that reports no status at all (the vehicle is in its roster)', () => {
    expect(vehicleStatus({ status: null, statusCell: 'unsupported' })).toBe('active');
  });

  it('is unknown (null), never made up, when a status is missing or invalid, or the vehicle is not stored', () => {
    expect(vehicleStatus({ status: null, statusCell: 'missing' })).toBeNull();
    expect(vehicleStatus({ status: null, statusCell: 'invalid' })).toBeNull();
    expect(vehicleStatus({ status: null, statusCell: undefined })).toBeNull();
    expect(vehicleStatus(null)).toBeNull();
  });

  it('reads the cell from status_cell or the row metadata', () => {
    expect(storedVehicleStatus({ status: null, status_cell: 'unsupported' })).toBe('active');
    expect(storedVehicleStatus({ status: null, metadata: { status: { status: 'missing', value: null, source: 'x' } } })).toBeNull();
    expect(storedVehicleStatus({ status: null, metadata: { status: { status: 'unsupported', value: null, source: 'x' } } })).toBe('active');
  });
});
