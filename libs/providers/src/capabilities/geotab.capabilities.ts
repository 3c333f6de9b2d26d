/**
 * Geotab capabilities, each value justified from shared/providers/geotab.md (official clients and the
 * MyGeotab API adapter). Geotab's Device has no make, model, year or fuel type and no created/updated
 * timestamps; those are 'unsupported' rather than guessed from VIN decoding, which is enrichment.
 */
import type { ProviderCapabilities } from './capability.types.js';
import { GROUP_INVENTORY_CAPABILITY } from './capability.types.js';

export const GEOTAB_CAPABILITIES: ProviderCapabilities = {
  adapterVersion: 'geotab-adapter/0.1.0',
  fields: {
    // Device (geotab.md §2).
    'vehicle.name': 'supported',
    'vehicle.vin': 'supported', // vehicleIdentificationNumber, fallback engineVehicleIdentificationNumber
    'vehicle.make': 'unsupported',
    'vehicle.model': 'unsupported',
    'vehicle.year': 'unsupported',
    'vehicle.status': 'conditional', // derived: activeTo > now ⇒ active
    'vehicle.fuelType': 'unsupported',
    'vehicle.licensePlate': 'supported',
    'vehicle.licensePlateState': 'supported', // licenseState
    'vehicle.serialNumber': 'supported', // GO device serialNumber
    'vehicle.createdAt': 'conditional', // no timestamp; activeFrom stands in
    'vehicle.updatedAt': 'unsupported',
    'vehicle.groups': 'supported', // groups[].id
    // LogRecord, StatusData, DeviceStatusInfo (§6).
    'telemetry.location': 'supported',
    'telemetry.odometer': 'conditional', // StatusData DiagnosticOdometerId (m) depends on engine data; adjustment only by per-device Get
    'telemetry.engineHours': 'conditional', // DiagnosticEngineHoursId (s) depends on engine data
    'telemetry.totalIdleTime': 'unsupported', // no cumulative idle KnownId; J1939 total idle hours id unconfirmed
    'telemetry.speed': 'supported', // km/h → m/s
    'telemetry.heading': 'conditional', // DeviceStatusInfo bearing only; LogRecord has none
    'telemetry.fuelPercent': 'conditional', // DiagnosticFuelLevelId, vehicle-dependent
    'telemetry.batteryVoltage': 'supported', // DiagnosticGoDeviceVoltageId, volts
    'telemetry.engineState': 'conditional', // derived from DiagnosticIgnitionId and speed (our rule)
    // User with isDriver (§3).
    'driver.status': 'conditional', // derived: activeTo > now
    'driver.firstName': 'supported',
    'driver.middleName': 'unsupported',
    'driver.lastName': 'supported',
    'driver.displayName': 'conditional', // composed from firstName + lastName
    'driver.email': 'conditional', // name is the login, often but not always an email
    'driver.phone': 'supported', // phoneNumber; spaces removed to reach E.164, invalid otherwise
    'driver.username': 'supported', // name
    'driver.licenseNumber': 'supported',
    'driver.licenseState': 'supported', // licenseProvince
    'driver.createdAt': 'conditional', // activeFrom stands in
    'driver.updatedAt': 'unsupported',
    'driver.groups': 'supported', // companyGroups (+ driverGroups)
    // Trip (§5).
    'trip.sourceId': 'supported',
    'trip.startedAt': 'supported', // start
    'trip.endedAt': 'supported', // stop (driving end, not nextTripStart)
    'trip.duration': 'supported', // drivingDuration TimeSpan
    'trip.distance': 'supported', // distance, km
    'trip.startLocation': 'conditional', // none on Trip: previous stopPoint or first LogRecord
    'trip.endLocation': 'supported', // stopPoint {x: lon, y: lat}
    'trip.driver': 'conditional', // "UnknownDriverId" ⇒ no driver
    // FaultData (§7).
    'faults.open': 'supported', // first record of (device, diagnostic, failureMode, controller)
    'faults.transitions': 'conditional', // no cleared record: ignition cycle without repeat, or dismissDateTime
    'faults.code': 'supported', // via Diagnostic / FailureMode lookups
    'faults.description': 'conditional', // Diagnostic name; faultDescription only when enriched
    'faults.lamps': 'supported',
    // Group (§4).
    'group.name': 'supported',
    'group.parent': 'conditional', // parent not populated: inverted from children[]
  },
  faultModel: 'explicit_records',
  collection: 'native_feed',
  authentication: ['service_account'],
  limitations: [
    'Devices have no make, model, year, fuel type or created/updated timestamps.',
    'Idle time has no cumulative counter; trips report per-trip idling only.',
    'Trips have no start location; it is taken from the previous stop point or the first GPS record.',
    'Fault clears are derived (no repeat within an ignition cycle, or dismissal), not reported.',
    'Authenticate is limited to 10 calls per minute per user; sessions are cached per database.',
    'Errors arrive as HTTP 200 with a JSON-RPC error body.',
  ],
  vehicleMetadata: {
    optInConfig: 'vehicleMetadata',
    defaultEnabled: false,
    fields: {
      make: 'unsupported',
      model: 'unsupported',
      year: 'unsupported',
      status: 'conditional', // activeTo compared with now
      providerStatus: 'unsupported', // no status string on Device
      fuelType: 'unsupported',
      sourceFuelType: 'unsupported',
      createdAt: 'unsupported', // no timestamp; activeFrom is reported under its own key
      updatedAt: 'unsupported',
      activeFrom: 'conditional',
      activeTo: 'conditional', // far-future MaxDate (commonly 2050-01-01, unconfirmed) means still active
      licensePlate: 'conditional',
      licensePlateRegion: 'conditional', // licenseState
      serialNumber: 'conditional',
      groups: 'conditional', // groups[].id
    },
  },
  groupInventory: GROUP_INVENTORY_CAPABILITY,
};
