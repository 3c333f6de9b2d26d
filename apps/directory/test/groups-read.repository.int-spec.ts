/**
 * The directory's group SQL (GroupsReadRepository) directly on the real PostgreSQL — the public
 * Groups it renders (decision 0028): keyset pages by id inside the horizon, parent resolution (stored, reported but not stored, expanded), the
 * approved-inventory scope that hides a parent outside it, lookups by id within the connection,
 * and the directory totals the group directory limits are measured on.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { groupId, type GroupId } from '@switchyard/domain';
import { useMigratedSchema } from '@switchyard/testing/jest';
import { directoryMigrations } from '../src/db/migrations/index.js';
import { currentHorizon } from '../src/db/repositories/read-horizon.js';
import { GroupsReadRepository } from '../src/db/repositories/groups-read.repository.js';
import { insertDriver, insertGroup, insertVehicle, ref, SEEN } from './directory-rows.js';

const repository = new GroupsReadRepository();
const db = useMigratedSchema('directory', directoryMigrations);
let connectionId: string;
/** Group ids by source id: root ← child ← grandchild, and orphan whose parent `gone` is not stored. */
const g: Record<string, GroupId> = {};

beforeAll(async () => {
  connectionId = randomUUID();
  for (const [sourceId, parent] of [
    ['root', null],
    ['child', 'root'],
    ['grandchild', 'child'],
    ['orphan', 'gone'],
  ] as const) {
    g[sourceId] = await insertGroup(db, connectionId, sourceId, parent);
  }
  await insertGroup(db, randomUUID(), 'root');
});

type Group = { id: string; sourceId: string; name?: string; parent?: string | Group; metadata: { addedAt: string; parentResolution?: string } };

const walk = { limit: 100, maxBytes: 4_000_000 };
const page = async (q: { after?: string; limit?: number; expandParent?: boolean; horizon?: string } = {}) => {
  const framed = await repository.page(db.em(), { connectionId, horizon: q.horizon ?? (await currentHorizon(db.em())), expandParent: q.expandParent ?? false, ...(q.after ? { after: q.after } : {}) }, { ...walk, limit: q.limit ?? 100 });
  return JSON.parse(framed.items) as Group[];
};
const byId = <T extends { id: string }>(rows: T[], id: string | undefined) => rows.find((r) => r.id === id);

describe('GroupsReadRepository', () => {
  it('pages the connection by ascending id, resuming after the last id', async () => {
    const all = Object.values(g).sort();
    const first = await page({ limit: 3 });
    expect(first.map((r) => r.id)).toEqual(all.slice(0, 3));
    expect((await page({ after: first.at(-1)!.id })).map((r) => r.id)).toEqual(all.slice(3));
  });

  it('resolves parents: stored, reported but not stored, none', async () => {
    const rows = await page();
    expect(byId(rows, g['root'])).toMatchObject({ sourceId: 'root', metadata: { parentResolution: 'root_or_unreported', addedAt: SEEN }, name: 'Group root' });
    expect(byId(rows, g['root'])?.parent).toBeUndefined();
    expect(byId(rows, g['child'])).toMatchObject({ parent: g['root'], metadata: { parentResolution: 'resolved' } });
    expect(byId(rows, g['orphan'])).toMatchObject({ parent: groupId(ref(connectionId, 'gone')), metadata: { parentResolution: 'unresolved' } });
  });

  it('expands the stored parent one level', async () => {
    const rows = await page({ expandParent: true });
    expect(byId(rows, g['grandchild'])?.parent).toMatchObject({ id: g['child'], sourceId: 'child', parent: g['root'], metadata: { parentResolution: 'resolved' } });
    expect(byId(rows, g['orphan'])?.parent).toBe(groupId(ref(connectionId, 'gone')));
  });

  it('leaves out groups committed after the horizon', async () => {
    const horizon = await currentHorizon(db.em());
    const late = await insertGroup(db, connectionId, 'late');
    expect((await page({ horizon })).map((r) => r.id)).not.toContain(late);
    await db.sql(`delete from ${db.t('group')} where id = ?`, [late]);
  });

  it('keeps an inventory read and its parent resolution to the approved source ids', async () => {
    const rows = JSON.parse(await repository.inventory(db.em(), connectionId, ['child', 'grandchild', 'not-stored'], true)) as Group[];
    expect(rows.map((r) => r.id)).toEqual([g['child'], g['grandchild']].sort());
    // root is outside the scope: child reports a parent but neither its id nor the parent row.
    expect(byId(rows, g['child'])).toMatchObject({ metadata: { parentResolution: 'unresolved' } });
    expect(byId(rows, g['child'])?.parent).toBeUndefined();
    expect(byId(rows, g['grandchild'])).toMatchObject({ metadata: { parentResolution: 'resolved' }, parent: { id: g['child'], metadata: { parentResolution: 'unresolved' } } });
    expect((byId(rows, g['grandchild'])?.parent as Group).parent).toBeUndefined();
  });

  it('looks groups up by id within the connection', async () => {
    for (const id of [g['root']!, g['orphan']!]) expect(JSON.parse((await repository.byId(db.em(), connectionId, id, false))!)).toMatchObject({ id });
    expect(await repository.byId(db.em(), randomUUID(), g['root']!, false)).toBeUndefined();
  });

  it('totals rows, references (parents, driver and vehicle memberships) and projected bytes', async () => {
    const empty = randomUUID();
    expect(await repository.directoryTotals(db.em(), empty)).toEqual({ rows: 0, references: 0, projected_bytes: 0 });
    await insertDriver(db, connectionId, 'd1', ['root', 'child']);
    await insertVehicle(db, connectionId, 'v1', { groups: { status: 'available', value: ['root'], source: 'test' } });
    await insertVehicle(db, connectionId, 'v2', { groups: { status: 'missing', value: null, source: 'test' } });
    const totals = await repository.directoryTotals(db.em(), connectionId);
    // Three parent links, two driver memberships, one vehicle membership.
    expect({ rows: totals.rows, references: totals.references }).toEqual({ rows: 4, references: 6 });
    // Each group is at least its metadata allowance plus its id and names.
    expect(totals.projected_bytes).toBeGreaterThan(4 * (130 + 40));
  });
});
