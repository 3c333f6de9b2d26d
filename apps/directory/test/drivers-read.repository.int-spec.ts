/**
 * The directory's driver SQL (DriversReadRepository) directly on the real PostgreSQL: a page holds
 * exactly the drivers the walk's roster pass listed, in id order, even after a later pass changed
 * the roster; a roster row written after the walk's horizon (a late page of its pass) does not join
 * the walk; the rendered Driver carries its Field statuses and group ids; lookups by id stay in the
 * connection.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { DRIVER_AVAILABILITY_KEYS } from '@switchyard/contracts';
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

const T = '2026-11-22T12:00:00.000Z';
const rendering = { expandGroups: false, membership: { own: 'available', degradedCode: null, fetchedAt: T, inventoryStatus: 'disabled' } };
const listed = async (seq: number, horizon?: string, limit = 100, after?: string) => {
  const page = await repository.page(db.em(), { connectionId, horizon: horizon ?? (await currentHorizon(db.em())), seq, ...(after ? { after } : {}) }, rendering, { limit, maxBytes: 4_000_000 });
  return (JSON.parse(page.items) as { id: string }[]).map((r) => r.id);
};

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

  it('renders the stored envelopes and group ids as the Driver', async () => {
    expect(JSON.parse((await repository.byId(db.em(), connectionId, d['d1']!, rendering))!)).toEqual({
      id: d['d1'],
      sourceId: 'd1',
      provider: 'samsara',
      status: 'active',
      groups: [groupId(ref(connectionId, 'g1'))],
      groupMembership: { status: 'available', scope: 'credential_visible_directory', sourceScope: 'credential_visible', fetchedAt: T, membershipCapturedAt: SEEN, sourceAvailability: 'available', inventoryStatus: 'disabled' },
      metadata: { addedAt: SEEN, modifiedAt: SEEN, visibility: 'visible' },
      availability: Object.fromEntries(DRIVER_AVAILABILITY_KEYS.map((k) => [k, 'missing'])),
    });
    expect(await repository.stored(db.em(), connectionId, d['d1']!)).toEqual({ fetched_at: SEEN });
    expect(await repository.byId(db.em(), randomUUID(), d['d1']!, rendering)).toBeUndefined();
    expect(await repository.stored(db.em(), randomUUID(), d['d1']!)).toBeUndefined();
  });
});
