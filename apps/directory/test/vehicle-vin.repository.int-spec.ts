/**
 * The directory's VIN outbox SQL (VehicleVinRepository) on the real PostgreSQL: the VIN recorded is
 * the committed one of `vehicle` (normalized), a vehicle first recorded and a changed VIN are to be
 * published, an unchanged VIN is not (mutation tried: the `is distinct from` guard removed → the
 * unchanged batch republishes), and the relay's claim and marks.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { inTransaction, query, tableNamer } from '@switchyard/persistence';
import { useMigratedSchema } from '@switchyard/testing/jest';
import { directoryMigrations } from '../src/db/migrations/index.js';
import { VehicleVinRepository } from '../src/db/repositories/vehicle-vin.repository.js';
import { insertVehicle } from './directory-rows.js';

const repository = new VehicleVinRepository();
const db = useMigratedSchema('directory', directoryMigrations);
const connectionId = randomUUID();

const unpublished = () => inTransaction(db.orm, (em) => repository.unpublished(em, 100));
const setVin = (id: string, vin: string | null) => query(db.em(), `update ${tableNamer(db.em())('vehicle')} set vin = ? where id = ?`, [vin, id]);

let a = '';

describe('VehicleVinRepository', () => {
  it('records a new vehicle, with or without a VIN, once', async () => {
    a = await insertVehicle(db, connectionId, 'vin-a');
    const b = await insertVehicle(db, connectionId, 'vin-b');
    await setVin(a, ' 1hgcm82633a004352 ');
    expect(await repository.record(db.em(), [a, b])).toBe(2);
    expect(await repository.record(db.em(), [a, b])).toBe(0);
    const rows = await unpublished();
    expect(rows.map(({ vehicle_id, vin, sequence }) => ({ vehicle_id, vin, sequence })).sort((x, y) => x.vehicle_id.localeCompare(y.vehicle_id))).toEqual(
      [
        { vehicle_id: a, vin: '1HGCM82633A004352', sequence: '1' },
        { vehicle_id: b, vin: null, sequence: '1' },
      ].sort((x, y) => x.vehicle_id.localeCompare(y.vehicle_id)),
    );
    await inTransaction(db.orm, (em) => repository.markPublished(em, rows));
    expect(await unpublished()).toEqual([]);
  });

  it('publishes a changed VIN with the next sequence, and a claimed row to one relay at a time', async () => {
    await setVin(a, 'WBA3A5C53CF256551');
    expect(await repository.record(db.em(), [a])).toBe(1);
    const seen = await inTransaction(db.orm, async (em) => ({ first: await repository.unpublished(em, 100), second: await unpublished() }));
    expect(seen.first).toEqual([expect.objectContaining({ vehicle_id: a, connection_id: connectionId, vin: 'WBA3A5C53CF256551', sequence: '2', changed_at: expect.any(String) })]);
    expect(seen.second).toEqual([]);
    await inTransaction(db.orm, (em) => repository.markPublished(em, [{ vehicle_id: a, sequence: '2' }]));
    await inTransaction(db.orm, (em) => repository.markPublished(em, [{ vehicle_id: a, sequence: '1' }]));
    expect(await unpublished()).toEqual([]);
  });
});
