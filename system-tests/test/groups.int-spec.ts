/**
 * GET /v1/connections/{id}/groups (view=directory|inventory) and …/groups/{groupId} over HTTP
 * against a real gateway and a real directory (PostgreSQL + NATS JetStream), every response
 * validated against the committed OpenAPI document (the list route's oneOf included). The gateway
 * runs with a lowered response byte limit and lowered group directory limits so a few rows reach
 * each limit; data enter through the directory's ingest consumer.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { groupId } from '@switchyard/domain';
import { READ_ENVELOPE_RESERVE } from '@switchyard/gateway';
import { startTestGateway, type TestGateway } from './support.js';
import { configureReads, ingest, readConnection, readKey, reportHealth } from './reads-fixture.js';
import { driverWith, groupRecord } from './groups-fixture.js';

type Group = Record<string, unknown> & { id: string; metadata: Record<string, unknown> };
type DirectoryPage = { status: string; retrieval: string; sourceScope: string; fetchedAt: string | null; capturedAt: string | null; errorCode: string | null; results: Group[]; next?: string };
type Inventory = { status: string; results: Group[]; fetchedAt: string | null; errorCode?: string | null; retrieval: string; next?: string };

const LIMITS = { maxRows: 7, maxReferences: 9, projectedByteLimit: 4000 };
const CONSTANTS = { retrieval: 'stored', sourceScope: 'credential_visible_directory', consistency: 'not_transactional', deletionEvidence: 'none' };
const inventoryOn = (approvedGroupIds: string[]) => ({ optIns: { groupInventory: true, vehicleMetadata: false, extendedTelemetry: false }, approvedGroupIds });

describe('stored groups', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    // Results budget: 2,048 bytes, about eight groups per page.
    gw = await startTestGateway({ directory: true, responseByteLimit: READ_ENVELOPE_RESERVE + 2048, groupDirectoryLimits: LIMITS });
  }, 60_000);
  afterAll(() => gw?.close());

  const get = (connectionId: string, headers: Record<string, string>, path = '') => gw.call('GET', `/v1/connections/${connectionId}/groups${path}`, { headers });
  const gid = (connectionId: string, sourceId: string) => groupId({ connectionId, provider: 'samsara', sourceId });

  it('answers pending / disabled before data, then the directory with parent resolution and expansion', async () => {
    const c = await readConnection(gw);
    const key = await readKey(gw, [c]);
    expect((await get(c, key.headers)).body).toEqual({ ...CONSTANTS, status: 'pending', fetchedAt: null, capturedAt: null, errorCode: null, results: [] });
    expect((await get(c, key.headers, '?view=inventory')).body).toEqual({ status: 'disabled', results: [], fetchedAt: null, errorCode: null, retrieval: 'stored' });

    const now = new Date().toISOString();
    await ingest(gw, c, 'groups', [groupRecord('root', now), groupRecord('child', now, 'root'), groupRecord('orphan', now, 'gone')], { fetchedAt: now });
    const page = await get(c, key.headers, '?view=directory');
    expect(page.status).toBe(200);
    const body = page.body as DirectoryPage;
    expect(body).toMatchObject({ ...CONSTANTS, status: 'available', fetchedAt: now, capturedAt: now, errorCode: null });
    const byId = Object.fromEntries(body.results.map((g) => [g.id, g]));
    const meta = (parentResolution: string) => ({ addedAt: now, modifiedAt: now, visibility: 'visible', parentResolution });
    expect(byId[gid(c, 'root')]).toEqual({ id: gid(c, 'root'), sourceId: 'root', provider: 'samsara', name: 'Group root', metadata: meta('root_or_unreported') });
    expect(byId[gid(c, 'child')]).toEqual({ id: gid(c, 'child'), sourceId: 'child', provider: 'samsara', name: 'Group child', parent: gid(c, 'root'), metadata: meta('resolved') });
    expect(byId[gid(c, 'orphan')]).toEqual({ id: gid(c, 'orphan'), sourceId: 'orphan', provider: 'samsara', name: 'Group orphan', parent: gid(c, 'gone'), metadata: meta('unresolved') });

    const one = await get(c, key.headers, `/${gid(c, 'child')}?expand=parent`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ ...CONSTANTS, status: 'available', fetchedAt: now, capturedAt: now, errorCode: null, data: { ...byId[gid(c, 'child')], parent: byId[gid(c, 'root')] } });

    // The inventory: only approved ids, parents resolved among them only.
    await configureReads(gw, c, inventoryOn(['child', 'orphan', 'never-stored']));
    const inv = (await get(c, key.headers, '?view=inventory&expand=parent')).body as Inventory;
    expect(inv).toMatchObject({ status: 'available', fetchedAt: now, errorCode: null, retrieval: 'stored' });
    expect(inv).not.toHaveProperty('next');
    expect(Object.fromEntries(inv.results.map((g) => [g.sourceId, g]))).toEqual({
      child: { id: gid(c, 'child'), sourceId: 'child', provider: 'samsara', name: 'Group child', metadata: meta('unresolved') },
      orphan: { id: gid(c, 'orphan'), sourceId: 'orphan', provider: 'samsara', name: 'Group orphan', metadata: meta('unresolved') },
    });
    await configureReads(gw, c, inventoryOn(['child', 'root']));
    const resolved = (await get(c, key.headers, '?view=inventory&expand=parent')).body as Inventory;
    expect(resolved.results.find((g) => g.sourceId === 'child')).toMatchObject({ parent: { id: gid(c, 'root'), metadata: { parentResolution: 'root_or_unreported' } }, metadata: { parentResolution: 'resolved' } });
  });

  it('reports stale and degraded for the directory, the inventory and one group', async () => {
    const c = await readConnection(gw, inventoryOn(['g1']));
    const key = await readKey(gw, [c]);
    expect(((await get(c, key.headers, '?view=inventory')).body as Inventory).status).toBe('pending');
    const old = new Date(Date.now() - 3_600_000).toISOString();
    await ingest(gw, c, 'groups', [groupRecord('g1', old)], { fetchedAt: old });
    expect((await get(c, key.headers)).body).toMatchObject({ status: 'stale', fetchedAt: old });
    expect((await get(c, key.headers, '?view=inventory')).body).toMatchObject({ status: 'stale', fetchedAt: old });
    expect((await get(c, key.headers, `/${gid(c, 'g1')}`)).body).toMatchObject({ status: 'stale' });
    await reportHealth(gw, c, 'failure', 'provider_unavailable');
    for (const path of ['', '?view=inventory', `/${gid(c, 'g1')}`]) {
      expect((await get(c, key.headers, path)).body).toMatchObject({ status: 'degraded', errorCode: 'provider_unavailable' });
    }
    expect(((await get(c, key.headers)).body as DirectoryPage).results).toHaveLength(1);
  });

  it('ends pages at the response byte limit and walks them stably while batches commit', async () => {
    const c = await readConnection(gw);
    const key = await readKey(gw, [c]);
    const now = new Date().toISOString();
    // Long names: about four groups per 2,048-byte page. References stay under the limit (no parents).
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    await ingest(gw, c, 'groups', names.map((s) => groupRecord(s, now, null, { name: s.repeat(300) })), { fetchedAt: now });
    const first = await get(c, key.headers);
    expect(first.status).toBe(200);
    const b1 = first.body as DirectoryPage;
    expect(b1.results.length).toBeGreaterThan(0);
    expect(b1.results.length).toBeLessThan(names.length);
    expect(first.text.length).toBeLessThanOrEqual(READ_ENVELOPE_RESERVE + 2048);
    expect(b1.next).toBeDefined();
    // A group committed mid-walk is not part of this walk.
    await ingest(gw, c, 'groups', [groupRecord('g', new Date().toISOString())]);
    const walked = b1.results.map((g) => g.id);
    let next = b1.next;
    let pages = 1;
    while (next) {
      const page = await get(c, key.headers, `?cursor=${next}`);
      expect(page.status).toBe(200);
      walked.push(...(page.body as DirectoryPage).results.map((g) => g.id));
      next = (page.body as DirectoryPage).next;
      pages++;
    }
    expect(pages).toBeGreaterThan(1);
    expect(walked).toEqual(names.map((s) => gid(c, s)).sort());
    // A new walk sees it; limit narrows a page further.
    expect(((await get(c, key.headers, '?limit=1')).body as DirectoryPage).results).toHaveLength(1);
    const fresh: string[] = [];
    for (let cursor: string | undefined = '', n = 0; cursor !== undefined && n < 10; n++) {
      const page = (await get(c, key.headers, cursor ? `?cursor=${cursor}` : '')).body as DirectoryPage;
      fresh.push(...page.results.map((g) => g.id));
      cursor = page.next;
    }
    expect(fresh).toContain(gid(c, 'g'));
  });

  it('surfaces each group directory limit as degraded + group_directory_limit_exceeded', async () => {
    const now = new Date().toISOString();
    const exceeded = { ...CONSTANTS, status: 'degraded', errorCode: 'group_directory_limit_exceeded', results: [] };
    // Rows: 8 > 7.
    const rows = await readConnection(gw);
    const k1 = await readKey(gw, [rows]);
    await ingest(gw, rows, 'groups', ['1', '2', '3', '4', '5', '6', '7', '8'].map((s) => groupRecord(`r${s}`, now)), { fetchedAt: now });
    expect((await get(rows, k1.headers)).body).toMatchObject(exceeded);
    expect((await get(rows, k1.headers)).body).not.toHaveProperty('next');
    // References: 2 parent links + 8 driver memberships = 10 > 9.
    const refs = await readConnection(gw);
    const k2 = await readKey(gw, [refs]);
    await ingest(gw, refs, 'groups', [groupRecord('p', now), groupRecord('q', now, 'p'), groupRecord('s', now, 'q')], { fetchedAt: now });
    expect(((await get(refs, k2.headers)).body as DirectoryPage).status).toBe('available');
    await ingest(gw, refs, 'drivers', ['d1', 'd2', 'd3', 'd4'].map((s) => driverWith(s, now, {}, ['p', 'q'])));
    expect((await get(refs, k2.headers)).body).toMatchObject(exceeded);
    // Projected bytes: 3 groups of ~1,400 bytes > 4,000.
    const bytes = await readConnection(gw);
    const k3 = await readKey(gw, [bytes]);
    await ingest(gw, bytes, 'groups', ['x', 'y', 'z'].map((s) => groupRecord(s, now, null, { name: s.repeat(1300) })), { fetchedAt: now });
    expect((await get(bytes, k3.headers)).body).toMatchObject(exceeded);
    // A single group stays readable.
    expect((await get(bytes, k3.headers, `/${gid(bytes, 'x')}`)).status).toBe(200);
  });

  it('refuses bad queries, misused cursors and paths', async () => {
    const c = await readConnection(gw);
    const key = await readKey(gw, [c]);
    await ingest(gw, c, 'groups', ['a', 'b', 'c'].map((s) => groupRecord(s, new Date().toISOString())));
    for (const q of ['?view=all', '?limit=0', '?limit=101', '?expand=children', '?bogus=1']) {
      const res = await get(c, key.headers, q);
      expect({ q, status: res.status, body: res.body }).toEqual({ q, status: 400, body: { error: 'invalid_query' } });
    }
    const { next } = (await get(c, key.headers, '?limit=1')).body as DirectoryPage;
    expect(next).toBeDefined();
    expect((await get(c, key.headers, `?limit=1&expand=parent&cursor=${next}`)).status).toBe(200);
    for (const q of [`?view=inventory&cursor=${next}`, '?cursor=garbage', `?cursor=${next!.slice(0, -2)}xx`]) {
      expect((await get(c, key.headers, q)).body).toEqual({ error: 'invalid_cursor' });
    }
    expect((await gw.call('GET', `/v1/connections/${c}/drivers?cursor=${next}`, { headers: key.headers })).body).toEqual({ error: 'invalid_cursor' });
    expect((await get(c, key.headers, '/drv_01JD0000000000000000000000')).body).toEqual({ error: 'invalid_path' });
    expect(await get(c, key.headers, `/${gid(c, 'nope')}`)).toMatchObject({ status: 404, body: { error: 'not_found' } });
  });

  it("never shows connection B's groups to a key granted on A", async () => {
    const a = await readConnection(gw, inventoryOn(['shared', 'b-only']));
    const b = await readConnection(gw, inventoryOn(['shared', 'b-only']));
    const key = await readKey(gw, [a]);
    const bKey = await readKey(gw, [b]);
    const now = new Date().toISOString();
    await ingest(gw, b, 'groups', [groupRecord('b-only', now, null, { name: 'SECRET-B' }), groupRecord('shared', now, 'b-only', { name: 'SECRET-B2' })]);
    await ingest(gw, a, 'groups', [groupRecord('shared', now, 'b-only', { name: 'mine' })]);
    const bCursor = ((await get(b, bKey.headers, '?limit=1')).body as DirectoryPage).next!;
    for (const res of [await get(b, key.headers), await get(b, key.headers, `/${gid(b, 'b-only')}`), await get(a, key.headers, `/${gid(b, 'b-only')}`)]) {
      expect(res).toMatchObject({ status: 404, body: { error: 'not_found' } });
      expect(res.text).not.toContain('SECRET');
    }
    expect((await get(a, key.headers, `?cursor=${bCursor}`)).body).toEqual({ error: 'invalid_cursor' });
    // A's own views and expansions: B's parent is never resolved into A's answer.
    for (const path of ['?expand=parent', '?view=inventory&expand=parent', `/${gid(a, 'shared')}?expand=parent`]) {
      const res = await get(a, key.headers, path);
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('SECRET');
      expect(res.text).not.toContain(gid(b, 'b-only'));
      expect(res.text).toContain('unresolved');
    }
  });
});
