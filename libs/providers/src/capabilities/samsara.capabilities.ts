/**
 * Samsara capabilities, each value justified from shared/providers/samsara.md (SDK 14.7.0 types).
 * Invariant: 'supported' only where a documented field is read directly; anything derived, hardware-
 * dependent or marked unconfirmed in the reference is 'conditional' with the reason next to it.
 */
import type { ProviderCapabilities } from './capability.types.js';
import { GROUP_INVENTORY_CAPABILITY } from './capability.types.js';

export const SAMSARA_CAPABILITIES: ProviderCapabilities = {
  adapterVersion: 'samsara-adapter/0.1.0',
  fields: {
    // GET /fleet/vehicles (samsara.md §2).
    'vehicle.name': 'supported',
    'vehicle.vin': 'supported',
    'vehicle.make': 'supported',
    'vehicle.model': 'supported',
    'vehicle.year': 'supported', // a string on the wire; parsed to an integer, invalid when not 1886-2200
    'vehicle.status': 'conditional', // no status field on the vehicle object: derived_from_roster by the directory, once a complete roster pass listed the vehicle (decision 0011)
    'vehicle.fuelType': 'unsupported', // "no fuel-type field"
    'vehicle.licensePlate': 'supported',
    'vehicle.licensePlateState': 'unsupported', // "no separate plate-state field"
    'vehicle.serialNumber': 'supported', // gateway.serial
    'vehicle.createdAt': 'supported', // createdAtTime (required)
    'vehicle.updatedAt': 'supported', // updatedAtTime
    'vehicle.groups': 'supported', // tags[].id
    // Vehicle stats (§5.2).
    'telemetry.location': 'supported', // gps.latitude / gps.longitude
    'telemetry.odometer': 'conditional', // obdOdometerMeters needs ECU coverage; gpsOdometerMeters only after a manual offset
    'telemetry.engineHours': 'conditional', // obdEngineSeconds needs ECU coverage; syntheticEngineSeconds needs a baseline
    'telemetry.totalIdleTime': 'conditional', // idlingDurationMilliseconds, cumulative; present only where reported by the vehicle
    'telemetry.speed': 'supported', // gps.speedMilesPerHour, mph → m/s
    'telemetry.heading': 'supported', // gps.headingDegrees
    'telemetry.fuelPercent': 'conditional', // fuelPercents comes from the ECU
    'telemetry.batteryVoltage': 'supported', // batteryMilliVolts, mV → V
    'telemetry.engineState': 'supported', // engineStates On/Off/Idle
    // GET /fleet/drivers (§3).
    'driver.status': 'supported', // driverActivationStatus active/deactivated (two passes: one status per request)
    'driver.firstName': 'unsupported', // single full-name field only
    'driver.middleName': 'unsupported',
    'driver.lastName': 'unsupported',
    'driver.displayName': 'supported', // name
    'driver.email': 'conditional', // in the type; whether it is always returned is unconfirmed
    'driver.phone': 'supported',
    'driver.username': 'supported',
    'driver.licenseNumber': 'supported',
    'driver.licenseState': 'supported',
    'driver.createdAt': 'supported',
    'driver.updatedAt': 'supported',
    'driver.groups': 'supported', // tags[].id
    // GET /trips/stream (§6.1), legacy /v1/fleet/trips (§6.2).
    'trip.sourceId': 'conditional', // no trip id: keyed by (asset.id, tripStartTime), keying itself unconfirmed
    'trip.startedAt': 'supported',
    'trip.endedAt': 'supported', // tripEndTime, completed trips only
    'trip.duration': 'supported', // tripEndTime - tripStartTime
    'trip.distance': 'conditional', // no distance field: odometer delta from stats or legacy distanceMeters
    'trip.startLocation': 'supported',
    'trip.endLocation': 'supported',
    'trip.driver': 'conditional', // not in /trips/stream; legacy driverId or driver-vehicle assignments
    // faultCodes stat (§7).
    'faults.open': 'supported', // the codes in the latest faultCodes point
    'faults.transitions': 'conditional', // derived by diffing successive snapshots; explicit empty points unconfirmed
    'faults.code': 'supported',
    'faults.description': 'supported', // spnDescription / fmiDescription / dtcDescription, optional per code
    'faults.lamps': 'supported', // checkEngineLights.*, checkEngineLightIsOn
    // GET /tags (§4).
    'group.name': 'supported',
    'group.parent': 'supported', // parentTagId, absent for roots
  },
  faultModel: 'complete_snapshot',
  collection: 'poll',
  authentication: ['api_token', 'oauth'],
  limitations: [
    'Stats requests take at most 3 types, so extended telemetry needs several parallel feeds.',
    'Speeds are reported in mph and converted to m/s.',
    'Trips carry no id, distance or driver; distance comes from odometer differences.',
    'Vehicles have no status or fuel type; the status is derived_from_roster: active while the last complete roster pass lists the vehicle, inactive once a complete pass no longer does (unknown, an asset only, until a complete pass lists it).',
    'Driver names are a single full-name field; first, middle and last names are unsupported.',
    'Fault clears are derived by comparing successive fault-code snapshots.',
  ],
  vehicleMetadata: {
    optInConfig: 'vehicleMetadata',
    defaultEnabled: false,
    fields: {
      make: 'conditional',
      model: 'conditional',
      year: 'conditional',
      status: 'conditional', // no status field on the vehicle object: derived_from_roster (named in the cell's source)
      providerStatus: 'unsupported',
      fuelType: 'unsupported',
      sourceFuelType: 'unsupported',
      createdAt: 'conditional', // createdAtTime
      updatedAt: 'conditional', // updatedAtTime
      activeFrom: 'unsupported',
      activeTo: 'unsupported',
      licensePlate: 'conditional',
      licensePlateRegion: 'unsupported',
      serialNumber: 'conditional', // gateway.serial, only with an installed gateway
      groups: 'conditional', // tags
    },
  },
  groupInventory: GROUP_INVENTORY_CAPABILITY,
};
