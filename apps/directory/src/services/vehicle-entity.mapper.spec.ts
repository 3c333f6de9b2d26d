/** The vehicle read mappers: metadata cells within the spec's bounds or `invalid`, sources kept or defaulted, the roster-derived status cell, core asset fallbacks. */
import { describe, expect, it } from '@jest/globals';
import { available, invalid, missing, unsupported, type Field } from '@switchyard/domain';
import type { VehicleRow } from '../db/repositories/vehicles-read.repository.js';
import { coreVehicle, metadataFields } from './vehicle-entity.mapper.js';

const row = (metadata: Record<string, Field<unknown>>, extra: Partial<VehicleRow> = {}): VehicleRow => ({
  id: 'vcl_01JD0000000000000000000000',
  source_id: 'src-1',
  provider: 'geotab',
  status: 'active',
  name: 'Truck',
  vin: null,
  metadata,
  added_at: '2026-01-01T00:00:00.000Z',
  modified_at: '2026-01-01T00:00:00.000Z',
  fetched_at: '2026-01-01T00:00:00.000Z',
  last_seen_at: '2026-01-01T00:00:00.000Z',
  ...extra,
});

describe('metadataFields', () => {
  it('serves values within the bounds and marks the rest invalid, keeping every key', () => {
    const fields = metadataFields(
      row({
        make: available('Ford', 'Device.make'),
        model: available('', 'Device.model'),
        year: available(1885, 'Device.year'),
        fuelType: available('diesel', 'Device.fuel'),
        createdAt: available('2024-01-02 03:04', 'Device.created'),
        updatedAt: available('2024-01-02T03:04:05+02:00', 'Device.updated'),
        groups: available(Array.from({ length: 1001 }, (_, i) => ({ id: `g${i}` })), 'Device.groups'),
        serialNumber: invalid('Device.serial', 'not_a_string'),
        licensePlate: unsupported('Device.plate'),
        providerStatus: missing('', 'absent'),
      }),
      'geotab',
    );
    expect(Object.keys(fields)).toHaveLength(15);
    expect(fields.make).toEqual({ status: 'available', value: 'Ford', source: 'Device.make' });
    expect(fields.model).toEqual({ status: 'invalid', value: null, source: 'Device.model' });
    expect(fields.year).toEqual({ status: 'invalid', value: null, source: 'Device.year' });
    expect(fields.fuelType).toEqual({ status: 'available', value: 'diesel', source: 'Device.fuel' });
    expect(fields.createdAt).toEqual({ status: 'invalid', value: null, source: 'Device.created' });
    expect(fields.updatedAt).toEqual({ status: 'available', value: '2024-01-02T01:04:05.000Z', source: 'Device.updated' });
    expect(fields.groups).toEqual({ status: 'invalid', value: null, source: 'Device.groups' });
    // Unavailable cells keep their status; the internal reason never leaves; an empty source becomes the metadata source.
    expect(fields.serialNumber).toEqual({ status: 'invalid', value: null, source: 'Device.serial' });
    expect(fields.licensePlate).toEqual({ status: 'unsupported', value: null, source: 'Device.plate' });
    expect(fields.providerStatus).toEqual({ status: 'missing', value: null, source: 'geotab:Device' });
    // A key the stored record lacks is missing, never invented.
    expect(fields.activeTo).toEqual({ status: 'missing', value: null, source: 'geotab:Device' });
  });
});

describe('metadataFields: a status derived from the roster', () => {
  it('serves the derived status of a provider that reports none, naming the derivation; never for a missing one', () => {
    const samsara = (status: string | null, cell: Field<unknown>) => metadataFields(row({ status: cell }, { provider: 'samsara', status }), 'samsara').status;
    expect(samsara('inactive', unsupported('samsara:vehicles'))).toEqual({ status: 'available', value: 'inactive', source: 'samsara:vehicles(derived_from_roster)' });
    // No complete pass listed it yet: unknown, the cell stays as the adapter said.
    expect(samsara(null, unsupported('samsara:vehicles'))).toEqual({ status: 'unsupported', value: null, source: 'samsara:vehicles' });
    // A status the provider should report but did not is never derived (the column cannot hold one either).
    expect(samsara('active', missing('samsara:vehicles'))).toEqual({ status: 'missing', value: null, source: 'samsara:vehicles' });
  });
});

describe('coreVehicle', () => {
  it('uses the provider id when the provider reports no name, and null for an unknown vin; carries the vcl_ id', () => {
    expect(coreVehicle(row({}, { name: null }))).toEqual({ id: 'vcl_01JD0000000000000000000000', provider_id: 'src-1', name: 'src-1', vin: null });
    expect(coreVehicle(row({}, { name: 'Truck', vin: '1FUJ' }))).toEqual({ id: 'vcl_01JD0000000000000000000000', provider_id: 'src-1', name: 'Truck', vin: '1FUJ' });
  });
});
