/**
 * Shapes of a provider's Capabilities (spec 2.8) minus `id`, which the gateway adds per connection.
 * Invariant: `fields` is typed as a full record over `CAPABILITY_FIELDS`, and the metadata table over
 * the 15 metadata keys, so a provider file that forgets a field does not compile.
 *
 * What the three support values mean here:
 * - supported: a documented provider field or call the adapter reads directly; a given record may
 *   still lack it, and then the value is reported missing, never zero.
 * - conditional: depends on hardware or ECU coverage, account configuration, a fallback derivation,
 *   or a field marked unconfirmed in the provider reference.
 * - unsupported: the provider has no source for it; the value is always reported unsupported.
 */
import { TELEMETRY_METRICS, type TelemetryMetric } from '@switchyard/domain';
import { GROUP_INVENTORY_MAX_IDS, type VehicleMetadataKey } from '@switchyard/contracts';

export type Support = 'supported' | 'conditional' | 'unsupported';

export const VEHICLE_CAPABILITY_FIELDS = [
  'vehicle.name',
  'vehicle.vin',
  'vehicle.make',
  'vehicle.model',
  'vehicle.year',
  'vehicle.status',
  'vehicle.fuelType',
  'vehicle.licensePlate',
  'vehicle.licensePlateState',
  'vehicle.serialNumber',
  'vehicle.createdAt',
  'vehicle.updatedAt',
  'vehicle.groups',
] as const;

export const TELEMETRY_CAPABILITY_FIELDS = TELEMETRY_METRICS.map((m) => `telemetry.${m}` as const) as ReadonlyArray<`telemetry.${TelemetryMetric}`>;

export const DRIVER_CAPABILITY_FIELDS = [
  'driver.status',
  'driver.firstName',
  'driver.middleName',
  'driver.lastName',
  'driver.displayName',
  'driver.email',
  'driver.phone',
  'driver.username',
  'driver.licenseNumber',
  'driver.licenseState',
  'driver.createdAt',
  'driver.updatedAt',
  'driver.groups',
] as const;

export const TRIP_CAPABILITY_FIELDS = [
  'trip.sourceId',
  'trip.startedAt',
  'trip.endedAt',
  'trip.duration',
  'trip.distance',
  'trip.startLocation',
  'trip.endLocation',
  'trip.driver',
] as const;

export const FAULT_CAPABILITY_FIELDS = ['faults.open', 'faults.transitions', 'faults.code', 'faults.description', 'faults.lamps'] as const;

export const GROUP_CAPABILITY_FIELDS = ['group.name', 'group.parent'] as const;

export type CapabilityField =
  | (typeof VEHICLE_CAPABILITY_FIELDS)[number]
  | `telemetry.${TelemetryMetric}`
  | (typeof DRIVER_CAPABILITY_FIELDS)[number]
  | (typeof TRIP_CAPABILITY_FIELDS)[number]
  | (typeof FAULT_CAPABILITY_FIELDS)[number]
  | (typeof GROUP_CAPABILITY_FIELDS)[number];

export const CAPABILITY_FIELDS: readonly CapabilityField[] = [
  ...VEHICLE_CAPABILITY_FIELDS,
  ...TELEMETRY_CAPABILITY_FIELDS,
  ...DRIVER_CAPABILITY_FIELDS,
  ...TRIP_CAPABILITY_FIELDS,
  ...FAULT_CAPABILITY_FIELDS,
  ...GROUP_CAPABILITY_FIELDS,
];

/** VehicleMetadataCapability (spec 2.3). */
export interface VehicleMetadataCapability {
  readonly optInConfig: 'vehicleMetadata';
  readonly defaultEnabled: false;
  readonly fields: Readonly<Record<VehicleMetadataKey, 'conditional' | 'unsupported'>>;
}

/** GroupInventoryCapability (spec 2.2): the same constants for every provider. */
export interface GroupInventoryCapability {
  readonly optInConfig: 'groupInventory';
  readonly defaultEnabled: false;
  readonly selection: 'explicit_approved_ids';
  readonly maxGroupIds: typeof GROUP_INVENTORY_MAX_IDS;
  readonly parentResolution: 'approved_groups_only';
  readonly raw: 'unsupported';
  readonly sourceTimestamps: 'unsupported';
}

export const GROUP_INVENTORY_CAPABILITY: GroupInventoryCapability = Object.freeze({
  optInConfig: 'groupInventory',
  defaultEnabled: false,
  selection: 'explicit_approved_ids',
  maxGroupIds: GROUP_INVENTORY_MAX_IDS,
  parentResolution: 'approved_groups_only',
  raw: 'unsupported',
  sourceTimestamps: 'unsupported',
});

export type FaultModel = 'complete_snapshot' | 'explicit_records';
export type Collection = 'native_feed' | 'poll';
export type AuthenticationMethod = 'api_token' | 'api_key' | 'oauth' | 'service_account';

/** Capabilities of spec 2.8 without `id`. */
export interface ProviderCapabilities {
  readonly adapterVersion: string;
  readonly fields: Readonly<Record<CapabilityField, Support>>;
  readonly faultModel: FaultModel;
  readonly collection: Collection;
  readonly authentication: readonly AuthenticationMethod[];
  readonly limitations: readonly string[];
  readonly vehicleMetadata: VehicleMetadataCapability;
  readonly groupInventory: GroupInventoryCapability;
}
