/**
 * The directory's VIN outbox SQL (VehicleVinRepository) on the real PostgreSQL: the VIN recorded is
 * the committed one of `vehicle` (normalized), a vehicle first recorded and a changed VIN are to be
 * published, an unchanged VIN is not (mutation tried: the `is distinct from` guard removed → the
 * unchanged batch republishes), and the relay's claim and marks.
 * Retention (issue 14, item 4): the outbox is state, not a log — n changes of one vehicle leave its
 * one row (the newest VIN, sequence moved n times), so the table is bounded by the stored vehicles
 * and nothing is pruned (a deleted row would restart its sequence at 1, below what consumers hold).
 * Mutation tried: the outbox as a log (migration 0017 without the primary key on vehicle_id, `record`
 * inserting a row per change with the next sequence) — "one row" fails (22 rows for the vehicle).
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

  it('keeps one row per vehicle however often its VIN changes (bounded state, nothing to prune)', async () => {
    const t = tableNamer(db.em());
    const count = async () => (await query<{ n: number }>(db.em(), `select count(*)::int as n from ${t('vehicle_vin')} where vehicle_id = ?`, [a]))[0]?.n;
    const before = await count();
    const changes = 20;
    for (let i = 0; i < changes; i++) {
      await setVin(a, `1HGCM82633A00${String(4400 + i)}`);
      expect(await repository.record(db.em(), [a])).toBe(1);
      await inTransaction(db.orm, async (em) => repository.markPublished(em, await repository.unpublished(em, 100)));
    }
    const [row] = await query<{ vin: string; sequence: string; published_sequence: string }>(db.em(), `select vin, sequence::text as sequence, published_sequence::text as published_sequence from ${t('vehicle_vin')} where vehicle_id = ?`, [a]);
    const [all] = await query<{ rows: number; vehicles: number }>(db.em(), `select (select count(*)::int from ${t('vehicle_vin')}) as rows, (select count(*)::int from ${t('vehicle')}) as vehicles`);
    console.log(`[retention] vin outbox: ${changes} published changes of one vehicle leave ${await count()} row (sequence ${row?.sequence}); ${all?.rows} rows for ${all?.vehicles} stored vehicles`);
    expect(before).toBe(1);
    expect(await count()).toBe(1);
    expect(row).toEqual({ vin: `1HGCM82633A00${4400 + changes - 1}`, sequence: String(2 + changes), published_sequence: String(2 + changes) });
    expect(all?.rows).toBe(all?.vehicles);
  });
});
