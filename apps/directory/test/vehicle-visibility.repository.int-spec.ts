/**
 * The directory's vehicle visibility SQL (VehicleVisibilityRepository) directly on the real
 * PostgreSQL: the stored vehicles the rule reads, the stored set whose sequence moves only when the
 * set changes, and the relay's outbox — unpublished rows claimed `for update skip locked` (a second
 * relay skips them), published marks that never move back.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { inTransaction } from '@switchyard/persistence';
import { useMigratedSchema } from '@switchyard/testing/jest';
import { directoryMigrations } from '../src/db/migrations/index.js';
import { VehicleVisibilityRepository, type HiddenVehicle } from '../src/db/repositories/vehicle-visibility.repository.js';
import { insertVehicle } from './directory-rows.js';

const repository = new VehicleVisibilityRepository();
const db = useMigratedSchema('directory', directoryMigrations);
const connectionId = randomUUID();

const unpublished = () => inTransaction(db.orm, (em) => repository.unpublished(em, 100));
const mark = (sequence: string) => inTransaction(db.orm, (em) => repository.markPublished(em, [{ connection_id: connectionId, sequence }]));

describe('VehicleVisibilityRepository', () => {
  it('reads the connection’s stored vehicles in id order with their status cell', async () => {
    const a = await insertVehicle(db, connectionId, 'v1', { status: { status: 'available', value: 'active', source: 'test' } });
    const b = await insertVehicle(db, connectionId, 'v2');
    await insertVehicle(db, randomUUID(), 'v1');
    expect(await repository.vehicles(db.em(), connectionId)).toEqual(
      [
        { id: a, source_id: 'v1', status: 'active' },
        { id: b, source_id: 'v2', status: 'active' },
      ].sort((x, y) => x.id.localeCompare(y.id)),
    );
  });

  it('bumps the sequence only when the hidden set is stored', async () => {
    expect(await repository.state(db.em(), connectionId)).toBeUndefined();
    const [vehicle] = await repository.vehicles(db.em(), connectionId);
    const hidden: HiddenVehicle[] = [{ vehicleId: vehicle!.id, sourceId: vehicle!.source_id, visibility: 'hidden_by_status' }];
    await repository.save(db.em(), connectionId, 1, { rule: 1 }, []);
    await repository.save(db.em(), connectionId, 2, { rule: 2 }, hidden);
    expect(await repository.state(db.em(), connectionId)).toEqual({ config_revision: 2, rules: { rule: 2 }, hidden, sequence: '2' });
    await repository.save(db.em(), connectionId, 3, { rule: 3 }, undefined);
    expect(await repository.state(db.em(), connectionId)).toEqual({ config_revision: 3, rules: { rule: 3 }, hidden, sequence: '2' });
  });

  it('hands an unpublished row to one relay at a time', async () => {
    const seen = await inTransaction(db.orm, async (em) => ({ first: await repository.unpublished(em, 100), second: await unpublished() }));
    expect(seen.first).toEqual([expect.objectContaining({ connection_id: connectionId, config_revision: 3, sequence: '2', computed_at: expect.any(String) })]);
    expect(seen.second).toEqual([]);
  });

  it('marks published up to the sequence sent, never back', async () => {
    await mark('1');
    expect((await unpublished()).map((r) => r.sequence)).toEqual(['2']);
    await mark('2');
    expect(await unpublished()).toEqual([]);
    await mark('1');
    expect(await unpublished()).toEqual([]);
    await repository.save(db.em(), connectionId, 4, { rule: 4 }, []);
    expect((await unpublished()).map((r) => r.sequence)).toEqual(['3']);
  });
});
