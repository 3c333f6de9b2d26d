/**
 * MyGeotab entity shapes rendered from the account's fleet view (geotab.md §2-§7): camelCase .NET
 * names, `{id}` references with the bare-string "none" forms (`"UnknownDriverId"`,
 * `"NoFailureModeId"`), ISO UTC dates with milliseconds, TimeSpan strings for durations, `x` =
 * longitude / `y` = latitude, kilometres for trip distance, metres / seconds / volts / percent in
 * StatusData, km/h speeds. Invariant: what the fleet does not have is omitted (no VIN, no fuel, no
 * odometer), never sent as 0 or "".
 */
import type { AccountFleet } from '../common/sim-kit.types.js';
import type { SimDriver, SimFault, SimTrip } from '../fleet/fleet.types.js';
import { hashString } from '../fleet/prng.js';
import { KNOWN_DIAGNOSTICS, failureModeId, faultControllerId, faultDiagnosticId, geotabDeviceId, geotabGroupId, geotabTripId, geotabUserId, GEOTAB_SERVICE_USER_ID, type KnownDiagnosticId } from './geotab-ids.js';

/** Geotab's "still active" MaxDate (geotab.md §1.6; exact value unconfirmed, this is the common one). */
export const GEOTAB_MAX_DATE = '2050-01-01T00:00:00.000Z';
export const iso = (ms: number): string => new Date(ms).toISOString();

/** Seconds → .NET TimeSpan "c" format: `[d.]hh:mm:ss[.fffffff]`. */
export function timeSpan(seconds: number): string {
  const ticks = Math.round(Math.max(0, seconds) * 10_000_000);
  const whole = Math.floor(ticks / 10_000_000);
  const fraction = ticks % 10_000_000;
  const days = Math.floor(whole / 86_400);
  const pad = (n: number) => String(n).padStart(2, '0');
  const clock = `${pad(Math.floor((whole % 86_400) / 3600))}:${pad(Math.floor((whole % 3600) / 60))}:${pad(whole % 60)}`;
  return `${days > 0 ? `${days}.` : ''}${clock}${fraction > 0 ? `.${String(fraction).padStart(7, '0')}` : ''}`;
}

/** Integer km/h, as GO devices report speed. */
export const kmh = (mps: number): number => Math.round(mps * 3.6);

export function renderDevice(fleet: AccountFleet, index: number, nowMs: number, version: string): Record<string, unknown> {
  const v = fleet.vehicle(index);
  const vinFields: Record<string, string> = {};
  // Every 7th VIN-bearing vehicle has only the ECU-reported VIN (nobody typed it in).
  if (v.vin && index % 7 === 2) vinFields.engineVehicleIdentificationNumber = v.vin;
  else if (v.vin) Object.assign(vinFields, { vehicleIdentificationNumber: v.vin, engineVehicleIdentificationNumber: v.vin });
  return {
    id: geotabDeviceId(index),
    name: v.name,
    serialNumber: fleet.deviceSerial(index, nowMs),
    deviceType: 'GO9',
    ...vinFields,
    licensePlate: v.licensePlate,
    licenseState: v.licenseState,
    groups: v.groupIndexes.map((g) => ({ id: geotabGroupId(g) })),
    comment: '',
    timeZoneId: 'America/New_York',
    productId: 120,
    activeFrom: iso(v.createdAtMs),
    activeTo: v.active ? GEOTAB_MAX_DATE : iso(Math.min(v.updatedAtMs, nowMs - 1)),
    version,
  };
}

/** Geotab's built-in group of trailers (membership marks a Device as one). */
export const GEOTAB_TRAILER_GROUP_ID = 'GroupTrailerId';
/** Trailers of the `geotab_trailers` quirk: ids outside the fleet's `b<hex>` device ids. */
export const GEOTAB_TRAILER_COUNT = 2;
export const geotabTrailerId = (n: number): string => `bL${n + 1}`;

/**
 * A trailer as a Geotab database lists it among its Devices (quirk `geotab_trailers`, the shape of
 * the fixture `geotab/device/ok/trailer-device-type-none.json`): `deviceType: "None"`, productId -1,
 * no serial, engine VIN `"?"`, membership in GroupTrailerId and a `tmpTrailerId`.
 */
export function renderTrailer(n: number, createdAtMs: number, version: string): Record<string, unknown> {
  return {
    id: geotabTrailerId(n),
    name: `Trailer ${n + 1}`,
    serialNumber: '',
    deviceType: 'None',
    productId: -1,
    vehicleIdentificationNumber: '',
    engineVehicleIdentificationNumber: '?',
    licensePlate: '',
    licenseState: '',
    groups: [{ id: GEOTAB_TRAILER_GROUP_ID }],
    comment: '',
    timeZoneId: 'America/New_York',
    activeFrom: iso(createdAtMs),
    activeTo: GEOTAB_MAX_DATE,
    tmpTrailerId: `SimTmpTrailerId${String(n + 1).padStart(6, '0')}`,
    version,
  };
}

/** Archived devices of the `geotab_archived_devices` quirk: ids outside the fleet's `b<hex>` device ids (R is not hex). */
export const GEOTAB_ARCHIVED_COUNT = 1;
export const geotabArchivedId = (n: number): string => `bR${n + 1}`;
/** What Geotab puts in an archived Device's `serialNumber` (fixture geotab/device/ok/live-capture-page.json). */
export const GEOTAB_PLACEHOLDER_SERIAL = '000-000-0000';

/**
 * An archived GO device as the live capture lists it (quirk `geotab_archived_devices`): GO7, a past
 * `activeTo` with milliseconds, the placeholder serial `000-000-0000`, the built-in GroupVehicleId.
 * No trips or readings: the simulator's series know only fleet vehicles.
 */
export function renderArchivedDevice(n: number, createdAtMs: number, nowMs: number, version: string): Record<string, unknown> {
  return {
    id: geotabArchivedId(n),
    name: `Archived unit ${n + 1}`,
    serialNumber: GEOTAB_PLACEHOLDER_SERIAL,
    deviceType: 'GO7',
    productId: 111,
    licensePlate: `ARC${n + 1}`,
    licenseState: '',
    groups: [{ id: 'GroupVehicleId' }],
    comment: '',
    timeZoneId: 'America/Los_Angeles',
    activeFrom: iso(createdAtMs),
    activeTo: iso(Math.min(createdAtMs + 86_400_215, nowMs - 1)),
    version,
  };
}

/** A Trip whose `distance` is metres, not km (quirk `geotab_trip_distance_in_metres`). */
export const withDistanceInMetres = (trip: Record<string, unknown>): Record<string, unknown> =>
  typeof trip['distance'] === 'number' ? { ...trip, distance: Math.round(trip['distance'] * 1e6) / 1e3 } : trip;

/** `2050-01-01T00:00:00.000Z` → `2050-01-01`: the bare dates some Geotab servers send (quirk `geotab_bare_dates`). */
export function withBareDates(entity: Record<string, unknown>): Record<string, unknown> {
  const bare = (x: unknown) => (typeof x === 'string' ? x.slice(0, 10) : x);
  return { ...entity, activeFrom: bare(entity['activeFrom']), activeTo: bare(entity['activeTo']) };
}

/** The device's engine VIN unreadable (`"?"`) and no typed-in VIN (quirk `geotab_unreadable_engine_vin`). */
export function withUnreadableEngineVin(device: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...device, engineVehicleIdentificationNumber: '?' };
  delete out['vehicleIdentificationNumber'];
  return out;
}

export function renderUser(d: SimDriver, version: string): Record<string, unknown> {
  return {
    id: geotabUserId(d.index),
    // The login: the email when the driver has one, else the username.
    name: d.email ?? d.username,
    firstName: d.firstName,
    lastName: d.lastName,
    isDriver: true,
    employeeNo: `E-${String(d.index + 1).padStart(5, '0')}`,
    // MyGeotab shows phone numbers with a space after the country code ("+1 5555550123").
    ...(d.phone ? { phoneNumber: d.phone.replace(/^\+1(?=\d)/, '+1 ') } : {}),
    ...(d.licenseNumber ? { licenseNumber: d.licenseNumber } : {}),
    ...(d.licenseState ? { licenseProvince: d.licenseState } : {}),
    keys: [],
    driverGroups: d.groupIndexes.map((g) => ({ id: geotabGroupId(g) })),
    companyGroups: [{ id: 'GroupCompanyId' }],
    securityGroups: [{ id: 'GroupDriveUserSecurityId' }],
    activeFrom: iso(d.createdAtMs),
    activeTo: d.active ? GEOTAB_MAX_DATE : iso(d.updatedAtMs),
    timeZoneId: 'America/New_York',
    version,
  };
}

export function renderServiceUser(userName: string, createdMs: number): Record<string, unknown> {
  return {
    id: GEOTAB_SERVICE_USER_ID,
    name: userName,
    firstName: 'Integration',
    lastName: 'Service',
    isDriver: false,
    companyGroups: [{ id: 'GroupCompanyId' }],
    securityGroups: [{ id: 'GroupViewOnlySecurityId' }],
    activeFrom: iso(createdMs),
    activeTo: GEOTAB_MAX_DATE,
    version: '0000000000000001',
  };
}

/** The organisation tree (children lists; `parent` is not populated) plus built-in security groups. */
export function renderGroups(fleet: AccountFleet): Record<string, unknown>[] {
  const groups = fleet.groups();
  const children = (parent: number | null) => groups.filter((g) => g.parentIndex === parent).map((g) => ({ id: geotabGroupId(g.index) }));
  return [
    { id: 'GroupCompanyId', name: '**Organization**', children: children(null) },
    ...groups.map((g) => ({ id: geotabGroupId(g.index), name: g.name, children: children(g.index), comments: '', reference: `G${g.index + 1}` })),
    { id: 'GroupSecurityId', name: '**SecurityGroup**', children: [{ id: 'GroupEverythingSecurityId' }, { id: 'GroupDriveUserSecurityId' }, { id: 'GroupViewOnlySecurityId' }] },
    { id: 'GroupEverythingSecurityId', name: '**EverythingSecurity**', children: [] },
    { id: 'GroupDriveUserSecurityId', name: '**DriveUserSecurity**', children: [] },
    { id: 'GroupViewOnlySecurityId', name: '**ViewOnlySecurity**', children: [] },
  ];
}

export function renderTrip(fleet: AccountFleet, trip: SimTrip, nextTripStartMs: number | undefined, version: string): Record<string, unknown> {
  const drivingS = (trip.endMs - trip.startMs) / 1000;
  const end = fleet.stateAt(trip.vehicleIndex, trip.endMs);
  return {
    id: geotabTripId(trip.vehicleIndex, trip.seq),
    device: { id: geotabDeviceId(trip.vehicleIndex) },
    driver: trip.driverIndex === null ? 'UnknownDriverId' : { id: geotabUserId(trip.driverIndex) },
    start: iso(trip.startMs),
    stop: iso(trip.endMs),
    ...(nextTripStartMs !== undefined ? { nextTripStart: iso(nextTripStartMs), stopDuration: timeSpan((nextTripStartMs - trip.endMs) / 1000) } : {}),
    distance: trip.distanceM / 1000,
    drivingDuration: timeSpan(drivingS),
    idlingDuration: timeSpan(trip.idleSeconds),
    averageSpeed: drivingS > 0 ? Math.round((trip.distanceM / drivingS) * 3.6 * 10) / 10 : 0,
    // Coordinate: x = longitude, y = latitude.
    stopPoint: { x: trip.end.longitude, y: trip.end.latitude },
    ...(trip.endOdometerM !== null ? { odometer: trip.endOdometerM } : {}),
    engineHours: end.engineSeconds,
    afterHoursStart: false,
    afterHoursEnd: false,
    workDistance: trip.distanceM / 1000,
    workDrivingDuration: timeSpan(drivingS),
    version,
  };
}

export function renderLogRecord(fleet: AccountFleet, index: number, tMs: number, version: string): Record<string, unknown> {
  const s = fleet.stateAt(index, tMs);
  return { id: `bL${index.toString(16)}x${tMs.toString(16)}`, dateTime: iso(tMs), device: { id: geotabDeviceId(index) }, latitude: s.latitude, longitude: s.longitude, speed: kmh(s.speedMps), version };
}

/** One StatusData row, or undefined when the vehicle does not report that diagnostic. */
export function renderStatusData(fleet: AccountFleet, index: number, tMs: number, diagnostic: KnownDiagnosticId, version: string): Record<string, unknown> | undefined {
  const s = fleet.stateAt(index, tMs);
  const data: Record<KnownDiagnosticId, number | null> = {
    DiagnosticOdometerId: s.odometerM,
    DiagnosticEngineHoursId: s.engineSeconds,
    DiagnosticFuelLevelId: s.fuelPercent,
    DiagnosticGoDeviceVoltageId: s.batteryVolts,
    DiagnosticIgnitionId: s.engineState === 'off' ? 0 : 1,
  };
  const value = data[diagnostic];
  if (value === null) return undefined;
  return { id: `bS${index.toString(16)}x${KNOWN_DIAGNOSTICS.findIndex((d) => d.id === diagnostic)}x${tMs.toString(16)}`, dateTime: iso(tMs), device: { id: geotabDeviceId(index) }, diagnostic: { id: diagnostic }, controller: 'ControllerNoneId', data: value, version };
}

export function renderDeviceStatusInfo(fleet: AccountFleet, index: number, atMs: number, stateSinceMs: number, nowMs: number): Record<string, unknown> {
  const s = fleet.stateAt(index, atMs);
  return {
    device: { id: geotabDeviceId(index) },
    driver: s.driverIndex === null ? 'UnknownDriverId' : { id: geotabUserId(s.driverIndex) },
    dateTime: iso(atMs),
    latitude: s.latitude,
    longitude: s.longitude,
    speed: kmh(s.speedMps),
    bearing: Math.round(s.headingDeg) % 360,
    isDriving: s.engineState === 'on',
    isDeviceCommunicating: nowMs - atMs < 2 * 3_600_000,
    currentStateDuration: timeSpan(Math.max(0, nowMs - stateSinceMs) / 1000),
    isHistoricLastDriver: false,
    groups: fleet.vehicle(index).groupIndexes.map((g) => ({ id: geotabGroupId(g) })),
    exceptionEvents: [],
    statusData: [],
  };
}

/** One FaultData occurrence (a GO device sends one per ignition cycle while the fault is present). */
export function renderFaultData(index: number, fault: SimFault, tMs: number, count: number, version: string): Record<string, unknown> {
  const j1939 = fault.protocol === 'j1939';
  return {
    id: `bF${index.toString(16)}x${tMs.toString(16)}x${hashString(fault.key).toString(16)}`,
    dateTime: iso(tMs),
    device: { id: geotabDeviceId(index) },
    diagnostic: { id: faultDiagnosticId(fault) },
    failureMode: j1939 && fault.fmi !== undefined ? { id: failureModeId(fault.fmi) } : 'NoFailureModeId',
    controller: { id: faultControllerId(fault.protocol) },
    faultState: 'Active',
    faultLampState: j1939 ? 'Warning' : 'None',
    malfunctionLamp: !j1939,
    amberWarningLamp: j1939,
    redStopLamp: false,
    protectWarningLamp: false,
    count,
    sourceAddress: 0,
    faultDescription: fault.description,
    version,
  };
}
