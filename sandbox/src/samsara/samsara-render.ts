/**
 * Renders the shared fleet as Samsara JSON (shared/providers/samsara.md §2-§7): vehicle, driver and
 * tag objects, stat points, trips (stream and legacy) and faultCodes values.
 * Invariants: units are Samsara's (mph, millivolts, milliseconds, meters, seconds, integer percent);
 * what the fleet does not have is omitted — never sent as 0, null or "" (a vehicle without VIN has no
 * `vin` key, one that never reports fuel has no `fuelPercent(s)`, no odometer → neither odometer stat).
 */
import type { AccountFleet } from '../common/sim-kit.types.js';
import type { SimDriver, SimFault, SimGroup, SimTrip, SimVehicle, VehicleState } from '../fleet/fleet.types.js';
import {
  obdDtcId,
  samsaraDriverId,
  samsaraGatewayModel,
  samsaraHasEcu,
  samsaraProtocol,
  samsaraTagId,
  samsaraTime,
  samsaraVehicleId,
} from './samsara-ids.js';

type Json = Record<string, unknown>;
const MPS_PER_MPH = 0.44704;

export function tagTiny(fleet: AccountFleet, index: number): Json {
  const g = fleet.groups()[index] as SimGroup;
  return { id: samsaraTagId(g.index), name: g.name, ...(g.parentIndex !== null ? { parentTagId: samsaraTagId(g.parentIndex) } : {}) };
}

export function renderVehicle(fleet: AccountFleet, v: SimVehicle, nowMs: number): Json {
  const serial = fleet.deviceSerial(v.index, nowMs);
  return {
    id: samsaraVehicleId(v.index),
    name: v.name,
    ...(v.vin !== null ? { vin: v.vin } : {}),
    make: v.make,
    model: v.model,
    year: String(v.year),
    licensePlate: v.licensePlate,
    serial,
    gateway: { serial, model: samsaraGatewayModel(v) },
    tags: v.groupIndexes.map((g) => tagTiny(fleet, g)),
    externalIds: { 'switchyard.fleetIndex': String(v.index) },
    notes: '',
    vehicleRegulationMode: samsaraProtocol(v) === 'j1939' ? 'regulated' : 'unregulated',
    createdAtTime: samsaraTime(v.createdAtMs),
    updatedAtTime: samsaraTime(v.updatedAtMs),
  };
}

/**
 * A vehicle as sparse as Samsara lists some (quirk `samsara_sparse_vehicles`): its id and times only —
 * no name, VIN, make, model, year, plate, gateway or tags, all omitted rather than empty.
 */
export function renderSparseVehicle(v: SimVehicle): Json {
  return { id: samsaraVehicleId(v.index), createdAtTime: samsaraTime(v.createdAtMs), updatedAtTime: samsaraTime(v.updatedAtMs) };
}

/** The national form of a fleet phone (`+15558234327` → `5558234327`), as Samsara's own driver example shows it. */
export const samsaraNationalPhone = (e164: string): string => e164.replace(/^\+1/, '');

export function renderDriver(fleet: AccountFleet, d: SimDriver, nationalPhones = false): Json {
  return {
    id: samsaraDriverId(d.index),
    name: `${d.firstName} ${d.lastName}`,
    username: d.username,
    ...(d.phone !== null ? { phone: nationalPhones ? samsaraNationalPhone(d.phone) : d.phone } : {}),
    ...(d.email !== null ? { email: d.email } : {}),
    ...(d.licenseNumber !== null ? { licenseNumber: d.licenseNumber } : {}),
    ...(d.licenseState !== null ? { licenseState: d.licenseState } : {}),
    driverActivationStatus: d.active ? 'active' : 'deactivated',
    isDeactivated: !d.active,
    tags: d.groupIndexes.map((g) => tagTiny(fleet, g)),
    timezone: 'America/Chicago',
    eldExempt: false,
    createdAtTime: samsaraTime(d.createdAtMs),
    updatedAtTime: samsaraTime(d.updatedAtMs),
  };
}

export function renderTag(fleet: AccountFleet, g: SimGroup, members: { vehicles: readonly SimVehicle[]; drivers: readonly SimDriver[] }): Json {
  const parent = g.parentIndex !== null ? (fleet.groups()[g.parentIndex] as SimGroup) : null;
  return {
    ...tagTiny(fleet, g.index),
    ...(parent ? { parentTag: { id: samsaraTagId(parent.index), name: parent.name } } : {}),
    vehicles: members.vehicles.map((v) => ({ id: samsaraVehicleId(v.index), name: v.name })),
    drivers: members.drivers.map((d) => ({ id: samsaraDriverId(d.index), name: `${d.firstName} ${d.lastName}` })),
    assets: [],
    addresses: [],
  };
}

/** The stat `types` the simulator serves, with the snapshot key where it differs (§5.2). */
export const SAMSARA_STAT_TYPES = [
  'gps',
  'obdOdometerMeters',
  'gpsOdometerMeters',
  'obdEngineSeconds',
  'syntheticEngineSeconds',
  'idlingDurationMilliseconds',
  'fuelPercents',
  'batteryMilliVolts',
  'engineStates',
  'faultCodes',
] as const;
export type SamsaraStatType = (typeof SAMSARA_STAT_TYPES)[number];
export const SNAPSHOT_KEY: Readonly<Partial<Record<SamsaraStatType, string>>> = { engineStates: 'engineState', fuelPercents: 'fuelPercent' };

/** One stat point of `type` from a state, or undefined when this vehicle does not report it. */
export function statPoint(v: SimVehicle, type: Exclude<SamsaraStatType, 'faultCodes'>, s: VehicleState): Json | undefined {
  const time = samsaraTime(s.tMs);
  const ecu = samsaraHasEcu(v.index);
  const value = (x: number | string): Json => ({ time, value: x });
  switch (type) {
    case 'gps':
      return {
        time,
        latitude: s.latitude,
        longitude: s.longitude,
        headingDegrees: s.headingDeg,
        speedMilesPerHour: s.speedMps / MPS_PER_MPH,
        isEcuSpeed: ecu && s.speedMps > 0,
        reverseGeo: { formattedLocation: `${s.latitude.toFixed(3)}, ${s.longitude.toFixed(3)}` },
      };
    case 'obdOdometerMeters':
      return ecu && s.odometerM !== null ? value(Math.floor(s.odometerM)) : undefined;
    case 'gpsOdometerMeters':
      return !ecu && s.odometerM !== null ? value(Math.floor(s.odometerM)) : undefined;
    case 'obdEngineSeconds':
      return ecu ? value(Math.floor(s.engineSeconds)) : undefined;
    case 'syntheticEngineSeconds':
      return ecu ? undefined : value(Math.floor(s.engineSeconds));
    case 'idlingDurationMilliseconds':
      return value(Math.round(s.idleSeconds * 1000));
    case 'fuelPercents':
      return s.fuelPercent !== null ? value(Math.round(s.fuelPercent)) : undefined;
    case 'batteryMilliVolts':
      return value(Math.round(s.batteryVolts * 1000));
    case 'engineStates':
      return value(s.engineState === 'on' ? 'On' : s.engineState === 'idle' ? 'Idle' : 'Off');
  }
}

/** A `faultCodes` value: the complete set of codes active at `tMs`, on the vehicle's bus (§7). */
export function faultCodesPoint(v: SimVehicle, tMs: number, active: readonly SimFault[]): Json {
  const protocol = samsaraProtocol(v);
  const j1939 = active.filter((f) => f.protocol === 'j1939');
  const obd = active.filter((f) => f.protocol === 'obdii');
  return {
    time: samsaraTime(tMs),
    canBusType: protocol === 'j1939' ? 'J1939' : 'OBD-II',
    ...(protocol === 'j1939' || j1939.length
      ? {
          j1939: {
            checkEngineLights: { emissionsIsOn: false, protectIsOn: false, stopIsOn: false, warningIsOn: j1939.length > 0 },
            diagnosticTroubleCodes: j1939.map((f) => ({
              spnId: f.spn,
              fmiId: f.fmi,
              spnDescription: f.description,
              occurrenceCount: 1,
              milStatus: 0,
              txId: 0,
            })),
          },
        }
      : {}),
    ...(protocol === 'obdii' || obd.length
      ? {
          obdii: {
            checkEngineLightIsOn: obd.length > 0,
            diagnosticTroubleCodes: [
              {
                txId: 0,
                milStatus: obd.length > 0,
                confirmedDtcs: obd.map((f) => ({ dtcId: obdDtcId(f.code), dtcShortCode: f.code, dtcDescription: f.description })),
                pendingDtcs: [],
                permanentDtcs: [],
              },
            ],
          },
        }
      : {}),
  };
}

/**
 * An OEM code without `codeIdentifier` (quirk `samsara_oem_code_without_identifier`): Samsara's SDK
 * types all four OEM fields optional; the description, severity and source are those of its example.
 */
export function withOemCodeWithoutIdentifier(point: Json): Json {
  return { ...point, oem: { diagnosticTroubleCodes: [{ codeDescription: 'KVGT Servo Error', codeSeverity: 'L03', codeSource: 'ENG/M' }] } };
}

function location(s: VehicleState, at: { latitude: number; longitude: number }): Json {
  return { latitude: at.latitude, longitude: at.longitude, headingDegrees: Math.round(s.headingDeg) % 360, accuracyMeters: 5 };
}

/** `/trips/stream` item. `completionStatus` inProgress trips have no end (§6.1). */
export function renderStreamTrip(fleet: AccountFleet, v: SimVehicle, t: SimTrip, nowMs: number, includeAsset: boolean): Json {
  const done = t.endMs <= nowMs;
  return {
    asset: includeAsset ? { id: samsaraVehicleId(v.index), name: v.name, type: 'vehicle', ...(v.vin ? { vin: v.vin } : {}) } : { id: samsaraVehicleId(v.index) },
    completionStatus: done ? 'completed' : 'inProgress',
    tripStartTime: samsaraTime(t.startMs),
    ...(done ? { tripEndTime: samsaraTime(t.endMs) } : {}),
    createdAtTime: samsaraTime(t.startMs + 30_000),
    updatedAtTime: samsaraTime(done ? t.endMs + 35_000 : t.startMs + 30_000),
    startLocation: location(fleet.stateAt(v.index, t.startMs), t.start),
    ...(done ? { endLocation: location(fleet.stateAt(v.index, t.endMs), t.end) } : {}),
  };
}

/**
 * Sub-second part of a legacy trip's times: `/v1/fleet/trips` keeps milliseconds (live `startMs` like
 * 1767225600123) while `/trips/stream` prints whole seconds, so an adapter joining them on exact ms
 * finds nothing (docs/providers.md quirk S2). Deterministic per trip, never 0.
 */
const legacySubsecondMs = (v: SimVehicle, t: SimTrip): number => 1 + ((v.index * 37 + t.seq * 101) % 999);

/** Legacy `/v1/fleet/trips` item: epoch ms, int ids, ECU odometers only with ECU coverage (§6.2). */
export function renderLegacyTrip(v: SimVehicle, t: SimTrip, nowMs: number): Json {
  const done = t.endMs <= nowMs;
  const ecu = samsaraHasEcu(v.index);
  return {
    startMs: t.startMs + legacySubsecondMs(v, t),
    // Ongoing: Long.MAX_VALUE (9223372036854775807). As a double that is 2^63; JSON.stringify writes
    // 9223372036854776000, which any JSON parser reads back as the same double.
    endMs: done ? t.endMs : 2 ** 63,
    // GPS distance so far is unknown for an ongoing trip (the fleet knows only the planned total): omitted.
    ...(done ? { distanceMeters: Math.round(t.distanceM) } : {}),
    ...(t.driverIndex !== null ? { driverId: Number(samsaraDriverId(t.driverIndex)) } : {}),
    codriverIds: [],
    ...(ecu && t.startOdometerM !== null && t.endOdometerM !== null && done ? { startOdometer: Math.floor(t.startOdometerM), endOdometer: Math.floor(t.endOdometerM) } : {}),
    startLocation: `${t.start.latitude.toFixed(4)}, ${t.start.longitude.toFixed(4)}`,
    endLocation: `${t.end.latitude.toFixed(4)}, ${t.end.longitude.toFixed(4)}`,
    startCoordinates: t.start,
    endCoordinates: t.end,
    assetIds: [],
  };
}
