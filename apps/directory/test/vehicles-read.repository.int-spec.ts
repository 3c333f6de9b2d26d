/**
 * The directory's vehicle SQL (VehiclesReadRepository) directly on the real PostgreSQL: keyset pages
 * by ascending id within one connection and inside the walk's horizon, the row rendered as the
 * VehicleEntity (timestamps as RFC 3339 text, metadata values within the contract), and a lookup by
 * id that never crosses connections.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { VehicleId } from '@switchyard/domain';
import { useMigratedSchema } from '@switchyard/testing/jest';
import { directoryMigrations } from '../src/db/migrations/index.js';
import { currentHorizon } from '../src/db/repositories/read-horizon.js';
import { VehiclesReadRepository } from '../src/db/repositories/vehicles-read.repository.js';
import { insertVehicle, SEEN } from './directory-rows.js';

const repository = new VehiclesReadRepository();
const METADATA = { year: { status: 'available', value: 2021, source: 'test' } };
const db = useMigratedSchema('directory', directoryMigrations);
let connectionId: string;
let ids: VehicleId[];

beforeAll(async () => {
  connectionId = randomUUID();
  ids = [];
  for (const sourceId of ['v1', 'v2', 'v3', 'v4', 'v5']) ids.push(await insertVehicle(db, connectionId, sourceId, METADATA));
  ids.sort();
  await insertVehicle(db, randomUUID(), 'v1');
});

const NONE = { includeVehicleIds: [], excludeVehicleIds: [], includeStatuses: [] };
const rendering = { rules: NONE, expandGroups: false, directoryFetchedAt: null };
const page = async (q: { horizon: string; limit: number; after?: string }) => {
  const framed = await repository.page(db.em(), { connectionId, horizon: q.horizon, view: 'profiles', ...(q.after ? { after: q.after } : {}) }, rendering, { limit: q.limit, maxBytes: 4_000_000 });
  return JSON.parse(framed.items) as Record<string, unknown>[];
};

describe('VehiclesReadRepository', () => {
  it('walks the connection in id order, two at a time, without gaps or repeats', async () => {
    const horizon = await currentHorizon(db.em());
    const walked: string[] = [];
    let after: string | undefined;
    for (;;) {
      const rows = await page({ horizon, limit: 2, ...(after ? { after } : {}) });
      walked.push(...rows.map((r) => String(r['id'])));
      after = rows.at(-1)?.['id'] as string | undefined;
      if (rows.length < 2) break;
    }
    expect(walked).toEqual(ids);
  });

  it('renders the row as the VehicleEntity', async () => {
    const [row] = await page({ horizon: await currentHorizon(db.em()), limit: 1 });
    expect(row).toEqual({
      id: ids[0],
      sourceId: expect.stringMatching(/^v\d$/),
      provider: 'samsara',
      status: 'active',
      name: expect.stringMatching(/^Truck v\d$/),
      year: 2021,
      groupMembership: { status: 'missing', scope: 'credential_visible_directory', sourceScope: 'credential_visible_reported_memberships', capturedAt: null, directoryFetchedAt: null },
      metadata: { addedAt: SEEN, modifiedAt: SEEN, visibility: 'visible' },
    });
  });

  it('leaves out vehicles committed after the horizon', async () => {
    const horizon = await currentHorizon(db.em());
    const late = await insertVehicle(db, connectionId, 'late');
    const rows = await page({ horizon, limit: 100 });
    expect(rows.map((r) => r['id'])).toEqual(ids);
    await db.sql(`delete from ${db.t('vehicle')} where id = ?`, [late]);
  });

  it('finds a vehicle by id only within its connection', async () => {
    expect(JSON.parse((await repository.entity(db.em(), connectionId, ids[2]!, rendering))!)).toMatchObject({ id: ids[2] });
    expect(await repository.entity(db.em(), randomUUID(), ids[2]!, rendering)).toBeUndefined();
  });
});
