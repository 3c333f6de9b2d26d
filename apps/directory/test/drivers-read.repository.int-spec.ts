/**
 * The directory's driver SQL (DriversReadRepository) directly on the real PostgreSQL: a page holds
 * exactly the drivers the walk's roster pass listed, in id order, even after a later pass changed
 * the roster; a roster row written after the walk's horizon (a late page of its pass) does not join
 * the walk; the row carries its Field envelopes and group ids verbatim; lookups by id stay in the
 * connection.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { groupId, type DriverId } from '@switchyard/domain';
import { useMigratedSchema } from '@switchyard/testing/jest';
import { directoryMigrations } from '../src/db/migrations/index.js';
import { DriversReadRepository } from '../src/db/repositories/drivers-read.repository.js';
import { currentHorizon } from '../src/db/repositories/read-horizon.js';
import { ROSTER_DATASETS, RosterPassRepository } from '../src/db/repositories/roster-pass.repository.js';
import { completePass, insertDriver, ref, SEEN } from './directory-rows.js';

const repository = new DriversReadRepository();
const db = useMigratedSchema('directory', directoryMigrations);
const connectionId = randomUUID();
const d: Record<string, DriverId> = {};

beforeAll(async () => {
  for (const sourceId of ['d1', 'd2', 'd3']) d[sourceId] = await insertDriver(db, connectionId, sourceId, sourceId === 'd1' ? ['g1'] : undefined);
  await completePass(db, ROSTER_DATASETS.drivers, connectionId, 'pass-1', [d['d1']!, d['d2']!]);
  await completePass(db, ROSTER_DATASETS.drivers, connectionId, 'pass-2', [d['d2']!, d['d3']!]);
});

const listed = async (seq: number, horizon?: string, limit = 100, after?: string) =>
  (await repository.page(db.em(), { connectionId, horizon: horizon ?? (await currentHorizon(db.em())), seq, limit, ...(after ? { after } : {}) })).map((r) => r.id);

describe('DriversReadRepository', () => {
  it('pages the drivers of the walk’s pass, in id order', async () => {
    expect(await listed(1)).toEqual([d['d1'], d['d2']].sort());
    expect(await listed(2)).toEqual([d['d2'], d['d3']].sort());
    const [first] = await listed(2, undefined, 1);
    expect(await listed(2, undefined, 100, first)).toEqual([d['d2'], d['d3']].sort().slice(1));
  });

  it('keeps a walk on the roster its horizon saw when a late page lists another driver', async () => {
    const horizon = await currentHorizon(db.em());
    await new RosterPassRepository(ROSTER_DATASETS.drivers).listLate(db.em(), connectionId, 2, [d['d1']!]);
    expect(await listed(2, horizon)).toEqual([d['d2'], d['d3']].sort());
    expect(await listed(2)).toEqual([d['d1'], d['d2'], d['d3']].sort());
  });

  it('returns the stored envelopes and group ids verbatim', async () => {
    expect(await repository.byId(db.em(), connectionId, d['d1']!)).toEqual({
      id: d['d1'],
      source_id: 'd1',
      provider: 'samsara',
      status: 'active',
      fields: {},
      group_membership: { status: 'available', value: ['g1'], source: 'test' },
      group_ids: [groupId(ref(connectionId, 'g1'))],
      fetched_at: SEEN,
      added_at: SEEN,
      modified_at: SEEN,
    });
    expect(await repository.byId(db.em(), randomUUID(), d['d1']!)).toBeUndefined();
  });
});
