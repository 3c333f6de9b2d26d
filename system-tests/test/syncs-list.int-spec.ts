/**
 * GET /v1/syncs (spec 4.1 rule 6, 8): page size 1-100 default 25, newest requestedAt then id, the
 * status filter, `expand=issues`, only this application's syncs, and cursors — stable walks while
 * new syncs are created (the horizon is fixed at the first page), refused when the filter changes,
 * after a grant change, from another application, or tampered. Expiry (15 minutes) is covered by
 * the cursor codec's unit spec with an injected clock.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { newSyncId } from '@switchyard/domain';
import { startTestGateway, type TestGateway } from './support.js';
import { createConnection, createSyncApp, waitForGrants, type SyncApp } from './syncs-fixture.js';

interface Sync {
  id: string;
  status: string;
  requestedAt: string;
  issues: string[];
}
interface Page {
  syncs: Sync[];
  next: string | null;
}

let gw: TestGateway;
let app: SyncApp;
let other: SyncApp;
/** Every sync of `app`, newest first, as the list must order them. */
let all: Sync[] = [];

async function createSync(who: SyncApp): Promise<Sync> {
  const res = await gw.call('POST', '/v1/syncs', { headers: who.headers });
  expect(res.status).toBe(201);
  return res.body as Sync;
}

async function list(who: SyncApp, query = ''): Promise<{ status: number; body: unknown }> {
  const res = await gw.call('GET', `/v1/syncs${query}`, { headers: who.headers });
  return { status: res.status, body: res.body };
}

async function page(who: SyncApp, query = ''): Promise<Page> {
  const res = await list(who, query);
  expect(res.status).toBe(200);
  return res.body as Page;
}

const newestFirst = (a: Sync, b: Sync) => (a.requestedAt === b.requestedAt ? (a.id < b.id ? 1 : -1) : a.requestedAt < b.requestedAt ? 1 : -1);

beforeAll(async () => {
  gw = await startTestGateway({ syncOrchestrator: true, rpcTimeoutMs: 10_000 });
  const connectionId = await createConnection(gw);
  app = await createSyncApp(gw, connectionId);
  other = await createSyncApp(gw, connectionId, { name: 'other app' });
  for (let i = 0; i < 30; i++) all.push(await createSync(app));
  await createSync(other);
  // Some failed syncs for the status filter.
  for (const sync of all.slice(0, 4)) expect((await gw.call('POST', `/v1/syncs/${sync.id}/cancel`, { headers: app.headers })).status).toBe(200);
  all = all.map((s, i) => (i < 4 ? { ...s, status: 'failed' } : s)).sort(newestFirst);
});

afterAll(async () => {
  await gw?.close();
});

describe('GET /v1/syncs', () => {
  it('serves 25 by default, newest requestedAt first then id, with a next cursor', async () => {
    const first = await page(app);
    expect(first.syncs.map((s) => s.id)).toEqual(all.slice(0, 25).map((s) => s.id));
    expect(first.next).toMatch(/^[A-Za-z0-9_-]+$/);
    const second = await page(app, `?cursor=${first.next}`);
    expect(second.syncs.map((s) => s.id)).toEqual(all.slice(25).map((s) => s.id));
    expect(second).not.toHaveProperty('next');
  });

  it('shows only this application’s syncs, each with empty issues, also with expand=issues', async () => {
    const everything = await page(app, '?limit=100&expand=issues');
    expect(everything.syncs).toHaveLength(30);
    expect(everything.syncs.every((s) => s.issues.length === 0)).toBe(true);
    expect((await page(other, '?limit=100')).syncs).toHaveLength(1);
  });

  it.each([['?limit=0'], ['?limit=101'], ['?limit=abc'], ['?limit=5&limit=6'], ['?limit=1.5'], ['?status=done'], ['?expand=units'], ['?sort=asc']])(
    'refuses %s with 400 invalid_query',
    async (query) => {
      expect(await list(app, query)).toEqual({ status: 400, body: { error: 'invalid_query' } });
    },
  );

  it('accepts limit 1 and 100', async () => {
    expect((await page(app, '?limit=1')).syncs).toHaveLength(1);
    expect((await page(app, '?limit=100')).syncs).toHaveLength(30);
  });

  it('filters by status, live', async () => {
    const failed = await page(app, '?status=failed&limit=100');
    expect(failed.syncs.map((s) => s.id)).toEqual(all.filter((s) => s.status === 'failed').map((s) => s.id));
    expect((await page(app, '?status=requested&limit=100')).syncs).toHaveLength(26);
    expect((await page(app, '?status=completed')).syncs).toEqual([]);
  });

  it('keeps a walk stable while new syncs are created: the horizon is fixed at the first page', async () => {
    const seen: string[] = [];
    let current = await page(app, '?limit=7');
    const before = (await page(app, '?limit=100')).syncs.map((s) => s.id);
    seen.push(...current.syncs.map((s) => s.id));
    const added: string[] = [];
    while (current.next) {
      // New syncs land between pages, concurrently with the walk.
      added.push(...(await Promise.all([createSync(app), createSync(app)])).map((s) => s.id));
      current = await page(app, `?limit=7&cursor=${current.next}`);
      seen.push(...current.syncs.map((s) => s.id));
    }
    expect(seen).toEqual(before);
    expect(seen.filter((id) => added.includes(id))).toEqual([]);
    // A fresh walk sees them.
    expect((await page(app, '?limit=100')).syncs.slice(0, added.length).map((s) => s.id).sort()).toEqual([...added].sort());
  });

  it('leaves out a sync whose create committed after the first page, even with an older requestedAt', async () => {
    const before = (await page(app, '?limit=100')).syncs;
    const requestedAt = new Date(Date.parse(before[10]!.requestedAt) - 1);
    const lateId = newSyncId(requestedAt);
    const orm = gw.orchestrator!.runtime.orm;
    const table = `"${orm.config.get('schema')}"."sync"`;
    let first: Page | undefined;
    // A slow create: its transaction is open while the first page is read, then commits.
    await orm.em.fork().transactional(async (em) => {
      await em.execute(
        `insert into ${table} (id, application_id, connection_id, status, requested_at, start_from, interval_end, purposes, attempts, admitted_units, created_xid)
         values (?, ?::uuid, ?::uuid, 'requested', ?::timestamptz, ?::timestamptz, ?::timestamptz, '{vehicles}', 1, 1, pg_current_xact_id()::text::bigint)`,
        [lateId, app.id, app.connectionId, requestedAt.toISOString(), requestedAt.toISOString(), requestedAt.toISOString()],
      );
      first = await page(app, '?limit=5');
    });
    const seen = first!.syncs.map((s) => s.id);
    let next = first!.next;
    while (next) {
      const current = await page(app, `?limit=5&cursor=${next}`);
      seen.push(...current.syncs.map((s) => s.id));
      next = current.next;
    }
    expect(seen).toEqual(before.map((s) => s.id));
    const fresh = (await page(app, '?limit=100')).syncs.map((s) => s.id);
    expect(fresh.indexOf(lateId)).toBe(11);
  });

  it('refuses a cursor with changed filters, from another application, or tampered (400 invalid_cursor)', async () => {
    const filtered = await page(app, '?status=requested&limit=2');
    expect((await page(app, `?status=requested&limit=2&cursor=${filtered.next}`)).syncs).toHaveLength(2);
    expect(await list(app, `?status=failed&limit=2&cursor=${filtered.next}`)).toEqual({ status: 400, body: { error: 'invalid_cursor' } });
    expect(await list(app, `?limit=2&cursor=${filtered.next}`)).toEqual({ status: 400, body: { error: 'invalid_cursor' } });
    const plain = await page(app, '?limit=2');
    expect(await list(app, `?status=requested&cursor=${plain.next}`)).toEqual({ status: 400, body: { error: 'invalid_cursor' } });
    expect(await list(other, `?limit=2&cursor=${plain.next}`)).toEqual({ status: 400, body: { error: 'invalid_cursor' } });
    const token = plain.next!;
    const flipped = token.slice(0, 12) + (token[12] === 'A' ? 'B' : 'A') + token.slice(13);
    expect(await list(app, `?limit=2&cursor=${flipped}`)).toEqual({ status: 400, body: { error: 'invalid_cursor' } });
    expect(await list(app, '?limit=2&cursor=not-a-cursor')).toEqual({ status: 400, body: { error: 'invalid_cursor' } });
  });

  it('refuses a cursor presented with another Connection-Token, e.g. after a rotation (400 invalid_cursor)', async () => {
    const first = await page(app, '?limit=1');
    const rotated = { ...app.headers, 'connection-token': (await gw.credentials.issueConnectionToken(app.id, app.connectionId)).token };
    // The new token reaches the orchestrator's recheck through the grant snapshot (its tokenVersion).
    await waitForGrants(gw, app.id);
    const res = await gw.call('GET', `/v1/syncs?limit=1&cursor=${first.next}`, { headers: rotated });
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: 'invalid_cursor' } });
    // The new token walks from the start; the old one still continues its own walk.
    expect((await gw.call('GET', '/v1/syncs?limit=1', { headers: rotated })).status).toBe(200);
    expect((await page(app, `?limit=1&cursor=${first.next}`)).syncs).toHaveLength(1);
  });

  it('refuses a cursor issued before a grant change (400 invalid_cursor)', async () => {
    const walker = await createSyncApp(gw, app.connectionId, { name: 'walker' });
    await createSync(walker);
    await createSync(walker);
    const first = await page(walker, '?limit=1');
    expect((await page(walker, `?limit=1&cursor=${first.next}`)).syncs).toHaveLength(1);
    // Same operations, re-granted: the credential version moves, old cursors die.
    await gw.credentials.grantApplication(walker.id, walker.connectionId, ['sync.create', 'sync.read', 'sync.retry', 'sync.cancel'], true);
    await waitForGrants(gw, walker.id);
    expect(await list(walker, `?limit=1&cursor=${first.next}`)).toEqual({ status: 400, body: { error: 'invalid_cursor' } });
    expect((await page(walker, '?limit=1')).syncs).toHaveLength(1);
  });
});
