/**
 * Motive capabilities, each value justified from shared/providers/motive.md. Motive publishes no
 * OpenAPI file or SDK, so many units and fields are unconfirmed there; those are 'conditional' (or
 * 'unsupported' where no source was found at all), with the reason next to them.
 */
import type { ProviderCapabilities } from './capability.types.js';
import { GROUP_INVENTORY_CAPABILITY } from './capability.types.js';

export const MOTIVE_CAPABILITIES: ProviderCapabilities = {
  adapterVersion: 'motive-adapter/0.1.0',
  fields: {
    // GET /v1/vehicles (motive.md §2).
    'vehicle.name': 'supported', // number
    'vehicle.vin': 'supported',
    'vehicle.make': 'supported',
    'vehicle.model': 'supported',
    'vehicle.year': 'supported', // string or null on the wire
    'vehicle.status': 'supported', // status active / deactivated (second value unconfirmed, mapped defensively)
    'vehicle.fuelType': 'supported', // fuel_type
    'vehicle.licensePlate': 'supported', // license_plate_number
    'vehicle.licensePlateState': 'supported', // license_plate_state
    'vehicle.serialNumber': 'conditional', // eld_device.identifier, null without a Vehicle Gateway
    'vehicle.createdAt': 'supported',
    'vehicle.updatedAt': 'supported',
    'vehicle.groups': 'unsupported', // unconfirmed: no group_ids field or vehicle-members endpoint found
    // Locations (§5.1-5.3), always requested with X-Metric-Units: true.
    'telemetry.location': 'supported', // lat / lon
    'telemetry.odometer': 'conditional', // true_odometer ?? odometer; km unit unconfirmed for location odometers
    'telemetry.engineHours': 'conditional', // true_engine_hours ?? engine_hours; hours unit unconfirmed
    'telemetry.totalIdleTime': 'unsupported', // only daily idle_time rollups in the company zone, no cumulative counter
    'telemetry.speed': 'conditional', // km/h per a community citation of v3; unconfirmed for v1
    'telemetry.heading': 'supported', // bearing
    'telemetry.fuelPercent': 'conditional', // fuel_primary_remaining_percentage, unconfirmed
    'telemetry.batteryVoltage': 'conditional', // battery_voltage, volts unconfirmed
    'telemetry.engineState': 'conditional', // derived from location type; values beyond vehicle_moving unconfirmed
    // GET /v1/users?role=driver (§3).
    'driver.status': 'supported',
    'driver.firstName': 'supported',
    'driver.middleName': 'unsupported',
    'driver.lastName': 'supported',
    'driver.displayName': 'conditional', // composed from first_name + last_name
    'driver.email': 'supported',
    'driver.phone': 'supported',
    'driver.username': 'supported',
    'driver.licenseNumber': 'supported', // drivers_license_number
    'driver.licenseState': 'supported', // drivers_license_state
    'driver.createdAt': 'supported',
    'driver.updatedAt': 'supported',
    'driver.groups': 'conditional', // via GET /v1/groups/{id}/users, one call per group
    // GET /v1/driving_periods (§6.1).
    'trip.sourceId': 'supported', // driving_period.id
    'trip.startedAt': 'supported',
    'trip.endedAt': 'supported', // end_time, null while driving
    'trip.duration': 'supported', // duration, seconds
    'trip.distance': 'conditional', // end_kilometers - start_kilometers (odometer basis)
    'trip.startLocation': 'supported', // origin_lat/origin_lon (live capture, docs/providers.md quirk M3)
    'trip.endLocation': 'supported', // destination_lat/destination_lon, null only while driving (such periods are not trips)
    'trip.driver': 'supported', // driver.id, null when unidentified
    // GET /v1/fault_codes (§7).
    'faults.open': 'supported', // status open
    'faults.transitions': 'supported', // first_observed_at, and last_observed_at once closed
    'faults.code': 'supported',
    'faults.description': 'supported', // code_description
    'faults.lamps': 'unsupported',
    // GET /v1/groups (§4).
    'group.name': 'supported',
    'group.parent': 'supported', // parent_id, null for roots
  },
  faultModel: 'complete_snapshot',
  collection: 'poll',
  authentication: ['api_key', 'oauth'],
  limitations: [
    'Units depend on the X-Metric-Units header; the adapter always sends true and treats unconfirmed units defensively.',
    'There is no trip object; trips are driving periods with odometer-based distance.',
    'Vehicle group memberships are not exposed by a confirmed endpoint.',
    'Idle time is only available as daily rollups, not as a cumulative counter.',
    'Offset pagination (per_page at most 100) can shift while paging; rows are de-duplicated by id.',
    'Location history windows are at most 3 months with at most 10 concurrent requests.',
  ],
  vehicleMetadata: {
    optInConfig: 'vehicleMetadata',
    defaultEnabled: false,
    fields: {
      make: 'conditional',
      model: 'conditional',
      year: 'conditional',
      status: 'conditional', // status active / deactivated → active / inactive
      providerStatus: 'conditional', // status as reported
      fuelType: 'conditional', // fuel_type mapped onto the enum, invalid when it does not map
      sourceFuelType: 'conditional', // fuel_type as reported
      createdAt: 'conditional',
      updatedAt: 'conditional',
      activeFrom: 'unsupported',
      activeTo: 'unsupported',
      licensePlate: 'conditional',
      licensePlateRegion: 'conditional', // license_plate_state
      serialNumber: 'conditional', // eld_device.identifier
      groups: 'unsupported', // unconfirmed, see vehicle.groups
    },
  },
  groupInventory: GROUP_INVENTORY_CAPABILITY,
};
