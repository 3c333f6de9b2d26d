/**
 * Stored vehicle row → the public vehicle (spec 2.6): ExpandedVehicle here (trips' `expand=vehicle`);
 * VehicleEntity is the same with expandable groups and builds on this. Values come from the stored
 * Field envelopes and appear only when `available` and within the spec's bounds (strings ≤ 1024,
 * year 1886-2200, fuel enum, date-times the reply schema accepts, in the wire format: `wireTimeOf`) — anything else is omitted, never zeroed.
 * Entity status (required by the spec) = `vehicleStatus`, the stored status column: the provider's
 * status when it reports one; for a provider that supplies none at all (cell `unsupported`:
 * Samsara) the status the directory derived from its roster passes (`derived_from_roster`, which
 * the metadata cell names; vehicle-roster-status.service.ts, decision 0011); otherwise unknown —
 * null, never made up (global rule 1): a status the provider should report but did not (cell
 * `missing` or `invalid`), or a derived one before a complete pass listed the vehicle. Such a
 * vehicle is no VehicleEntity (status is required) and no expansion. The same value feeds the
 * visibility rule everywhere (vehicles, trips, the visibility event), so what a vehicle shows and what
 * hides it never disagree; a vehicle not stored at all has no status (null). Group memberships are the provider group ids of the `groups` cell,
 * minted into group_ ids of the same connection; more than 1000 are cut to 1000 and marked `partial`.
 */
import { FUEL_TYPES, groupId, isProvider, VEHICLE_METADATA_BOUNDS, type Field, type FuelType, type GroupRef, type RecordStatus, type VehicleVisibility } from '@switchyard/domain';
import { wireTimeOf, type ExpandedVehicleV1 } from '@switchyard/messaging';
import type { VehicleReadRow } from '../db/repositories/trips-read.repository.js';

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.length <= VEHICLE_METADATA_BOUNDS.stringMax ? v : undefined);
const cell = (row: VehicleReadRow, key: string): unknown => {
  const field = row.metadata[key] as Field<unknown> | undefined;
  return field?.status === 'available' ? field.value : undefined;
};

function membership(row: VehicleReadRow, connectionId: string, directoryFetchedAt: string | null): Pick<ExpandedVehicleV1, 'groups' | 'groupMembership'> {
  const field = row.metadata.groups as Field<readonly GroupRef[]> | undefined;
  const base = { scope: 'credential_visible_directory', sourceScope: 'credential_visible_reported_memberships', directoryFetchedAt } as const;
  if (field?.status !== 'available') return { groupMembership: { ...base, status: field?.status === 'invalid' ? 'invalid' : 'missing', capturedAt: null } };
  const provider = isProvider(row.provider) ? row.provider : undefined;
  if (!provider) return { groupMembership: { ...base, status: 'invalid', capturedAt: null } };
  const ids = [...new Set(field.value.map((g) => groupId({ connectionId, provider, sourceId: g.id })))];
  const cut = ids.length > VEHICLE_METADATA_BOUNDS.groupsMax;
  return {
    groups: ids.slice(0, VEHICLE_METADATA_BOUNDS.groupsMax),
    groupMembership: { ...base, status: cut ? 'partial' : 'available', capturedAt: row.fetched_at },
  };
}

/**
 * The entity status of a stored vehicle (see the header): its status column when the provider
 * reported one; null when the vehicle is not stored or its status is unknown or not supplied.
 */
export function vehicleStatus(stored: { status: string | null } | null): RecordStatus | null {
  if (!stored) return null;
  return stored.status === 'active' || stored.status === 'inactive' ? stored.status : null;
}

/** `vehicleStatus` of a stored row. */
export function storedVehicleStatus(row: { status: string | null }): RecordStatus | null {
  return vehicleStatus(row);
}

export function expandedVehicle(row: VehicleReadRow, ctx: { connectionId: string; visibility: VehicleVisibility; directoryFetchedAt: string | null }): ExpandedVehicleV1 | undefined {
  const status = storedVehicleStatus(row);
  if (!status || !isProvider(row.provider)) return undefined;
  const year = cell(row, 'year');
  const fuelType = cell(row, 'fuelType');
  const plateNumber = text(cell(row, 'licensePlate'));
  const plateState = text(cell(row, 'licensePlateRegion'));
  const vehicle: ExpandedVehicleV1 = {
    id: row.id,
    sourceId: row.source_id,
    provider: row.provider,
    status,
    name: text(row.name),
    vin: text(row.vin),
    make: text(cell(row, 'make')),
    model: text(cell(row, 'model')),
    year: typeof year === 'number' && Number.isInteger(year) && year >= VEHICLE_METADATA_BOUNDS.yearMin && year <= VEHICLE_METADATA_BOUNDS.yearMax ? year : undefined,
    fuelType: (FUEL_TYPES as readonly unknown[]).includes(fuelType) ? (fuelType as FuelType) : undefined,
    licensePlate: plateNumber !== undefined || plateState !== undefined ? { number: plateNumber, state: plateState } : undefined,
    createdAt: wireTimeOf(cell(row, 'createdAt')),
    updatedAt: wireTimeOf(cell(row, 'updatedAt')),
    ...membership(row, ctx.connectionId, ctx.directoryFetchedAt),
    metadata: { addedAt: row.added_at, modifiedAt: row.modified_at, visibility: ctx.visibility },
  };
  return withoutUndefined(vehicle);
}

/** Drops undefined members (one level and nested plain objects), so absent values are absent keys. */
export function withoutUndefined<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    out[k] = v !== null && typeof v === 'object' && !Array.isArray(v) ? withoutUndefined(v as object) : v;
  }
  return out as T;
}
