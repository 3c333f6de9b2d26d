/**
 * The tables of migration 0002 as the ORM sees them. DirectoryUpsertRepository writes them with
 * set-based SQL; these definitions exist so the schema-drift check compares the migration with a
 * declaration, column for column and index for index, and must change with the next migration
 * (0003 adds `created_xid` and the health projection, per dataset since 0011).
 */
import { defineEntity, p } from '@mikro-orm/postgresql';

/** The inserting transaction (migrations 0003, 0014), for snapshot-bounded reads. */
const createdXid = () => p.bigint().defaultRaw('((pg_current_xact_id())::text)::bigint');

const seen = () => ({
  firstSeenAt: p.datetime(),
  lastSeenAt: p.datetime(),
  fetchedAt: p.datetime(),
  modifiedAt: p.datetime(),
  publication: p.bigint(),
  batchId: p.text(),
  // Migration 0003: the inserting transaction, for snapshot-bounded page walks.
  createdXid: createdXid(),
});

export const VehicleEntity = defineEntity({
  name: 'Vehicle',
  tableName: 'vehicle',
  properties: {
    id: p.text().primary(),
    connectionId: p.uuid(),
    provider: p.text(),
    sourceId: p.text(),
    name: p.text().nullable(),
    vin: p.text().nullable(),
    status: p.text().nullable(),
    nameField: p.json(),
    vinField: p.json(),
    metadata: p.json(),
    ...seen(),
  },
  indexes: [
    { name: 'vehicle_connection_idx', properties: ['connectionId', 'id'] },
    { name: 'vehicle_publication_idx', properties: ['connectionId', 'publication'] },
  ],
});

export const DriverEntity = defineEntity({
  name: 'Driver',
  tableName: 'driver',
  properties: {
    id: p.text().primary(),
    connectionId: p.uuid(),
    provider: p.text(),
    sourceId: p.text(),
    status: p.text().nullable(),
    displayName: p.text().nullable(),
    statusField: p.json(),
    fields: p.json(),
    groupMembership: p.json(),
    groupIds: p.array().nullable(),
    ...seen(),
  },
  indexes: [
    { name: 'driver_connection_idx', properties: ['connectionId', 'id'] },
    { name: 'driver_publication_idx', properties: ['connectionId', 'publication'] },
  ],
});

export const GroupEntity = defineEntity({
  name: 'Group',
  tableName: 'group',
  properties: {
    id: p.text().primary(),
    connectionId: p.uuid(),
    provider: p.text(),
    sourceId: p.text(),
    name: p.text().nullable(),
    nameField: p.json(),
    descriptionField: p.json(),
    parentSourceId: p.text().nullable(),
    parentId: p.text().nullable(),
    ...seen(),
  },
  indexes: [
    { name: 'group_connection_idx', properties: ['connectionId', 'id'] },
    { name: 'group_publication_idx', properties: ['connectionId', 'publication'] },
  ],
});

export const TripEntity = defineEntity({
  name: 'Trip',
  tableName: 'trip',
  properties: {
    id: p.text().primary(),
    connectionId: p.uuid(),
    provider: p.text(),
    sourceId: p.text(),
    vehicleId: p.text(),
    vehicleSourceId: p.text(),
    driverId: p.text().nullable(),
    driverSourceId: p.text().nullable(),
    startedAt: p.datetime(),
    endedAt: p.datetime(),
    durationMs: p.bigint(),
    distanceKm: p.double().nullable(),
    distanceBasis: p.text().nullable(),
    distanceField: p.json(),
    startLocation: p.json(),
    endLocation: p.json(),
    ...seen(),
  },
  indexes: [
    { name: 'trip_window_idx', properties: ['connectionId', 'startedAt', 'id'] },
    { name: 'trip_vehicle_idx', properties: ['connectionId', 'vehicleId', 'startedAt'] },
    { name: 'trip_driver_idx', properties: ['connectionId', 'driverId', 'startedAt'] },
    { name: 'trip_publication_idx', properties: ['connectionId', 'publication'] },
  ],
});

/** Migration 0011 (was 0003's `connection_health`): the directory's projection of connection-health events, per dataset. */
export const DatasetHealthEntity = defineEntity({
  name: 'DatasetHealth',
  tableName: 'dataset_health',
  properties: {
    connectionId: p.uuid().primary(),
    dataset: p.text().primary(),
    scope: p.text().primary(),
    lastSuccessAt: p.datetime().nullable(),
    lastFailureAt: p.datetime().nullable(),
    lastErrorCode: p.text().nullable(),
    updatedAt: p.datetime().defaultRaw('now()'),
  },
});

/** Migration 0005: the published vehicle visibility set per connection (and its outbox mark); `shown` migration 0018. */
export const VehicleVisibilityEntity = defineEntity({
  name: 'VehicleVisibility',
  tableName: 'vehicle_visibility',
  properties: {
    connectionId: p.uuid().primary(),
    configRevision: p.integer(),
    rules: p.json(),
    hidden: p.json(),
    shown: p.json().nullable(),
    sequence: p.bigint(),
    publishedSequence: p.bigint().defaultRaw('0'),
    computedAt: p.datetime(),
  },
});

/** Migration 0017: the VIN of each stored vehicle as published to enrichment (and its outbox mark). */
export const VehicleVinEntity = defineEntity({
  name: 'VehicleVin',
  tableName: 'vehicle_vin',
  properties: {
    vehicleId: p.text().primary(),
    connectionId: p.uuid(),
    vin: p.text().nullable(),
    sequence: p.bigint(),
    publishedSequence: p.bigint().defaultRaw('0'),
    changedAt: p.datetime(),
  },
  indexes: [{ name: 'vehicle_vin_unpublished_idx', properties: ['vehicleId'], where: 'published_sequence < sequence' }],
});

/**
 * Migrations 0014 (drivers) and 0015 (vehicles): the roster pass tables of one dataset (decision
 * 0014) — the members an unfinished pass carried so far, the completed passes (`seq` in completion
 * order) and the completed-pass intervals [fromSeq, toSeq) that listed a member; migration 0016:
 * the units of an unfinished pass whose final page committed (decision 0011).
 */
function rosterPassEntities<const Name extends 'Driver' | 'Vehicle'>(name: Name, prefix: string, member: 'driverId' | 'vehicleId') {
  return [
    defineEntity({
      name: `${name}Sighting`,
      tableName: `${prefix}_sighting`,
      properties: { connectionId: p.uuid().primary(), passKey: p.text().primary(), [member]: p.text().primary(), seenAt: p.datetime() },
    }),
    defineEntity({
      name: `${name}Pass`,
      tableName: `${prefix}_pass`,
      properties: {
        connectionId: p.uuid().primary(),
        seq: p.bigint().primary(),
        passKey: p.text(),
        startedAt: p.datetime(),
        fetchedAt: p.datetime(),
        capturedAt: p.datetime(),
        publishedAt: p.datetime(),
        createdXid: createdXid(),
      },
    }),
    defineEntity({
      name: `${name}Roster`,
      tableName: `${prefix}_roster`,
      properties: { connectionId: p.uuid().primary(), [member]: p.text().primary(), fromSeq: p.bigint().primary(), toSeq: p.bigint().nullable(), createdXid: createdXid() },
    }),
    defineEntity({
      name: `${name}PassUnit`,
      tableName: `${prefix}_pass_unit`,
      properties: { connectionId: p.uuid().primary(), passKey: p.text().primary(), unitId: p.text().primary(), finalFetchedAt: p.datetime() },
    }),
  ] as const;
}

export const DRIVER_PASS_ENTITIES = rosterPassEntities('Driver', 'driver', 'driverId');
export const VEHICLE_PASS_ENTITIES = rosterPassEntities('Vehicle', 'vehicle', 'vehicleId');

export const DIRECTORY_INGEST_ENTITIES = [VehicleEntity, DriverEntity, GroupEntity, TripEntity, DatasetHealthEntity, VehicleVisibilityEntity, VehicleVinEntity, ...DRIVER_PASS_ENTITIES, ...VEHICLE_PASS_ENTITIES];
