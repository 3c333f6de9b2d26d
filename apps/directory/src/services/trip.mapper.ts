/**
 * Stored trip row → the public Trip (spec 2.7). Units are already normalized at ingest: distance
 * in km (absent when missing or invalid — the column is NULL then, never 0), duration in ms.
 * The distance basis (GPS, odometer difference or provider-reported) is stored per trip
 * (`trip.distance_basis`) and stays internal: the Trip schema allows no extra property.
 * Locations appear only when their Field is available. `vehicle`/`driver` are expanded when asked
 * and the referenced record is stored with a known status; otherwise they stay ids (a driver the
 * provider did not identify is omitted). metadata.addedAt = fetch time of the first batch that
 * carried the trip; modifiedAt = fetch time of the last batch that changed it.
 */
import type { DriverId, Field, LatLon, VehicleVisibility } from '@switchyard/domain';
import { DRIVER_SOURCE_ID_PATTERN } from '@switchyard/contracts';
import { wireTimeOf, type TripDriverV1, type TripExpandV1, type TripV1 } from '@switchyard/messaging';
import type { DriverReadRow, TripReadRow } from '../db/repositories/trips-read.repository.js';
import { expandedVehicle, withoutUndefined } from './vehicle.mapper.js';

const SOURCE_ID = new RegExp(DRIVER_SOURCE_ID_PATTERN);
const location = (f: Field<LatLon>): LatLon | undefined => (f.status === 'available' ? { latitude: f.value.latitude, longitude: f.value.longitude } : undefined);

export function tripDriver(row: DriverReadRow): TripDriverV1 | undefined {
  if ((row.status !== 'active' && row.status !== 'inactive') || !SOURCE_ID.test(row.source_id)) return undefined;
  if (row.provider !== 'samsara' && row.provider !== 'motive' && row.provider !== 'geotab') return undefined;
  const value = (key: string): string | undefined => {
    const f = row.fields[key];
    return f?.status === 'available' && typeof f.value === 'string' ? f.value : undefined;
  };
  const time = (key: string) => wireTimeOf(value(key));
  const number = value('licenseNumber');
  const state = value('licenseState');
  return withoutUndefined<TripDriverV1>({
    id: row.id,
    sourceId: row.source_id,
    provider: row.provider,
    status: row.status,
    firstName: value('firstName'),
    middleName: value('middleName'),
    lastName: value('lastName'),
    displayName: value('displayName'),
    email: value('email'),
    phone: value('phone'),
    username: value('username'),
    createdAt: time('createdAt'),
    updatedAt: time('updatedAt'),
    license: number !== undefined || state !== undefined ? { number, state } : undefined,
    metadata: { addedAt: row.added_at, modifiedAt: row.modified_at },
  });
}

export interface TripMapContext {
  connectionId: string;
  expand: TripExpandV1;
  /** Visibility of the trip's vehicle (a hidden one's trip is never mapped). */
  visibility: VehicleVisibility;
  directoryFetchedAt: string | null;
}

export function tripOf(row: TripReadRow, ctx: TripMapContext): TripV1 {
  const vehicle = ctx.expand.vehicle && row.vehicle ? expandedVehicle(row.vehicle, ctx) : undefined;
  const driver = row.driver_id === null ? undefined : ((ctx.expand.driver && row.driver ? tripDriver(row.driver) : undefined) ?? (row.driver_id as DriverId));
  const distance = row.distance_km !== null && Number.isFinite(row.distance_km) && row.distance_km >= 0 ? row.distance_km : undefined;
  return withoutUndefined<TripV1>({
    id: row.id,
    sourceId: row.source_id,
    provider: row.provider as TripV1['provider'],
    vehicle: vehicle ?? row.vehicle_id,
    driver,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    duration: Number(row.duration_ms),
    distance,
    startLocation: location(row.start_location),
    endLocation: location(row.end_location),
    metadata: { addedAt: row.added_at, modifiedAt: row.modified_at },
  });
}
