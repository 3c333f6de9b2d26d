/**
 * The directory's vehicle visibility SQL (VehicleVisibilityRepository) directly on the real
 * PostgreSQL: the stored vehicles judged by the one visibility rule (vehicle-sql.ts `visibilitySql`,
 * its cases: include list first, exclude list, a status filter hiding unknown statuses), the
 * stored set whose sequence moves only when the
 * set changes, and the relay's outbox — unpublished rows claimed `for update skip locked` (a second
 * relay skips them), published marks that never move back.
 * Retention (issue 14, item 4): the outbox is state, not a log — n changes of a connection's hidden
 * set leave its one row (bounded by the connections; nothing is pruned: a deleted row would restart
 * its sequence at 1, below what consumers hold).
 * Mutation tried: the outbox as a log (migration 0005 without the primary key on connection_id,
 * `save` inserting a row per change with the next sequence) — "one row" fails (23 rows for the connection).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { VisibilityRules } from '@switchyard/domain';
import { inTransaction, query, tableNamer } from '@switchyard/persistence';
import { useMigratedSchema } from '@switchyard/testing/jest';
import { directoryMigrations } from '../src/db/migrations/index.js';
import { entityStatusSql, rulesParam, visibilitySql } from '../src/db/repositories/vehicle-sql.js';
import { VehicleVisibilityRepository, type HiddenVehicle } from '../src/db/repositories/vehicle-visibility.repository.js';
import { insertVehicle } from './directory-rows.js';

const repository = new VehicleVisibilityRepository();
const db = useMigratedSchema('directory', directoryMigrations);
const connectionId = randomUUID();
const NONE: VisibilityRules = { includeVehicleIds: [], excludeVehicleIds: [], includeStatuses: [] };

const unpublished = () => inTransaction(db.orm, (em) => repository.unpublished(em, 100));
const mark = (sequence: string) => inTransaction(db.orm, (em) => repository.markPublished(em, [{ connection_id: connectionId, sequence }]));

describe('VehicleVisibilityRepository', () => {
  it('reads the connection’s stored vehicles in id order with their visibility', async () => {
    const a = await insertVehicle(db, connectionId, 'v1', { status: { status: 'available', value: 'active', source: 'test' } });
    const b = await insertVehicle(db, connectionId, 'v2');
    await insertVehicle(db, randomUUID(), 'v1');
    expect(await repository.vehicles(db.em(), connectionId, NONE)).toEqual(
      [
        { id: a, source_id: 'v1', visibility: 'visible' },
        { id: b, source_id: 'v2', visibility: 'visible' },
      ].sort((x, y) => x.id.localeCompare(y.id)),
    );
  });

  // The one rule's cases (libs/domain vehicle-visibility.spec.ts held them on the JavaScript rule it replaces).
  const judge = async (rules: VisibilityRules, sourceId: string, status: string | null) => {
    const [row] = await query<{ visibility: string }>(
      db.em(),
      `select ${visibilitySql('x.source_id', entityStatusSql('x.status'), 'x.rules')} as visibility from (select ?::text as source_id, ?::text as status, ?::jsonb as rules) x`,
      [sourceId, status, rulesParam(rules)],
    );
    return row?.visibility;
  };

  it('shows everything when no rule is set', async () => {
    expect(await judge(NONE, 'a', null)).toBe('visible');
  });

  it('hides vehicles outside a non-empty include list, before any other rule', async () => {
    const rules = { ...NONE, includeVehicleIds: ['a'], includeStatuses: ['active' as const] };
    expect(await judge(rules, 'b', 'inactive')).toBe('hidden_by_include_list');
    expect(await judge(rules, 'a', 'active')).toBe('visible');
  });

  it('hides excluded vehicles', async () => {
    expect(await judge({ ...NONE, excludeVehicleIds: ['x'] }, 'x', 'active')).toBe('hidden_by_exclude_list');
    expect(await judge({ ...NONE, excludeVehicleIds: ['x'] }, 'y', 'active')).toBe('visible');
  });

  it('hides other and unknown statuses when a status filter is set', async () => {
    const rules = { ...NONE, includeStatuses: ['active' as const] };
    expect(await judge(rules, 'a', 'inactive')).toBe('hidden_by_status');
    expect(await judge(rules, 'a', null)).toBe('hidden_by_status');
    // A status column outside the entity statuses is unknown too.
    expect(await judge(rules, 'a', 'retired')).toBe('hidden_by_status');
    expect(await judge(rules, 'a', 'active')).toBe('visible');
  });

  it('bumps the sequence only when the hidden set is stored', async () => {
    expect(await repository.state(db.em(), connectionId)).toBeUndefined();
    const [vehicle] = await repository.vehicles(db.em(), connectionId, NONE);
    const hidden: HiddenVehicle[] = [{ vehicleId: vehicle!.id, sourceId: vehicle!.source_id, visibility: 'hidden_by_status' }];
    await repository.save(db.em(), connectionId, 1, { rule: 1 }, { hidden: [], shown: null });
    await repository.save(db.em(), connectionId, 2, { rule: 2 }, { hidden, shown: null });
    expect(await repository.state(db.em(), connectionId)).toEqual({ config_revision: 2, rules: { rule: 2 }, hidden, shown: null, sequence: '2' });
    await repository.save(db.em(), connectionId, 3, { rule: 3 }, undefined);
    expect(await repository.state(db.em(), connectionId)).toEqual({ config_revision: 3, rules: { rule: 3 }, hidden, shown: null, sequence: '2' });
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
    await repository.save(db.em(), connectionId, 4, { rule: 4 }, { hidden: [], shown: null });
    expect((await unpublished()).map((r) => r.sequence)).toEqual(['3']);
  });

  it('keeps one row per connection however often its hidden set changes (bounded state, nothing to prune)', async () => {
    const t = tableNamer(db.em());
    const rows = async () => (await query<{ n: number }>(db.em(), `select count(*)::int as n from ${t('vehicle_visibility')} where connection_id = ?::uuid`, [connectionId]))[0]?.n;
    const [vehicle] = await repository.vehicles(db.em(), connectionId, NONE);
    const hidden: HiddenVehicle[] = [{ vehicleId: vehicle!.id, sourceId: vehicle!.source_id, visibility: 'hidden_by_status' }];
    const changes = 20;
    for (let i = 0; i < changes; i++) {
      await repository.save(db.em(), connectionId, 5 + i, { rule: 5 + i }, { hidden: i % 2 === 0 ? hidden : [], shown: null });
      await inTransaction(db.orm, async (em) => repository.markPublished(em, await repository.unpublished(em, 100)));
    }
    const state = await repository.state(db.em(), connectionId);
    console.log(`[retention] visibility outbox: ${changes} published changes of one connection leave ${await rows()} row (sequence ${state?.sequence})`);
    expect(await rows()).toBe(1);
    expect(state).toEqual({ config_revision: 4 + changes, rules: { rule: 4 + changes }, hidden: [], shown: null, sequence: String(3 + changes) });
    expect(await unpublished()).toEqual([]);
  });
});
