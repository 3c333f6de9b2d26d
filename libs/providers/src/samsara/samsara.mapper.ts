/**
 * Samsara vehicles, drivers, tags and trips → normalized records (shared/providers/README.md tables).
 * Invariant: every field is either a value Samsara really sent, checked against the spec's shape, or
 * a status — absent/empty → `missing`, present but unusable → `invalid` with a reason, no Samsara
 * source at all → `unsupported`. Nothing is defaulted, so "unknown" never becomes 0 or "".
 * Field sources name the Samsara resource: `samsara:vehicles` (the spec's VehicleMetadata.source),
 * `samsara:drivers`, `samsara:tags`, `samsara:trips`.
 */
import { isLicenseState } from '@switchyard/contracts';
import {
  available,
  invalid,
  isRfc3339DateTime,
  missing,
  toIsoUtc,
  toTripKilometers,
  unsupported,
  VEHICLE_METADATA_BOUNDS,
  type DriverFieldKey,
  type DriverRecord,
  type Field,
  type GroupRecord,
  type GroupRef,
  type LatLon,
  type TripRecord,
  type VehicleMetadataCells,
  type VehicleRecord,
} from '@switchyard/domain';
import type { SamsaraDriver, SamsaraLegacyTrip, SamsaraStreamTrip, SamsaraTag, SamsaraVehicle } from './samsara.schemas.js';
import { e164Phone } from '../phones.js';

export const SAMSARA_SOURCES = { vehicles: 'samsara:vehicles', drivers: 'samsara:drivers', tags: 'samsara:tags', trips: 'samsara:trips', legacyTrips: 'samsara:v1/fleet/trips' } as const;

export interface MapContext {
  /** When the page was fetched (RFC 3339 UTC). */
  readonly fetchedAt: string;
}

// ---- field readers -----------------------------------------------------------------------------

/** A non-empty string of at most 1024 chars (spec 2.3 string bounds); "" and whitespace are missing. */
export function stringField(raw: unknown, source: string): Field<string> {
  if (raw === undefined || raw === null) return missing(source);
  if (typeof raw !== 'string') return invalid(source, `expected a string, got ${typeof raw}`);
  const value = raw.trim();
  if (value === '') return missing(source);
  if (value.length > VEHICLE_METADATA_BOUNDS.stringMax) return invalid(source, 'longer than 1024 characters');
  return available(value, source);
}

/** RFC 3339 → the canonical UTC-with-milliseconds form the other adapters emit (`…:35Z` → `…:35.000Z`). */
function dateTimeField(raw: unknown, source: string): Field<string> {
  const s = stringField(raw, source);
  if (s.status !== 'available') return s;
  return isRfc3339DateTime(s.value) ? available(toIsoUtc(Date.parse(s.value)), source) : invalid(source, 'not an RFC 3339 date-time');
}

/** `year` is a string on the wire ("2019"); a number means the field was retyped and is refused. */
export function yearField(raw: unknown, source: string): Field<number> {
  const s = stringField(raw, source);
  if (s.status !== 'available') return s as Field<never>;
  if (!/^\d{4}$/.test(s.value)) return invalid(source, 'not a four-digit year');
  const year = Number(s.value);
  const { yearMin, yearMax } = VEHICLE_METADATA_BOUNDS;
  return year >= yearMin && year <= yearMax ? available(year, source) : invalid(source, `year outside ${yearMin}-${yearMax}`);
}

/** 17 characters without I, O, Q (ISO 3779). Shorter pre-1981 identifiers are reported invalid, not passed on. */
export function vinField(raw: unknown, source: string): Field<string> {
  const s = stringField(raw, source);
  if (s.status !== 'available') return s;
  const vin = s.value.toUpperCase();
  return /^[A-HJ-NPR-Z0-9]{17}$/.test(vin) ? available(vin, source) : invalid(source, 'not a 17-character VIN');
}

/** E.164 (spec 2.5) through the shared rule (phones.ts): a national number without a country code is ambiguous, never guessed. */
export function phoneField(raw: unknown, source: string): Field<string> {
  const s = stringField(raw, source);
  return s.status === 'available' ? e164Phone(s.value, source) : s;
}

// One @, no spaces, a dot in the domain, at most 254 chars (RFC 5321 path limit): the shape JSON Schema
// "format: email" validators accept for everything a provider realistically stores.
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
export function emailField(raw: unknown, source: string): Field<string> {
  const s = stringField(raw, source);
  if (s.status !== 'available') return s;
  return s.value.length <= 254 && EMAIL.test(s.value) ? s : invalid(source, 'not an email address');
}

function licenseStateField(raw: unknown, source: string): Field<string> {
  const s = stringField(raw, source);
  if (s.status !== 'available') return s;
  const state = s.value.toUpperCase();
  return isLicenseState(state) ? available(state, source) : invalid(source, 'not a US/CA license jurisdiction code');
}

/** `tags: [{id, name, parentTagId?}]` → group refs; absent → missing, malformed → invalid. */
export function tagRefsField(raw: unknown, source: string): Field<readonly GroupRef[]> {
  if (raw === undefined || raw === null) return missing(source);
  if (!Array.isArray(raw)) return invalid(source, 'tags is not an array');
  if (raw.length > VEHICLE_METADATA_BOUNDS.groupsMax) return invalid(source, 'more than 1000 tags');
  const refs: GroupRef[] = [];
  for (const tag of raw as unknown[]) {
    const { id, name } = (tag ?? {}) as { id?: unknown; name?: unknown };
    if (typeof id !== 'string' || id === '' || id.length > VEHICLE_METADATA_BOUNDS.groupIdMax) return invalid(source, 'tag without a usable id');
    refs.push(typeof name === 'string' && name !== '' && name.length <= VEHICLE_METADATA_BOUNDS.stringMax ? { id, name } : { id });
  }
  return available(refs, source);
}

// ---- records -----------------------------------------------------------------------------------

export function mapVehicle(raw: SamsaraVehicle, ctx: MapContext): VehicleRecord {
  const src = SAMSARA_SOURCES.vehicles;
  const gateway = raw.gateway as { serial?: unknown } | undefined;
  // gateway.serial is the installed device; the top-level `serial` duplicates it on older payloads.
  const serial = gateway && typeof gateway === 'object' && gateway.serial !== undefined ? gateway.serial : raw.serial;
  const metadata: VehicleMetadataCells = {
    make: stringField(raw.make, src),
    model: stringField(raw.model, src),
    year: yearField(raw.year, src),
    // No status field on the Samsara vehicle (§2): not "active by default" in the metadata cell.
    status: unsupported(src),
    providerStatus: unsupported(src),
    fuelType: unsupported(src),
    sourceFuelType: unsupported(src),
    createdAt: dateTimeField(raw.createdAtTime, src),
    updatedAt: dateTimeField(raw.updatedAtTime, src),
    activeFrom: unsupported(src),
    activeTo: unsupported(src),
    licensePlate: stringField(raw.licensePlate, src),
    licensePlateRegion: unsupported(src),
    serialNumber: stringField(serial, src),
    groups: tagRefsField(raw.tags, src),
  };
  return { provider: 'samsara', sourceId: raw.id, name: stringField(raw.name, src), vin: vinField(raw.vin, src), metadata, fetchedAt: ctx.fetchedAt };
}

export type DriverPass = 'active' | 'deactivated';

export function mapDriver(raw: SamsaraDriver, pass: DriverPass, ctx: MapContext): DriverRecord {
  const src = SAMSARA_SOURCES.drivers;
  const fields: { [K in DriverFieldKey]: Field<string> } = {
    // One full-name field only (§3). Splitting "Ana María Ruiz Soto" into parts would be a guess, so
    // first/middle/last are unsupported and the name is the display name, as capabilities say.
    firstName: unsupported(src),
    middleName: unsupported(src),
    lastName: unsupported(src),
    displayName: stringField(raw.name, src),
    email: emailField(raw.email, src),
    phone: phoneField(raw.phone, src),
    username: stringField(raw.username, src),
    licenseNumber: stringField(raw.licenseNumber, src),
    licenseState: licenseStateField(raw.licenseState, src),
    createdAt: dateTimeField(raw.createdAtTime, src),
    updatedAt: dateTimeField(raw.updatedAtTime, src),
  };
  const groups = tagRefsField(raw.tags, src);
  return {
    provider: 'samsara',
    sourceId: raw.id,
    status: driverStatus(raw, pass, src),
    fields,
    groupIds: groups.status === 'available' ? available(groups.value.map((g) => g.id), src) : (groups as Field<never>),
    fetchedAt: ctx.fetchedAt,
  };
}

function driverStatus(raw: SamsaraDriver, pass: DriverPass, src: string): Field<'active' | 'inactive'> {
  const s = raw.driverActivationStatus;
  if (s === 'active') return available('active', src);
  if (s === 'deactivated') return available('inactive', src);
  if (s !== undefined) return invalid(src, 'unknown driverActivationStatus');
  if (typeof raw.isDeactivated === 'boolean') return available(raw.isDeactivated ? 'inactive' : 'active', src);
  // The request itself filtered on the status (one status per request, §3).
  return available(pass === 'active' ? 'active' : 'inactive', src);
}

export function mapTag(raw: SamsaraTag, ctx: MapContext): GroupRecord {
  const src = SAMSARA_SOURCES.tags;
  return {
    provider: 'samsara',
    sourceId: raw.id,
    name: stringField(raw.name, src),
    description: unsupported(src),
    parentSourceId: raw.parentTagId ?? null,
    fetchedAt: ctx.fetchedAt,
  };
}

/** Trips have no id: the natural key is asset id + start (epoch ms, immune to RFC 3339 formatting variants). */
export function samsaraTripSourceId(assetId: string, startMs: number): string {
  return `${assetId}:${startMs}`;
}

/** A legacy trip still in progress ends at 9223372036854775807, which JSON.parse rounds up. */
export function isOngoingLegacyTrip(t: SamsaraLegacyTrip): boolean {
  return !Number.isSafeInteger(t.endMs) || t.endMs < t.startMs;
}

function latLon(raw: { latitude: number; longitude: number } | undefined, source: string): Field<LatLon> {
  if (!raw) return missing(source);
  const { latitude, longitude } = raw;
  if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return invalid(source, 'coordinates out of range');
  return available({ latitude, longitude }, source);
}

/**
 * A `/trips/stream` trip, enriched by the matching legacy trip (same vehicle and start ms) when there
 * is one. Returns undefined for trips not completed (in progress: no end yet).
 * Distance: ECU odometer difference when both odometers are present and non-decreasing (basis
 * `odometer`), else the legacy GPS `distanceMeters` (basis `gps`), else missing — never mixed.
 */
export function mapTrip(raw: SamsaraStreamTrip, legacy: SamsaraLegacyTrip | undefined, ctx: MapContext): TripRecord | undefined {
  if (raw.completionStatus !== 'completed' || raw.tripEndTime === undefined) return undefined;
  const startMs = Date.parse(raw.tripStartTime);
  const endMs = Date.parse(raw.tripEndTime);
  if (endMs < startMs) return undefined;
  const src = SAMSARA_SOURCES.trips;
  const legacySrc = SAMSARA_SOURCES.legacyTrips;
  const match = legacy && !isOngoingLegacyTrip(legacy) ? legacy : undefined;

  let distanceKm: Field<number> = missing(legacySrc);
  let distanceBasis: TripRecord['distanceBasis'] = null;
  const { startOdometer, endOdometer, distanceMeters } = match ?? {};
  const odometerKm = startOdometer !== undefined && endOdometer !== undefined && startOdometer >= 0 ? toTripKilometers(endOdometer - startOdometer, 'meters') : undefined;
  const gpsKm = distanceMeters !== undefined ? toTripKilometers(distanceMeters, 'meters') : undefined;
  if (odometerKm?.ok) {
    distanceKm = available(odometerKm.value, `${legacySrc}.endOdometer-startOdometer`);
    distanceBasis = 'odometer';
  } else if (gpsKm?.ok) {
    distanceKm = available(gpsKm.value, `${legacySrc}.distanceMeters`);
    distanceBasis = 'gps';
  } else if (gpsKm && gpsKm.status === 'invalid') {
    distanceKm = invalid(`${legacySrc}.distanceMeters`, gpsKm.reason);
  }

  const startLocation = raw.startLocation ? latLon(raw.startLocation, src) : latLon(match?.startCoordinates, legacySrc);
  const endLocation = raw.endLocation ? latLon(raw.endLocation, src) : latLon(match?.endCoordinates, legacySrc);
  return {
    provider: 'samsara',
    sourceId: samsaraTripSourceId(raw.asset.id, startMs),
    vehicleSourceId: raw.asset.id,
    // /trips/stream has no driver; the legacy driverId (0 / absent = unassigned) is the only source.
    driverSourceId: match?.driverId ? String(match.driverId) : null,
    startedAt: toIsoUtc(startMs),
    endedAt: toIsoUtc(endMs),
    durationMs: endMs - startMs,
    distanceKm,
    distanceBasis,
    startLocation,
    endLocation,
    fetchedAt: ctx.fetchedAt,
  };
}
