/**
 * MyGeotab entities → normalized records (shared/providers/README.md, geotab.md).
 *
 * Invariants: absent or malformed provider data becomes a `missing` / `invalid` Field (or, for
 * telemetry, no observation), never a zero; every available value names the Geotab field it came
 * from (`geotab:Device.licensePlate`, `geotab:DiagnosticOdometerId`); references are read through
 * `geotabRefSchema` so `{id}` and bare strings are the same; units are converted only through
 * @switchyard/domain (km/h → m/s, km trip distance, TimeSpan → ms). Telemetry observations live in
 * geotab.telemetry.ts, fault records in geotab.faults.ts.
 */
import {
  available,
  checkTripDistance,
  invalid,
  isRfc3339DateTime,
  MAX_PLAUSIBLE_TRIP_KMH,
  missing,
  parseTimeSpan,
  toTripKilometers,
  toTripMilliseconds,
  unsupported,
  type DistanceBasis,
  type DriverRecord,
  type Field,
  type GroupRecord,
  type GroupRef,
  type LatLon,
  type TripRecord,
  type VehicleRecord,
} from '@switchyard/domain';
import { isLicenseState } from '@switchyard/contracts';
import type { SkippedRecord } from '../adapter.js';
import { e164Phone } from '../phones.js';
import { GEOTAB_COMPANY_GROUP_ID, GEOTAB_NONE_IDS, type GeotabDevice, type GeotabGroup, type GeotabTrip, type GeotabUser } from './geotab.schemas.js';

export interface MapContext {
  /** ISO time the page was fetched. */
  readonly fetchedAt: string;
  /** Epoch ms used for "active now" decisions. */
  readonly nowMs: number;
}

/**
 * .NET MaxDate-style sentinels: an `activeTo` at or after 2050-01-01 means "no end" (Geotab commonly
 * sends exactly 2050-01-01T00:00:00.000Z; the exact value is unconfirmed, so anything later counts).
 */
export const GEOTAB_FAR_FUTURE_MS = Date.UTC(2050, 0, 1);

const VIN = /^[A-HJ-NPR-Z0-9]{17}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

// ---- small field helpers -----------------------------------------------------------------------

export function textField(raw: string | null | undefined, source: string): Field<string> {
  const value = raw?.trim();
  if (!value) return missing(source);
  if (value.length > 1024) return invalid(source, 'longer than 1024 characters');
  return available(value, source);
}

const BARE_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Epoch ms of an `activeFrom`/`activeTo`: an RFC 3339 date-time, or a bare `YYYY-MM-DD` read as UTC
 * midnight (some servers send `activeTo: "2050-01-01"`, as the mygeotab SDK's own README shows).
 * Event times (trips, faults, readings) stay strict date-times: a bare date there is invalid.
 */
export function activeDateMs(raw: string): number | undefined {
  const iso = BARE_DATE.test(raw) ? `${raw}T00:00:00Z` : raw;
  if (!isRfc3339DateTime(iso)) return undefined;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
}

export function dateField(raw: string | null | undefined, source: string): Field<string> {
  if (raw === null || raw === undefined || raw === '') return missing(source);
  if (!isRfc3339DateTime(raw)) return invalid(source, 'not an RFC 3339 date-time');
  return available(new Date(raw).toISOString(), source);
}

/** `activeFrom`/`activeTo` as a cell (a bare date allowed, see activeDateMs). */
function activeDateField(raw: string | null | undefined, source: string): Field<string> {
  if (raw === null || raw === undefined || raw === '') return missing(source);
  const ms = activeDateMs(raw);
  return ms === undefined ? invalid(source, 'not an RFC 3339 date-time or YYYY-MM-DD date') : available(new Date(ms).toISOString(), source);
}

/** A reference id, or null for Geotab's "none" ids (`UnknownDriverId`, `NoDeviceId`, …). */
export function realId(ref: string | null | undefined): string | null {
  if (!ref || GEOTAB_NONE_IDS.has(ref)) return null;
  return ref;
}

/** `activeTo` → active/inactive: active while activeTo is in the future (far-future = open-ended). */
export function activeStatus(activeTo: string | null | undefined, nowMs: number, source: string): Field<'active' | 'inactive'> {
  if (!activeTo) return missing(source);
  const ms = activeDateMs(activeTo);
  if (ms === undefined) return invalid(source, 'not an RFC 3339 date-time or YYYY-MM-DD date');
  return available(ms > nowMs ? 'active' : 'inactive', source);
}

/** `activeTo` as a cell: a far-future sentinel is not an end date, so it is `missing` (open-ended). */
function activeToField(activeTo: string | null | undefined, source: string): Field<string> {
  const field = activeDateField(activeTo, source);
  if (field.status === 'available' && Date.parse(field.value) >= GEOTAB_FAR_FUTURE_MS) return missing(source, 'open-ended (far-future activeTo)');
  return field;
}

function refsField(ids: readonly string[] | null | undefined, source: string): Field<readonly GroupRef[]> {
  if (ids === null || ids === undefined) return missing(source);
  const unique = [...new Set(ids.filter((id) => realId(id) !== null))];
  if (unique.length > 1000 || unique.some((id) => id.length > 256)) return invalid(source, 'more than 1000 groups or an id over 256 characters');
  return available(unique.map((id) => ({ id })), source);
}

// ---- Device → VehicleRecord ---------------------------------------------------------------------

/**
 * `deviceType: "None"` is an asset without a telematics device — in practice a trailer (productId -1,
 * `tmpTrailerId`): not a vehicle, so the adapter reports it as skipped instead of listing it.
 */
export const isTrailerDevice = (device: GeotabDevice): boolean => device.deviceType === 'None';
export const TRAILER_SKIP_REASON = 'deviceType "None": an asset without a telematics device (trailer), not a vehicle';

export function mapDevice(device: GeotabDevice, ctx: MapContext): VehicleRecord {
  const src = (field: string) => `geotab:Device.${field}`;
  const noSource = 'geotab:Device';
  return {
    provider: 'geotab',
    sourceId: device.id,
    name: textField(device.name, src('name')),
    vin: vinField(device),
    metadata: {
      // Device has no make/model/year/fuel type (geotab.md §2); VIN decoding is enrichment's job.
      make: unsupported(noSource),
      model: unsupported(noSource),
      year: unsupported(noSource),
      fuelType: unsupported(noSource),
      sourceFuelType: unsupported(noSource),
      providerStatus: unsupported(noSource),
      createdAt: unsupported(noSource),
      updatedAt: unsupported(noSource),
      status: activeStatus(device.activeTo, ctx.nowMs, src('activeTo')),
      activeFrom: activeDateField(device.activeFrom, src('activeFrom')),
      activeTo: activeToField(device.activeTo, src('activeTo')),
      licensePlate: textField(device.licensePlate, src('licensePlate')),
      licensePlateRegion: textField(device.licenseState, src('licenseState')),
      serialNumber: serialField(device.serialNumber, src('serialNumber')),
      groups: refsField(device.groups, src('groups')),
    },
    fetchedAt: ctx.fetchedAt,
  };
}

/**
 * Archived Devices carry `000-000-0000` instead of their GO device's serial (4 of 6 Devices of a
 * live capture, fixture geotab/device/ok/live-capture-page.json, all archived): a placeholder, not a
 * serial number, so the cell is `missing` with that reason.
 */
export const GEOTAB_PLACEHOLDER_SERIAL = '000-000-0000';

function serialField(raw: string | null | undefined, source: string): Field<string> {
  return raw?.trim() === GEOTAB_PLACEHOLDER_SERIAL ? missing(source, `placeholder serial ${GEOTAB_PLACEHOLDER_SERIAL} (archived device)`) : textField(raw, source);
}

/** `vehicleIdentificationNumber` (entered or decoded), else the ECU-reported one. */
function vinField(device: GeotabDevice): Field<string> {
  for (const key of ['vehicleIdentificationNumber', 'engineVehicleIdentificationNumber'] as const) {
    const raw = device[key]?.trim().toUpperCase();
    // "?" is the ECU's "could not read" (trailer-shape Devices carry it): not reported, not an invalid VIN.
    if (!raw || raw === '?') continue;
    const source = `geotab:Device.${key}`;
    return VIN.test(raw) ? available(raw, source) : invalid(source, 'not a 17-character VIN');
  }
  return missing('geotab:Device.vehicleIdentificationNumber');
}

// ---- User → DriverRecord ------------------------------------------------------------------------

/** Drivers are Users with `isDriver: true`; anything else maps to null. */
export function mapUser(user: GeotabUser, ctx: MapContext): DriverRecord | null {
  if (user.isDriver !== true) return null;
  const src = (field: string) => `geotab:User.${field}`;
  const firstName = textField(user.firstName, src('firstName'));
  const lastName = textField(user.lastName, src('lastName'));
  const parts = [firstName, lastName].filter((f) => f.status === 'available').map((f) => f.value);
  // companyGroups are the data-access groups ("tags"); driverGroups are home groups. Both count.
  const reported = user.companyGroups != null || user.driverGroups != null;
  const groupField = refsField(reported ? [...(user.companyGroups ?? []), ...(user.driverGroups ?? [])] : null, src('companyGroups'));
  return {
    provider: 'geotab',
    sourceId: user.id,
    status: activeStatus(user.activeTo, ctx.nowMs, src('activeTo')),
    fields: {
      firstName,
      middleName: unsupported('geotab:User'),
      lastName,
      displayName: parts.length > 0 ? available(parts.join(' '), `${src('firstName')}+lastName`) : missing(`${src('firstName')}+lastName`),
      email: emailField(user.name, src('name')),
      phone: phoneField(user.phoneNumber, src('phoneNumber')),
      username: textField(user.name, src('name')),
      licenseNumber: textField(user.licenseNumber, src('licenseNumber')),
      licenseState: licenseStateField(user.licenseProvince, src('licenseProvince')),
      createdAt: activeDateField(user.activeFrom, src('activeFrom')),
      updatedAt: unsupported('geotab:User'),
    },
    groupIds: groupField.status === 'available' ? available(groupField.value.map((g) => g.id), groupField.source) : { ...groupField, value: null },
    fetchedAt: ctx.fetchedAt,
  };
}

/** The login (`name`) doubles as email only when it looks like one; otherwise there is no email. */
function emailField(name: string | null | undefined, source: string): Field<string> {
  const value = name?.trim();
  if (!value) return missing(source);
  return EMAIL.test(value) ? available(value.toLowerCase(), source) : missing(source, 'login is not an email address');
}

/** Formatting dropped ("+1 5555550123" → "+15555550123"), then E.164 by the shared rule (phones.ts): a national number is ambiguous, never guessed. */
function phoneField(raw: string | null | undefined, source: string): Field<string> {
  const value = raw?.trim();
  return value ? e164Phone(value, source) : missing(source);
}

function licenseStateField(raw: string | null | undefined, source: string): Field<string> {
  const value = raw?.trim().toUpperCase();
  if (!value) return missing(source);
  return isLicenseState(value) ? available(value, source) : invalid(source, 'not a US/CA license state code');
}

// ---- Group → GroupRecord ------------------------------------------------------------------------

/**
 * Geotab lists children on the parent; we invert `children[]` into each group's parent. Only the
 * organisation tree (everything reachable from `GroupCompanyId`) is emitted: built-in security and
 * private-user trees are permission groups, not fleet groups. Without `GroupCompanyId` in the
 * response (restricted account), every group except built-in `Group…Id` ones is emitted.
 */
export function mapGroups(groups: readonly GeotabGroup[], ctx: MapContext): GroupRecord[] {
  const parentOf = new Map<string, string>();
  for (const group of groups) for (const child of group.children ?? []) if (!parentOf.has(child)) parentOf.set(child, group.id);
  const byId = new Map(groups.map((g) => [g.id, g]));
  let keep: (g: GeotabGroup) => boolean;
  if (byId.has(GEOTAB_COMPANY_GROUP_ID)) {
    const reachable = new Set<string>();
    const queue = [GEOTAB_COMPANY_GROUP_ID];
    while (queue.length > 0) {
      const id = queue.shift() as string;
      if (reachable.has(id)) continue;
      reachable.add(id);
      queue.push(...(byId.get(id)?.children ?? []));
    }
    keep = (g) => reachable.has(g.id);
  } else {
    keep = (g) => !/^Group[A-Za-z]*Id$/.test(g.id);
  }
  return groups.filter(keep).map((group) => ({
    provider: 'geotab',
    sourceId: group.id,
    name: textField(group.name, 'geotab:Group.name'),
    description: textField(group.comments, 'geotab:Group.comments'),
    parentSourceId: group.id === GEOTAB_COMPANY_GROUP_ID ? null : (parentOf.get(group.id) ?? realId(group.parent)),
    fetchedAt: ctx.fetchedAt,
  }));
}

// ---- Trip → TripRecord --------------------------------------------------------------------------

export function coordinate(point: { x: number; y: number } | null | undefined): LatLon | null {
  // Coordinate: x = longitude, y = latitude.
  if (!point) return null;
  const { x: longitude, y: latitude } = point;
  if (!(latitude >= -90 && latitude <= 90 && longitude >= -180 && longitude <= 180)) return null;
  return { latitude, longitude };
}

/**
 * Trips of one page. Trip has no start location: it is the previous trip's `stopPoint` when that
 * trip (same device) is in the page, else `startHints` (first LogRecord at or after `start`, looked
 * up by the adapter), else missing. A trip that cannot be placed in time (unreadable start/stop, stop
 * before start) is reported through `skip`. Distance is `distance` km (provider_reported); when absent,
 * the difference of consecutive trip-end `odometer`s (metres) of the same device (basis odometer). A
 * distance implying more than MAX_PLAUSIBLE_TRIP_KMH over the driving duration is `invalid` (no
 * basis) and reported through `skip` too; the trip itself is kept.
 */
export function mapTrips(
  trips: readonly GeotabTrip[],
  ctx: MapContext,
  startHints: ReadonlyMap<string, LatLon> = new Map(),
  skip: (record: SkippedRecord) => void = () => undefined,
): TripRecord[] {
  const sorted = [...trips].sort((a, b) => Date.parse(a.start) - Date.parse(b.start));
  const previous = new Map<string, GeotabTrip>();
  const out: TripRecord[] = [];
  for (const trip of sorted) {
    const prev = previous.get(trip.device);
    previous.set(trip.device, trip);
    const startedAt = dateField(trip.start, 'geotab:Trip.start');
    const endedAt = dateField(trip.stop, 'geotab:Trip.stop');
    if (startedAt.status !== 'available' || endedAt.status !== 'available') {
      skip({ sourceId: trip.id, reason: `geotab Trip ${trip.id}: start/stop not RFC 3339 date-times` }); // not a trip we can place in time
      continue;
    }
    // drivingDuration (start→stop) is the source duration; the elapsed interval stands in when it
    // is absent or malformed. A trip whose stop precedes its start has no duration: skipped.
    const duration = parseTimeSpan(trip.drivingDuration);
    const durationMs = duration.ok ? toTripMilliseconds(duration.value, 'seconds') : toTripMilliseconds(Date.parse(endedAt.value) - Date.parse(startedAt.value), 'milliseconds');
    if (!durationMs.ok) {
      skip({ sourceId: trip.id, reason: `geotab Trip ${trip.id}: stop before start, no duration` });
      continue;
    }
    let { distanceKm, distanceBasis } = tripDistance(trip, prev);
    if (distanceKm.status === 'available' && !checkTripDistance(distanceKm.value, durationMs.value).ok) {
      // The trip stays (its times, places and driver are sound); the distance does not: `invalid`, and logged as a skipped value.
      const reason = `implies more than ${MAX_PLAUSIBLE_TRIP_KMH} km/h over the driving duration`;
      skip({ sourceId: trip.id, reason: `geotab Trip ${trip.id}: distance ${distanceKm.value} km in ${durationMs.value} ms ${reason}; served without a distance` });
      distanceKm = invalid(distanceKm.source, reason);
      distanceBasis = null;
    }
    const prevStop = prev ? coordinate(prev.stopPoint) : null;
    const hint = startHints.get(trip.id);
    const end = coordinate(trip.stopPoint);
    out.push({
      provider: 'geotab',
      sourceId: trip.id,
      vehicleSourceId: trip.device,
      driverSourceId: realId(trip.driver),
      startedAt: startedAt.value,
      endedAt: endedAt.value,
      durationMs: durationMs.value,
      distanceKm,
      distanceBasis,
      startLocation: prevStop
        ? available(prevStop, 'geotab:Trip.stopPoint(previous trip)')
        : hint
          ? available(hint, 'geotab:LogRecord(first at or after start)')
          : missing('geotab:Trip', 'Trip has no start location and no earlier trip or GPS record was found'),
      endLocation: end ? available(end, 'geotab:Trip.stopPoint') : trip.stopPoint ? invalid('geotab:Trip.stopPoint', 'coordinate out of range') : missing('geotab:Trip.stopPoint'),
      fetchedAt: ctx.fetchedAt,
    });
  }
  return out;
}

function tripDistance(trip: GeotabTrip, prev: GeotabTrip | undefined): { distanceKm: Field<number>; distanceBasis: DistanceBasis | null } {
  const km = toTripKilometers(trip.distance, 'kilometers');
  if (km.ok) return { distanceKm: available(km.value, 'geotab:Trip.distance'), distanceBasis: 'provider_reported' };
  if (prev && typeof prev.odometer === 'number' && typeof trip.odometer === 'number' && trip.odometer >= prev.odometer) {
    const delta = toTripKilometers(trip.odometer - prev.odometer, 'meters');
    if (delta.ok) return { distanceKm: available(delta.value, 'geotab:Trip.odometer(difference)'), distanceBasis: 'odometer' };
  }
  return { distanceKm: km.status === 'invalid' ? invalid('geotab:Trip.distance', km.reason) : missing('geotab:Trip.distance'), distanceBasis: null };
}
