/**
 * Vehicle metadata vocabulary (spec 2.3): the 15 field keys, the fuel type enum and the cell and
 * status values. Invariant: `VEHICLE_METADATA_KEYS` is the one list of keys; the catalog entry, each
 * provider's VehicleMetadataCapability and the stored metadata cells are all typed from it, so a key
 * cannot be present in one and missing in another.
 */
import type { Provider } from '@switchyard/domain';

// The keys, fuel types and bounds live in libs/domain (the adapters' records use them too).
export { FUEL_TYPES, VEHICLE_METADATA_BOUNDS, VEHICLE_METADATA_KEYS, type FuelType, type VehicleMetadataKey } from '@switchyard/domain';

/** VehicleMetadataResponse.status (spec 2.3, 3). */
export const VEHICLE_METADATA_STATUSES = ['disabled', 'pending', 'not_in_current_roster', 'available', 'stale'] as const;
export type VehicleMetadataStatus = (typeof VEHICLE_METADATA_STATUSES)[number];

/** Status of an unavailable cell; an available cell has status `available`. */
export const UNAVAILABLE_CELL_STATUSES = ['missing', 'unsupported', 'invalid'] as const;
export type UnavailableCellStatus = (typeof UNAVAILABLE_CELL_STATUSES)[number];

/** VehicleMetadata.version: always 1 in v1. */
export const VEHICLE_METADATA_VERSION = 1;

/** VehicleMetadata.source: `<provider>:vehicles` for Samsara and Motive, `geotab:Device` for Geotab. */
export function vehicleMetadataSource(provider: Provider): string {
  return provider === 'geotab' ? 'geotab:Device' : `${provider}:vehicles`;
}
