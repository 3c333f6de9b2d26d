/**
 * A vehicle as one provider reports it, normalized (spec 2.3, 2.6). Core identity (name, VIN) plus
 * the 15 metadata cells of section 2.3, each a Field with its provider source. Ids here are the
 * provider's (`sourceId`); stable `vcl_` ids are minted from them per connection (ids.ts).
 */
import type { Provider } from '../providers.js';
import type { Field } from './field.js';

export const VEHICLE_METADATA_KEYS = [
  'make',
  'model',
  'year',
  'status',
  'providerStatus',
  'fuelType',
  'sourceFuelType',
  'createdAt',
  'updatedAt',
  'activeFrom',
  'activeTo',
  'licensePlate',
  'licensePlateRegion',
  'serialNumber',
  'groups',
] as const;
export type VehicleMetadataKey = (typeof VEHICLE_METADATA_KEYS)[number];

export const FUEL_TYPES = [
  'gasoline',
  'diesel',
  'propane',
  'electric',
  'hybrid_gasoline',
  'hybrid_diesel',
  'biodiesel',
  'compressed_natural_gas',
  'liquefied_natural_gas',
  'ethanol',
  'hydrogen',
  'plug_in_hybrid',
] as const;
export type FuelType = (typeof FUEL_TYPES)[number];

/** Bounds of metadata values (spec 2.3). */
export const VEHICLE_METADATA_BOUNDS = { stringMax: 1024, yearMin: 1886, yearMax: 2200, groupIdMax: 256, groupsMax: 1000 } as const;

export interface GroupRef {
  readonly id: string;
  readonly name?: string;
}

/** Value type of each metadata cell when available. Timestamps are RFC 3339 strings. */
export interface VehicleMetadataValues {
  make: string;
  model: string;
  year: number;
  status: 'active' | 'inactive';
  providerStatus: string;
  fuelType: FuelType;
  sourceFuelType: string;
  createdAt: string;
  updatedAt: string;
  activeFrom: string;
  activeTo: string;
  licensePlate: string;
  licensePlateRegion: string;
  serialNumber: string;
  groups: readonly GroupRef[];
}

export type VehicleMetadataCells = { readonly [K in VehicleMetadataKey]: Field<VehicleMetadataValues[K]> };

export interface VehicleRecord {
  readonly provider: Provider;
  /** The provider's vehicle id, as a string. */
  readonly sourceId: string;
  readonly name: Field<string>;
  readonly vin: Field<string>;
  readonly metadata: VehicleMetadataCells;
  /** When the adapter fetched it. */
  readonly fetchedAt: string;
}
