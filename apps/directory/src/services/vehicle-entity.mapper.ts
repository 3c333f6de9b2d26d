/**
 * Stored vehicle → the public vehicle shapes the vehicle reads serve (spec 2.3, 2.6), building on
 * vehicle.mapper.ts (ExpandedVehicle, the one place the entity fields are derived):
 * - VehicleEntity is ExpandedVehicle (vehicle.mapper.ts) with `withExpandedGroups` applied when asked:
 *   each stored group as group.mapper.ts maps it for every expansion (drivers too), a group the
 *   directory has not stored stays an id (never invented);
 * - `coreVehicle`: the core asset (provider_id, name, vin) with its vcl_ id (decision 0017). `name` is required by the spec and has
 *   no status: when the provider reported none (or an unusable one) it is the provider id, the
 *   name providers themselves show for an unnamed vehicle; `vin` is null when not available;
 * - `metadataFields`: all 15 cells. A stored available value is served only when it meets the
 *   spec's bounds (length, year range, fuel enum, RFC 3339 times, ≤ 1000 groups); otherwise the
 *   cell is `invalid`. Unavailable cells keep their status and source; the internal `reason` is
 *   dropped (cells allow no extra properties). An empty or over-long source becomes the record's
 *   metadata source (`<provider>:vehicles` / `geotab:Device`). The `status` cell of a provider that
 *   reports no status (stored `unsupported`) is the status the directory derived from the roster
 *   (vehicle-roster-status.service.ts) once there is one, its source naming the derivation:
 *   `samsara:vehicles(derived_from_roster)`; the metadata read serves data only for a vehicle a
 *   complete pass listed, so the cell is then always derived.
 */
import { derivedSource, VEHICLE_METADATA_KEYS, type Field, type Provider } from '@switchyard/domain';
import { vehicleMetadataSource } from '@switchyard/contracts';
import { VEHICLE_METADATA_VALUE_SCHEMAS, type CoreVehicleV1, type FlatGroupV1, type VehicleEntityV1, type VehicleMetadataResponseV1 } from '@switchyard/messaging';
import type { VehicleRow } from '../db/repositories/vehicles-read.repository.js';
import { storedVehicleStatus } from './vehicle.mapper.js';

type Fields = NonNullable<VehicleMetadataResponseV1['data']>['fields'];

/** The vehicle with each stored group id replaced by its expanded Group (unknown ids stay ids). */
export function withExpandedGroups(vehicle: VehicleEntityV1, groups: ReadonlyMap<string, FlatGroupV1>): VehicleEntityV1 {
  if (!vehicle.groups) return vehicle;
  return { ...vehicle, groups: vehicle.groups.map((g) => (typeof g === 'string' ? (groups.get(g) ?? g) : g)) };
}

export function coreVehicle(row: VehicleRow): CoreVehicleV1 {
  const name = typeof row.name === 'string' && row.name.length > 0 && row.name.length <= 1024 ? row.name : row.source_id;
  return { id: row.id, provider_id: row.source_id, name, vin: row.vin };
}

const sourceOf = (field: Field<unknown> | undefined, fallback: string): string => {
  const s = field?.source;
  return typeof s === 'string' && s.length >= 1 && s.length <= 1024 ? s : fallback;
};

export function metadataFields(row: VehicleRow, provider: Provider): Fields {
  const fallback = vehicleMetadataSource(provider);
  const out: Record<string, unknown> = {};
  for (const key of VEHICLE_METADATA_KEYS) {
    const field = row.metadata[key];
    const source = sourceOf(field, fallback);
    const derived = key === 'status' && field?.status === 'unsupported' ? storedVehicleStatus(row) : null;
    if (derived) {
      // The roster is the provider's vehicle listing: the metadata source, with the derivation named.
      out[key] = { status: 'available', value: derived, source: derivedSource(fallback, 'derived_from_roster') };
    } else if (field?.status === 'available') {
      const parsed = VEHICLE_METADATA_VALUE_SCHEMAS[key].safeParse(field.value);
      out[key] = parsed.success ? { status: 'available', value: parsed.data, source } : { status: 'invalid', value: null, source };
    } else {
      const status = field?.status === 'unsupported' || field?.status === 'invalid' ? field.status : 'missing';
      out[key] = { status, value: null, source };
    }
  }
  return out as Fields;
}
