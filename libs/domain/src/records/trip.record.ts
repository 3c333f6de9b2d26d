/**
 * A completed trip normalized (spec 2.7): kilometers and milliseconds. Distance has a basis —
 * GPS distance and odometer difference are distinct sources and are never mixed silently. A
 * distance the mapper refuses (negative, or implying more than MAX_PLAUSIBLE_TRIP_KMH over
 * `durationMs`: `checkTripDistance`) is an `invalid` Field with its reason and a null basis; the
 * public Trip then has no `distance` (never 0, never the refused figure).
 */
import type { Provider } from '../providers.js';
import type { Field } from './field.js';

export interface LatLon {
  readonly latitude: number;
  readonly longitude: number;
}

export type DistanceBasis = 'gps' | 'odometer' | 'provider_reported';

export interface TripRecord {
  readonly provider: Provider;
  /** Provider trip id, or a derived key where the provider has none (Samsara: asset id + start). */
  readonly sourceId: string;
  readonly vehicleSourceId: string;
  /** null = provider says unidentified/unknown driver. */
  readonly driverSourceId: string | null;
  readonly startedAt: string;
  readonly endedAt: string;
  readonly durationMs: number;
  readonly distanceKm: Field<number>;
  readonly distanceBasis: DistanceBasis | null;
  readonly startLocation: Field<LatLon>;
  readonly endLocation: Field<LatLon>;
  readonly fetchedAt: string;
}
