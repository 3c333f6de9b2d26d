/**
 * The VIN projection and product SQL (EnrichmentRepository) on the real PostgreSQL: the highest
 * sequence wins, a changed VIN resets the products (an unchanged one does not), a produced value is
 * only stored for the VIN it was produced for, claims skip locked rows, and identities of another
 * adapter version are re-queued. Mutations tried: `vin_sequence <` guard removed → the older event
 * overwrites the VIN; `vin is not distinct from` dropped from saveValue → the old VIN's value lands
 * on the new VIN.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { vehicleId } from '@switchyard/domain';
import { inTransaction } from '@switchyard/persistence';
import { useMigratedSchema } from '@switchyard/testing/jest';
import { enrichmentMigrations } from '../src/db/migrations/index.js';
import { EnrichmentRepository, type ProductReset } from '../src/db/repositories/enrichment.repository.js';

const db = useMigratedSchema('enrichment', enrichmentMigrations);
const repository = new EnrichmentRepository();
const connectionId = randomUUID();
const id = vehicleId({ connectionId, provider: 'samsara', sourceId: 'r1' });
const event = (vin: string | null, sequence: string) => ({ connectionId, vehicleId: id, vin, sequence, changedAt: new Date().toISOString() });
const resets = (vin: string | null): ProductReset[] =>
  (['identity', 'images'] as const).map((product) => ({ product, status: 'pending', data: null, source: 's', adapterVersion: 'a1', fetchedAt: null, errorCode: vin ? null : 'x', dueAt: new Date(Date.now() - 1_000) }));
const apply = (vin: string | null, sequence: string) => inTransaction(db.orm, (em) => repository.applyVin(em, event(vin, sequence), vin, resets(vin)));
const value = (status: 'available' | 'failed', data: unknown) => ({ status, data, source: 's', adapterVersion: 'a1', fetchedAt: new Date().toISOString(), errorCode: null });

describe('EnrichmentRepository', () => {
  it('keeps the highest sequence and resets the products only for a new or changed VIN', async () => {
    expect(await apply('1HGCM82633A004352', '2')).toBe('changed');
    expect(await apply('WBA3A5C53CF256551', '1')).toBe('ignored');
    expect((await repository.vehicle(db.em(), connectionId, id))?.vin).toBe('1HGCM82633A004352');
    expect(await apply('1HGCM82633A004352', '3')).toBe('same_vin');
    expect((await repository.products(db.em(), id)).map((p) => [p.product, p.status]).sort()).toEqual([
      ['identity', 'pending'],
      ['images', 'pending'],
    ]);
  });

  it('stores a produced value only for the VIN it was produced for', async () => {
    const [claimed] = await inTransaction(db.orm, (em) => repository.claimDue(em, ['identity'], 10, 60_000));
    expect(claimed).toMatchObject({ vehicle_id: id, product: 'identity', vin: '1HGCM82633A004352' });
    // Another worker sees nothing due while the lease holds.
    expect(await inTransaction(db.orm, (em) => repository.claimDue(em, ['identity'], 10, 60_000))).toEqual([]);
    expect(await apply('WBA3A5C53CF256551', '4')).toBe('changed');
    const stale = await inTransaction(db.orm, (em) => repository.saveValue(em, id, 'identity', '1HGCM82633A004352', value('available', { old: true }), null));
    expect(stale).toBe(false);
    const fresh = await inTransaction(db.orm, (em) => repository.saveValue(em, id, 'identity', 'WBA3A5C53CF256551', value('available', { make: 'BMW' }), null));
    expect(fresh).toBe(true);
    expect((await repository.products(db.em(), id)).find((p) => p.product === 'identity')).toMatchObject({ vin: 'WBA3A5C53CF256551', status: 'available', data: { make: 'BMW' } });
  });

  it('re-queues identities another adapter version produced', async () => {
    expect(await inTransaction(db.orm, (em) => repository.requeueOtherVersions(em, 'identity', 'a1'))).toBe(0);
    expect(await inTransaction(db.orm, (em) => repository.requeueOtherVersions(em, 'identity', 'a2'))).toBe(1);
    const [again] = await inTransaction(db.orm, (em) => repository.claimDue(em, ['identity'], 10, 60_000));
    expect(again).toMatchObject({ vehicle_id: id, product: 'identity', vin: 'WBA3A5C53CF256551' });
  });
});
