import { describe, expect, it } from '@jest/globals';
import { available, unsupported } from '@switchyard/domain';
import { expandedVehicleV1 } from '@switchyard/messaging';
import { createResponseValidator, loadOpenApi } from '@switchyard/testing';
import type { VehicleReadRow } from '../db/repositories/trips-read.repository.js';
import { expandedVehicle, storedVehicleStatus, vehicleStatus } from './vehicle.mapper.js';

describe('vehicleStatus (the one entity-status rule of stored vehicles)', () => {
  it('is the reported status when the provider reported one', () => {
    expect(vehicleStatus({ status: 'inactive' })).toBe('inactive');
    expect(vehicleStatus({ status: 'active' })).toBe('active');
  });

  it('is unknown (null), never made up, when a status is missing, invalid or not supplied by the provider (Samsara), or the vehicle is not stored', () => {
    expect(vehicleStatus({ status: null })).toBeNull();
    expect(vehicleStatus(null)).toBeNull();
    expect(storedVehicleStatus({ status: null })).toBeNull();
  });
});

describe('expandedVehicle', () => {
  const T = '2026-11-22T12:00:00.000Z';
  const row = (metadata: VehicleReadRow['metadata']): VehicleReadRow => ({
    id: 'vcl_01JD0000000000000000000000',
    source_id: 'v-1',
    provider: 'samsara',
    status: 'active',
    name: 'Truck 1',
    vin: null,
    metadata,
    added_at: T,
    modified_at: T,
    fetched_at: T,
  });
  const ctx = { connectionId: '22222222-2222-4222-8222-222222222222', visibility: 'visible' as const, directoryFetchedAt: null };
  const contract = createResponseValidator(loadOpenApi());

  it('serves only times the reply schema and the public contract accept (RFC 3339 also allows lowercase t/z and leap seconds)', () => {
    const v = expandedVehicle(row({ createdAt: available('2024-01-02t03:04:05z', 's'), updatedAt: available('2024-01-02T03:04:60Z', 's') }), ctx)!;
    expect(v).not.toHaveProperty('createdAt');
    expect(v).not.toHaveProperty('updatedAt');
    expect(expandedVehicleV1.safeParse(v).success).toBe(true);
    expect(contract.validate({ method: 'GET', path: `/v1/connections/${ctx.connectionId}/vehicles/${v.id}`, status: 200, body: v })).toEqual([]);
    const ok = expandedVehicle(row({ createdAt: available('2024-01-02T03:04:05+02:00', 's') }), ctx)!;
    // An offset time is served in the wire format (UTC, milliseconds; decision 0017), which the document's pattern checks.
    expect(ok.createdAt).toBe('2024-01-02T01:04:05.000Z');
    expect(contract.validate({ method: 'GET', path: `/v1/connections/${ctx.connectionId}/vehicles/${ok.id}`, status: 200, body: ok })).toEqual([]);
  });

  it('is no vehicle (status unknown) when the provider supplies no status (Samsara: the metadata cell is unsupported)', () => {
    expect(expandedVehicle({ ...row({ status: unsupported('samsara:vehicles') }), status: null }, ctx)).toBeUndefined();
  });
});
