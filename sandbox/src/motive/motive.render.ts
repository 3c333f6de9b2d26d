/**
 * The synthetic fleet rendered as Motive objects (shared/providers/motive.md §2-7): integer ids,
 * `year` as a string, embedded `{id, …}` objects, and units per the `X-Metric-Units` header —
 * metric (km, km/h, litres) only when the request said `true`, imperial (miles, mph, gallons)
 * otherwise — except where the field name carries its unit: driving periods' `start_kilometers` /
 * `end_kilometers` are km always (live capture, docs/providers.md quirk M1), and their display
 * `distance` string follows the header. `metric_units` on every vehicle object is the vehicle's own
 * display preference, never the response's unit mode.
 *
 * Invariants: a value the fleet does not have is omitted, never sent as 0 (vehicles without VIN,
 * odometer or fuel level); `true_*` readings are the fleet's truth while the plain `odometer` /
 * `engine_hours` carry the gateway's small virtual drift (motive.md §5.2), so an adapter that reads
 * the wrong one is caught; ids are stable functions of the fleet indexes.
 */
import type { AccountFleet } from '../common/sim-kit.types.js';
import type { SimDriver, SimFault, SimGroup, SimTrip, SimVehicle, VehicleState } from '../fleet/fleet.types.js';

export type Units = 'metric' | 'imperial';

/** Id ranges keep the three directories apart, which makes mixed-up ids visible in tests. */
export const MOTIVE_IDS = {
  vehicle: (index: number) => 100_000 + index,
  user: (index: number) => 200_000 + index,
  admin: (index: number) => 290_000 + index,
  group: (index: number) => 300_000 + index,
  /** One id per (vehicle, trip sequence): below 2^53 for any fleet we simulate. */
  drivingPeriod: (vehicleIndex: number, seq: number) => (vehicleIndex + 1) * 10_000_000 + seq,
} as const;
export const MOTIVE_COMPANY_ID = 5_001;

const M_PER_MILE = 1609.344;
/** The gateway's virtual odometer runs 0.2 % long and its engine hours 1.5 h ahead of the corrected values. */
export const VIRTUAL_ODOMETER_FACTOR = 1.002;
export const VIRTUAL_ENGINE_HOURS_OFFSET = 1.5;

export const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');
export const distance = (meters: number, units: Units): number => (units === 'metric' ? meters / 1000 : meters / M_PER_MILE);
export const speed = (mps: number, units: Units): number => (units === 'metric' ? mps * 3.6 : mps / 0.44704);

/** 32-bit FNV-1a: small stable ids and UUID material without any state. */
export function fnv32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h >>> 0;
}

function uuidFrom(text: string): string {
  const hex = [0, 1, 2, 3].map((i) => fnv32(`${i}:${text}`).toString(16).padStart(8, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export const MOTIVE_FUEL_TYPES: Readonly<Record<SimVehicle['fuelType'], string>> = {
  gasoline: 'gasoline',
  diesel: 'diesel',
  electric: 'electric',
  hybrid_gasoline: 'hybrid', // Motive has no gasoline/diesel split for hybrids (as far as the reference shows)
  propane: 'propane',
  compressed_natural_gas: 'compressed_natural_gas',
};

/** `+15555550123` → `555-555-0123`: the fleet's phones are all +1. */
const nationalPhone = (e164: string): string => e164.slice(2).replace(/^(\d{3})(\d{3})(\d+)$/, '$1-$2-$3');

export function renderUser(d: SimDriver): Record<string, unknown> {
  return {
    id: MOTIVE_IDS.user(d.index),
    first_name: d.firstName,
    last_name: d.lastName,
    username: d.username,
    ...(d.email ? { email: d.email } : {}),
    // Motive keeps the country code apart and the number as entered (docs/providers.md quirk M5).
    ...(d.phone ? { phone: nationalPhone(d.phone), phone_country_code: '+1', phone_ext: null } : {}),
    role: 'driver',
    status: d.active ? 'active' : 'deactivated',
    duty_status: 'off_duty',
    time_zone: 'Central Time (US & Canada)',
    metric_units: false,
    driver_company_id: `E-${String(d.index + 1).padStart(4, '0')}`,
    ...(d.licenseNumber ? { drivers_license_number: d.licenseNumber } : {}),
    ...(d.licenseState ? { drivers_license_state: d.licenseState } : {}),
    cycle: '70_8',
    eld_mode: 'logs',
    created_at: iso(d.createdAtMs),
    updated_at: iso(d.updatedAtMs),
  };
}

/** The fleet has no admins; two fixed ones make the `role=driver` filter observable. */
export function renderAdmin(index: number, createdAtMs: number): Record<string, unknown> {
  return { id: MOTIVE_IDS.admin(index), first_name: 'Fleet', last_name: `Admin ${index + 1}`, username: `admin${index + 1}`, email: `admin${index + 1}@fleet.example`, role: 'admin', status: 'active', created_at: iso(createdAtMs), updated_at: iso(createdAtMs) };
}

export const embeddedUser = (d: SimDriver): Record<string, unknown> => ({
  id: MOTIVE_IDS.user(d.index),
  first_name: d.firstName,
  last_name: d.lastName,
  username: d.username,
  email: d.email,
  driver_company_id: `E-${String(d.index + 1).padStart(4, '0')}`,
  status: d.active ? 'active' : 'deactivated',
  role: 'driver',
});

/** Canadian plates prefer metric; everyone else imperial (a display preference only, like Motive's). */
const prefersMetric = (v: SimVehicle): boolean => ['AB', 'BC', 'MB', 'NB', 'NL', 'NS', 'ON', 'PE', 'QC', 'SK', 'NT', 'NU', 'YT'].includes(v.licenseState);

/** The vehicle embedded in driving periods and fault codes; `metric_units` is its display preference. */
export const embeddedVehicle = (v: SimVehicle): Record<string, unknown> => ({
  id: MOTIVE_IDS.vehicle(v.index),
  number: v.name,
  year: String(v.year),
  make: v.make,
  model: v.model,
  vin: v.vin,
  metric_units: prefersMetric(v),
});

export function eldDevice(fleet: AccountFleet, v: SimVehicle, tMs: number): Record<string, unknown> {
  const identifier = fleet.deviceSerial(v.index, tMs);
  return { id: fnv32(identifier) % 1_000_000, identifier, model: 'lbb-3.6ca' };
}

export function renderVehicle(fleet: AccountFleet, v: SimVehicle, nowMs: number, driver: SimDriver | null): Record<string, unknown> {
  return {
    id: MOTIVE_IDS.vehicle(v.index),
    company_id: MOTIVE_COMPANY_ID,
    number: v.name,
    status: v.active ? 'active' : 'deactivated',
    ifta: true,
    ...(v.vin ? { vin: v.vin } : {}),
    make: v.make,
    model: v.model,
    year: String(v.year),
    license_plate_state: v.licenseState,
    license_plate_number: v.licensePlate,
    metric_units: prefersMetric(v), // the vehicle's own preference, not the response's unit mode
    fuel_type: MOTIVE_FUEL_TYPES[v.fuelType],
    prevent_auto_odometer_entry: false,
    notes: '',
    eld_device: eldDevice(fleet, v, nowMs),
    current_driver: driver ? embeddedUser(driver) : null,
    external_ids: [],
    created_at: iso(v.createdAtMs),
    updated_at: iso(v.updatedAtMs),
  };
}

export const renderGroup = (g: SimGroup): Record<string, unknown> => ({
  id: MOTIVE_IDS.group(g.index),
  name: g.name,
  company_id: MOTIVE_COMPANY_ID,
  parent_id: g.parentIndex === null ? null : MOTIVE_IDS.group(g.parentIndex),
  user: null,
});

/** Point type from engine state: the event kinds our adapter rule reads (motive.md §5.4). */
const POINT_TYPE: Readonly<Record<VehicleState['engineState'], string>> = { on: 'vehicle_moving', idle: 'ignition_on', off: 'ignition_off' };

/** The fields shared by `current_location` and a v3 `vehicle_location`. */
export function renderPoint(v: SimVehicle, s: VehicleState, units: Units): Record<string, unknown> {
  const hours = s.engineSeconds / 3600;
  return {
    id: uuidFrom(`${v.index}:${s.tMs}`),
    located_at: iso(s.tMs),
    lat: s.latitude,
    lon: s.longitude,
    bearing: s.headingDeg,
    description: `${v.name} route`,
    type: POINT_TYPE[s.engineState],
    speed: speed(s.speedMps, units),
    ...(s.odometerM === null ? {} : { odometer: distance(s.odometerM * VIRTUAL_ODOMETER_FACTOR, units), true_odometer: distance(s.odometerM, units) }),
    engine_hours: hours + VIRTUAL_ENGINE_HOURS_OFFSET,
    true_engine_hours: hours,
    ...(s.fuelPercent === null ? {} : { fuel_primary_remaining_percentage: s.fuelPercent }),
    fuel_secondary_remaining_percentage: null,
    battery_voltage: s.batteryVolts,
  };
}

/** Motive's display distance: one decimal and the unit, per the request's unit mode ("42.2 mi"). */
const displayDistance = (meters: number, units: Units): string => `${distance(meters, units).toFixed(1)} ${units === 'metric' ? 'km' : 'mi'}`;

/**
 * A driving period; `end` null renders the still-driving form (`end_time`, end odometer, destination
 * and `distance` null, as the live capture shows). Odometers are km whatever `units` says.
 */
export function renderDrivingPeriod(
  trip: SimTrip,
  v: SimVehicle,
  driver: SimDriver | null,
  odometer: { start: number | null; end: number | null },
  ongoing: boolean,
  units: Units,
): Record<string, unknown> {
  return {
    id: MOTIVE_IDS.drivingPeriod(v.index, trip.seq),
    start_time: iso(trip.startMs),
    end_time: ongoing ? null : iso(trip.endMs),
    status: null,
    type: 'driving',
    annotation_status: null,
    notes: null,
    duration: ongoing ? null : Math.round((trip.endMs - trip.startMs) / 1000),
    ...(odometer.start === null ? {} : { start_kilometers: odometer.start / 1000 }),
    ...(odometer.end === null || ongoing ? {} : { end_kilometers: odometer.end / 1000 }),
    source: 1,
    driver: driver ? embeddedUser(driver) : null,
    vehicle: embeddedVehicle(v),
    origin_lat: trip.start.latitude,
    origin_lon: trip.start.longitude,
    destination_lat: ongoing ? null : trip.end.latitude,
    destination_lon: ongoing ? null : trip.end.longitude,
    distance: ongoing ? null : displayDistance(trip.distanceM, units),
  };
}

export function renderFaultCode(fleet: AccountFleet, v: SimVehicle, f: SimFault, nowMs: number): Record<string, unknown> {
  const open = f.clearedAtMs === null || f.clearedAtMs > nowMs;
  const j1939 = f.protocol === 'j1939';
  return {
    // Stable per (vehicle, fault, occurrence); vehicle index in the high part keeps vehicles apart.
    id: (v.index + 1) * 2 ** 32 + fnv32(`${f.key}:${f.openedAtMs}`),
    code: j1939 ? String(f.spn) : f.code,
    code_label: f.code,
    code_description: f.description,
    source_address: j1939 ? '0' : null,
    source_address_label: j1939 ? 'Engine #1' : null,
    status: open ? 'open' : 'closed',
    first_observed_at: iso(f.openedAtMs),
    last_observed_at: iso(open ? nowMs : (f.clearedAtMs as number)),
    type: 'constant',
    fmi: j1939 ? (f.fmi ?? null) : null,
    fmi_description: null,
    occurrence_count: 1,
    num_observations: 1,
    is_sid: false,
    eld_device: eldDevice(fleet, v, f.openedAtMs),
    vehicle: embeddedVehicle(v),
    network: f.protocol,
  };
}
