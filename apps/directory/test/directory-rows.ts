/**
 * Rows of the directory store written with plain SQL, for the repository specs: a vehicle, driver,
 * group or trip of one connection with the columns the reads select and fixed timestamps
 * (`SEEN`), so a spec reads back exactly what it wrote without going through ingest, and a complete
 * roster pass through the roster repository. Ids are the minted domain ids of (connection, samsara,
 * source id), as ingest would store them.
 */
import { driverId, groupId, tripId, vehicleId, type DriverId, type GroupId, type VehicleId } from '@switchyard/domain';
import { inTransaction } from '@switchyard/persistence';
import type { MigratedSchema } from '@switchyard/testing';
import { RosterPassRepository, type RosterDataset } from '../src/db/repositories/roster-pass.repository.js';

export const SEEN = '2026-11-20T00:00:00.000Z';
const MISSING = JSON.stringify({ status: 'missing', value: null, source: 'test' });
const available = (value: unknown) => JSON.stringify({ status: 'available', value, source: 'test' });
let publication = 0;

export const ref = (connectionId: string, sourceId: string) => ({ connectionId, provider: 'samsara' as const, sourceId });

/** Inserts the row `id` of (connection, samsara, source id) with `columns` and the bookkeeping columns every directory table has. */
async function insert(db: MigratedSchema, table: string, id: string, { connectionId, sourceId }: { connectionId: string; sourceId: string }, columns: Record<string, unknown>): Promise<void> {
  const row: Record<string, unknown> = { id, connection_id: connectionId, provider: 'samsara', source_id: sourceId, ...columns, first_seen_at: SEEN, last_seen_at: SEEN, fetched_at: SEEN, modified_at: SEEN, publication: ++publication, batch_id: 'b' };
  const names = Object.keys(row);
  await db.sql(`insert into ${db.t(table)} (${names.join(', ')}) values (${names.map(() => '?').join(', ')})`, Object.values(row));
}

export async function insertVehicle(db: MigratedSchema, connectionId: string, sourceId: string, metadata: Record<string, unknown> = {}): Promise<VehicleId> {
  const id = vehicleId(ref(connectionId, sourceId));
  await insert(db, 'vehicle', id, ref(connectionId, sourceId), { name: `Truck ${sourceId}`, vin: null, status: 'active', name_field: MISSING, vin_field: MISSING, metadata: JSON.stringify(metadata) });
  return id;
}

/** `groups`: source ids of the driver's groups (membership available), or undefined (missing). */
export async function insertDriver(db: MigratedSchema, connectionId: string, sourceId: string, groups?: string[]): Promise<DriverId> {
  const id = driverId(ref(connectionId, sourceId));
  await insert(db, 'driver', id, ref(connectionId, sourceId), {
    status: 'active',
    display_name: `Driver ${sourceId}`,
    status_field: MISSING,
    fields: '{}',
    group_membership: groups ? available(groups) : MISSING,
    group_ids: groups ? `{${groups.map((g) => groupId(ref(connectionId, g))).join(',')}}` : null,
  });
  return id;
}

export async function insertGroup(db: MigratedSchema, connectionId: string, sourceId: string, parentSourceId: string | null = null): Promise<GroupId> {
  const id = groupId(ref(connectionId, sourceId));
  await insert(db, 'group', id, ref(connectionId, sourceId), {
    name: `Group ${sourceId}`,
    name_field: available(`Group ${sourceId}`),
    description_field: MISSING,
    parent_source_id: parentSourceId,
    parent_id: parentSourceId === null ? null : groupId(ref(connectionId, parentSourceId)),
  });
  return id;
}

/** One trip of ten minutes and 3.5 km; `startedAt` may carry microseconds. */
export async function insertTrip(db: MigratedSchema, connectionId: string, sourceId: string, vehicleSourceId: string, startedAt: string, driver: DriverId | null = null): Promise<string> {
  const id = tripId(ref(connectionId, sourceId));
  const ended = new Date(Date.parse(startedAt) + 600_000).toISOString();
  await insert(db, 'trip', id, ref(connectionId, sourceId), {
    vehicle_id: vehicleId(ref(connectionId, vehicleSourceId)),
    vehicle_source_id: vehicleSourceId,
    driver_id: driver,
    driver_source_id: null,
    started_at: startedAt,
    ended_at: ended,
    duration_ms: 600_000,
    distance_km: 3.5,
    distance_basis: 'gps',
    distance_field: MISSING,
    start_location: MISSING,
    end_location: MISSING,
  });
  return id;
}

/** One complete roster pass of `dataset` that carried `memberIds` (sightings, then completion, in one transaction); returns its seq. */
export function completePass(db: MigratedSchema, dataset: RosterDataset, connectionId: string, passKey: string, memberIds: readonly string[], capturedAt = SEEN): Promise<number> {
  const passes = new RosterPassRepository(dataset);
  return inTransaction(db.orm, async (em) => {
    await passes.lock(em, connectionId);
    await passes.sight(em, connectionId, passKey, memberIds, capturedAt);
    return passes.complete(em, { connectionId, passKey, syncId: null, unitId: null, capturedAt });
  });
}
