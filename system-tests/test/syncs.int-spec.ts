/**
 * The sync routes end to end (spec 2.11, 3, 4.1) on a real gateway and a real sync-orchestrator:
 * create with its selectors, gates, plan limits and defaults; read; retry and cancel with their
 * state rules and empty bodies; progress and completion from fenced unit receipts. Every response
 * is validated against the committed OpenAPI document by `call`.
 *
 * Mutations tried (issue 25): the gateway's JSON parser taking a whitespace-only body as no body
 * (`text.trim() === ''`, http/configure.ts) → "refuses a whitespace-only JSON body" fails (201);
 * the gateway answering provider_requests_not_supported itself, before the orchestrator's field
 * checks → "… but only once every other field is valid" fails (409 for a startFrom in year 9999).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestGateway, type TestGateway } from './support.js';
import { COLLECTING, configure, countSyncs, createConnection, createSyncApp, evidence, jsonHeaders, receipts, unitsOf, type SyncApp } from './syncs-fixture.js';

interface Sync {
  id: string;
  status: string;
  requestedAt: string;
  startFrom: string;
  completedAt?: string;
  attempts: number;
  progress: number;
  failureReason?: string;
  issues: string[];
  providerRequests: string[];
}

const DAY_MS = 86_400_000;

/** Collecting with every purpose, two approved vehicles, active (restores whatever a test closed). */
const COLLECTING_RESET = { ...COLLECTING, status: 'active' as const };

let gw: TestGateway;
let app: SyncApp;

beforeAll(async () => {
  gw = await startTestGateway({ syncOrchestrator: true, rpcTimeoutMs: 10_000 });
  app = await createSyncApp(gw, await createConnection(gw));
});

afterAll(async () => {
  await gw?.close();
});

async function create(who: SyncApp, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await gw.call('POST', '/v1/syncs', body === undefined ? { headers: who.headers } : { headers: jsonHeaders(who), body: JSON.stringify(body) });
  return { status: res.status, body: res.body };
}

async function created(who: SyncApp, body?: unknown): Promise<Sync> {
  const res = await create(who, body);
  expect(res.status).toBe(201);
  return res.body as Sync;
}

describe('POST /v1/syncs', () => {
  it("starts the application's first sync now and later ones at the previous requestedAt (spec 3 rule 5)", async () => {
    const other = await createSyncApp(gw, await createConnection(gw));
    const first = await created(other);
    expect(first).toEqual({
      id: expect.stringMatching(/^sync_[0-9A-HJKMNP-TV-Z]{26}$/),
      status: 'requested',
      requestedAt: first.requestedAt,
      startFrom: first.requestedAt,
      attempts: 1,
      progress: 0,
      issues: [],
      providerRequests: [],
    });
    expect(Math.abs(Date.parse(first.requestedAt) - Date.now())).toBeLessThan(10_000);
    const second = await created(other);
    expect(second.startFrom).toBe(first.requestedAt);
    expect(Date.parse(second.requestedAt)).toBeGreaterThanOrEqual(Date.parse(first.requestedAt));
    // The plan: vehicles and memberships per approved vehicle; trips have an empty interval on the first sync.
    expect((await unitsOf(gw, first.id)).map((u) => u.purpose)).toEqual(['vehicles', 'vehicles', 'groupMemberships', 'groupMemberships']);
  });

  it("starts a new application's first default now, whatever another application synced on the connection (decision 0008)", async () => {
    const shared = await createConnection(gw);
    const first = await createSyncApp(gw, shared, { name: 'first app' });
    const earlier = await created(first);
    const newcomer = await createSyncApp(gw, shared, { history: false, name: 'newcomer' });
    const own = await created(newcomer);
    expect(own.startFrom).toBe(own.requestedAt);
    expect(Date.parse(own.startFrom)).toBeGreaterThan(Date.parse(earlier.requestedAt));
    // The first application's chain is its own.
    expect((await created(first)).startFrom).toBe(earlier.requestedAt);
  });

  it("chains a default from the application's last sync that did not fail or get cancelled", async () => {
    const chained = await createSyncApp(gw, await createConnection(gw));
    const kept = await created(chained);
    const cancelled = await created(chained);
    expect(cancelled.startFrom).toBe(kept.requestedAt);
    expect((await gw.call('POST', `/v1/syncs/${cancelled.id}/cancel`, { headers: chained.headers })).status).toBe(200);
    const next = await created(chained);
    expect(next.startFrom).toBe(kept.requestedAt);
    // Only failed and cancelled syncs are skipped: the next default chains from `next`.
    expect((await created(chained)).startFrom).toBe(next.requestedAt);
  });

  it.each([
    ['a startFrom in the future', () => ({ startFrom: new Date(Date.now() + 3_600_000).toISOString() })],
    ['lookbackDays under a millisecond (1e-9)', () => ({ lookbackDays: 1e-9 })],
  ])('refuses %s with 400 empty_interval and creates nothing (spec 4.1 rule 3)', async (_label, body) => {
    const before = await countSyncs(gw, app.connectionId);
    expect(await create(app, body())).toEqual({ status: 400, body: { error: 'empty_interval' } });
    expect(await countSyncs(gw, app.connectionId)).toBe(before);
  });

  it('treats an empty body sent as application/json as no body (201), and cancel accepts it too', async () => {
    const res = await gw.call('POST', '/v1/syncs', { headers: jsonHeaders(app), body: '' });
    expect(res.status).toBe(201);
    const sync = res.body as Sync;
    expect(await gw.call('POST', `/v1/syncs/${sync.id}/cancel`, { headers: jsonHeaders(app), body: '' })).toMatchObject({ status: 200 });
  });

  it('takes lookbackDays as fractional days before the request time', async () => {
    const sync = await created(app, { lookbackDays: 1.5 });
    expect(Date.parse(sync.requestedAt) - Date.parse(sync.startFrom)).toBe(1.5 * DAY_MS);
    // 2 vehicles × (vehicles + memberships) + 2 vehicles × 2 day slices of trips.
    expect(await unitsOf(gw, sync.id)).toHaveLength(8);
  });

  it('takes an explicit startFrom, normalized to UTC', async () => {
    const sync = await created(app, { startFrom: '2026-01-01T02:00:00+02:00', providerRequests: [] });
    expect(sync.startFrom).toBe('2026-01-01T00:00:00.000Z');
  });

  it('refuses both selectors with 400 conflicting_selectors (spec 4.1 rule 1)', async () => {
    const res = await create(app, { startFrom: '2026-01-01T00:00:00Z', lookbackDays: 1 });
    expect(res).toEqual({ status: 400, body: { error: 'conflicting_selectors' } });
  });

  it.each([
    ['a startFrom that is no date-time', { startFrom: 'yesterday' }],
    ['a startFrom of null', { startFrom: null }],
    ['a leap-second startFrom', { startFrom: '2016-12-31T23:59:60Z' }],
    ['lookbackDays over 100 years', { lookbackDays: 36_501 }],
    ['lookbackDays 0', { lookbackDays: 0 }],
    ['negative lookbackDays', { lookbackDays: -1 }],
    ['lookbackDays as a string', { lookbackDays: '1' }],
    ['an unknown property', { purposes: ['trips'] }],
    ['providerRequests that is no array', { providerRequests: 'historical_files' }],
    ['a providerRequests item that is none of its values', { providerRequests: ['x'] }],
    ['providerRequests with one unknown item among known ones', { providerRequests: ['historical_files', 'x'] }],
    ['an array body', []],
    ['a JSON null body', null],
    ['a JSON string body', 'now'],
    ['a JSON number body', 7],
  ])('refuses %s with 400 invalid_body', async (_label, body) => {
    expect(await create(app, body)).toEqual({ status: 400, body: { error: 'invalid_body' } });
  });

  it('refuses a query parameter with 400 invalid_query (spec 7) and creates nothing, e.g. a selector sent in the query', async () => {
    const before = await countSyncs(gw, app.connectionId);
    for (const query of ['?lookbackDays=7', '?startFrom=2026-01-01T00:00:00Z', '?expand=issues', '?x']) {
      const res = await gw.call('POST', `/v1/syncs${query}`, { headers: app.headers });
      expect({ query, status: res.status, body: res.body }).toEqual({ query, status: 400, body: { error: 'invalid_query' } });
    }
    expect(await countSyncs(gw, app.connectionId)).toBe(before);
  });

  it('refuses a whitespace-only JSON body with 400 invalid_body (not_json): it is no JSON text, and not "no body" (issue 25)', async () => {
    const before = await countSyncs(gw, app.connectionId);
    for (const body of ['   ', '\n', ' \t\r\n ']) {
      const res = await gw.call('POST', '/v1/syncs', { headers: jsonHeaders(app), body });
      expect({ body, status: res.status, error: res.body, detail: res.headers.get('switchyard-error-detail') }).toEqual({ body, status: 400, error: { error: 'invalid_body' }, detail: 'in=body, reason=not_json' });
    }
    expect(await countSyncs(gw, app.connectionId)).toBe(before);
  });

  it('refuses non-empty providerRequests with 409 (spec 4.1 rule 2), but only once every other field is valid (issue 25)', async () => {
    const before = await countSyncs(gw, app.connectionId);
    const asked = { providerRequests: ['historical_files'] };
    expect(await create(app, asked)).toEqual({ status: 409, body: { error: 'provider_requests_not_supported' } });
    // Each of these is a 400 whatever providerRequests says: a malformed selector, both selectors,
    // and a startFrom not before the request time (checked by the orchestrator against its clock).
    expect(await create(app, { ...asked, startFrom: 'yesterday' })).toEqual({ status: 400, body: { error: 'invalid_body' } });
    expect(await create(app, { ...asked, startFrom: '2026-01-01T00:00:00Z', lookbackDays: 1 })).toEqual({ status: 400, body: { error: 'conflicting_selectors' } });
    expect(await create(app, { ...asked, startFrom: '9999-01-01T00:00:00Z' })).toEqual({ status: 400, body: { error: 'empty_interval' } });
    expect(await countSyncs(gw, app.connectionId)).toBe(before);
  });

  it('needs the history grant to reach into the past, not for the default continuation', async () => {
    const noHistory = await createSyncApp(gw, app.connectionId, { history: false, name: 'no history' });
    expect(await create(noHistory, { lookbackDays: 1 })).toEqual({ status: 403, body: { error: 'history_forbidden' } });
    expect(await create(noHistory, { startFrom: '2020-01-01T00:00:00Z' })).toEqual({ status: 403, body: { error: 'history_forbidden' } });
    expect((await create(noHistory)).status).toBe(201);
  });

  describe('gates (spec 4.1 rule 4)', () => {
    let gated: SyncApp;
    let open: Sync;
    beforeAll(async () => {
      gated = await createSyncApp(gw, await createConnection(gw));
      open = await created(gated);
    });

    it.each([
      ['unified collection off', { unifiedCollection: false }],
      ['every purpose off', { purposes: { vehicles: false, groupMemberships: false, trips: false } }],
      ['the connection paused', { status: 'paused' as const }],
    ])('answers 503 gate_disabled with %s, and reads and cancel keep working', async (_label, patch) => {
      await configure(gw, gated.connectionId, patch);
      try {
        expect(await create(gated)).toEqual({ status: 503, body: { error: 'gate_disabled' } });
        expect((await gw.call('GET', `/v1/syncs/${open.id}`, { headers: gated.headers })).status).toBe(200);
        expect((await gw.call('GET', '/v1/syncs', { headers: gated.headers })).status).toBe(200);
      } finally {
        await configure(gw, gated.connectionId, { ...COLLECTING_RESET });
      }
    });

    it('lets cancel through while closed, and refuses the retry until it opens', async () => {
      const sync = await created(gated);
      await configure(gw, gated.connectionId, { unifiedCollection: false });
      expect((await gw.call('POST', `/v1/syncs/${sync.id}/cancel`, { headers: gated.headers })).status).toBe(200);
      expect(await gw.call('POST', `/v1/syncs/${sync.id}/retry`, { headers: gated.headers })).toMatchObject({ status: 503, body: { error: 'gate_disabled' } });
      await configure(gw, gated.connectionId, { unifiedCollection: true, purposes: { vehicles: true, groupMemberships: false, trips: true } });
      // A purpose the sync was created with is now off: still closed for this sync.
      expect(await gw.call('POST', `/v1/syncs/${sync.id}/retry`, { headers: gated.headers })).toMatchObject({ status: 503, body: { error: 'gate_disabled' } });
      await configure(gw, gated.connectionId, COLLECTING_RESET);
      expect((await gw.call('POST', `/v1/syncs/${sync.id}/retry`, { headers: gated.headers })).status).toBe(200);
    });
  });

  it('refuses a trip-only plan with an empty interval (spec 4.1 rule 3)', async () => {
    const tripsOnly = await createSyncApp(gw, await createConnection(gw, { ...COLLECTING_RESET, purposes: { vehicles: false, groupMemberships: false, trips: true } }));
    expect(await create(tripsOnly)).toEqual({ status: 400, body: { error: 'empty_interval' } });
    expect(await create(tripsOnly, { startFrom: new Date(Date.now() + 3_600_000).toISOString() })).toEqual({ status: 400, body: { error: 'empty_interval' } });
    const sync = await created(tripsOnly, { lookbackDays: 0.25 });
    expect((await unitsOf(gw, sync.id)).map((u) => u.purpose)).toEqual(['trips', 'trips']);
  });

  it('rejects unsupported required work atomically (spec 4.1 rule 5): Motive has no vehicle group memberships', async () => {
    const motive = await createSyncApp(gw, await createConnection(gw, COLLECTING_RESET, 'motive'));
    expect(await create(motive)).toEqual({ status: 409, body: { error: 'unsupported_purpose' } });
    expect(await countSyncs(gw, motive.connectionId)).toBe(0);
    await configure(gw, motive.connectionId, { purposes: { vehicles: true, groupMemberships: false, trips: true } });
    expect((await create(motive)).status).toBe(201);
  });

  it('refuses a connection without approved vehicles with 409 empty_selection', async () => {
    const empty = await createSyncApp(gw, await createConnection(gw, { ...COLLECTING_RESET, approvedVehicleIds: [] }));
    expect(await create(empty, { lookbackDays: 1 })).toEqual({ status: 409, body: { error: 'empty_selection' } });
  });

  it('admits a plan of exactly 10,000 units and rejects 10,001+ whole with 422 (spec 4.1 rule 8)', async () => {
    const vehicles = Array.from({ length: 100 }, (_, i) => `veh-${i}`);
    const big = await createSyncApp(gw, await createConnection(gw, { unifiedCollection: true, purposes: { vehicles: false, groupMemberships: false, trips: true }, approvedVehicleIds: vehicles }));
    const exact = await created(big, { lookbackDays: 100 });
    expect(await unitsOf(gw, exact.id)).toHaveLength(10_000);
    expect(await create(big, { lookbackDays: 100.001 })).toEqual({ status: 422, body: { error: 'sync_plan_too_large' } });
    await configure(gw, big.connectionId, { approvedVehicleIds: [...vehicles, 'veh-100'] });
    expect(await create(big, { lookbackDays: 100 })).toEqual({ status: 422, body: { error: 'sync_plan_too_large' } });
    expect(await countSyncs(gw, big.connectionId)).toBe(1);
  });

  it('rejects a plan over 4 MiB serialized with 422 even under 10,000 units', async () => {
    const vehicles = Array.from({ length: 100 }, (_, i) => `${i}-${'x'.repeat(1000)}`);
    const wide = await createSyncApp(gw, await createConnection(gw, { unifiedCollection: true, purposes: { vehicles: false, groupMemberships: false, trips: true }, approvedVehicleIds: vehicles }));
    expect(await create(wide, { lookbackDays: 40 })).toEqual({ status: 422, body: { error: 'sync_plan_too_large' } });
    expect(await countSyncs(gw, wide.connectionId)).toBe(0);
  });
});

describe('GET /v1/syncs/{id}', () => {
  it('reads the sync as created', async () => {
    const sync = await created(app);
    expect(await gw.call('GET', `/v1/syncs/${sync.id}`, { headers: app.headers })).toMatchObject({ status: 200, body: sync });
  });

  it('refuses a query parameter on read, retry and cancel with 400 invalid_query, changing nothing', async () => {
    const sync = await created(app);
    for (const [method, path] of [
      ['GET', `/v1/syncs/${sync.id}?expand=issues`],
      ['POST', `/v1/syncs/${sync.id}/cancel?reason=x`],
      ['POST', `/v1/syncs/${sync.id}/retry?force=true`],
    ] as const) {
      const res = await gw.call(method, path, { headers: app.headers });
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 400, body: { error: 'invalid_query' } });
    }
    expect(await gw.call('GET', `/v1/syncs/${sync.id}`, { headers: app.headers })).toMatchObject({ status: 200, body: sync });
  });

  it("answers 404 for another application's sync, an unknown id and a malformed id", async () => {
    const sync = await created(app);
    const other = await createSyncApp(gw, app.connectionId, { name: 'other app' });
    expect(await gw.call('GET', `/v1/syncs/${sync.id}`, { headers: other.headers })).toMatchObject({ status: 404, body: { error: 'not_found' } });
    expect(await gw.call('POST', `/v1/syncs/${sync.id}/cancel`, { headers: other.headers })).toMatchObject({ status: 404, body: { error: 'not_found' } });
    expect(await gw.call('GET', `/v1/syncs/sync_${'0'.repeat(26)}`, { headers: app.headers })).toMatchObject({ status: 404, body: { error: 'not_found' } });
    expect(await gw.call('GET', '/v1/syncs/sync_lower', { headers: app.headers })).toMatchObject({ status: 404, body: { error: 'not_found' } });
  });
});

describe('retry and cancel (spec 3 rules 1-2, 4.1 rule 7)', () => {
  it('cancel → failed/cancelled; cancel again 422; retry → requested with attempts 2 and the same interval', async () => {
    const sync = await created(app, { lookbackDays: 1 });
    expect(await gw.call('POST', `/v1/syncs/${sync.id}/retry`, { headers: app.headers })).toMatchObject({ status: 422, body: { error: 'sync_state_conflict' } });
    expect(await gw.call('POST', `/v1/syncs/${sync.id}/cancel`, { headers: app.headers })).toMatchObject({ status: 200, body: { id: sync.id, message: 'Sync cancellation requested' } });
    const cancelled = (await gw.call('GET', `/v1/syncs/${sync.id}`, { headers: app.headers })).body as Sync;
    expect(cancelled).toEqual({ ...sync, status: 'failed', failureReason: 'cancelled' });
    expect(await gw.call('POST', `/v1/syncs/${sync.id}/cancel`, { headers: app.headers })).toMatchObject({ status: 422, body: { error: 'sync_state_conflict' } });
    expect(await gw.call('POST', `/v1/syncs/${sync.id}/retry`, { headers: app.headers })).toMatchObject({ status: 200, body: { id: sync.id, message: 'Sync retry requested' } });
    const retried = (await gw.call('GET', `/v1/syncs/${sync.id}`, { headers: app.headers })).body as Sync;
    expect(retried).toEqual({ ...sync, attempts: 2 });
    expect((await unitsOf(gw, sync.id)).every((u) => u.attempt === 2 && u.state === 'admitted')).toBe(true);
  });

  it.each([
    ['{}', '{}'],
    ['null', 'null'],
    ['an object', '{"reason":"x"}'],
  ])('refuses a body (%s) on retry and cancel with 400 invalid_body', async (_label, body) => {
    const sync = await created(app);
    for (const action of ['retry', 'cancel']) {
      expect(await gw.call('POST', `/v1/syncs/${sync.id}/${action}`, { headers: jsonHeaders(app), body })).toMatchObject({ status: 400, body: { error: 'invalid_body' } });
    }
    expect(((await gw.call('GET', `/v1/syncs/${sync.id}`, { headers: app.headers })).body as Sync).status).toBe('requested');
  });
});

describe('progress from receipts (spec 3 rule 3)', () => {
  it('counts receipted / admitted units, completes only with every receipt, and then refuses cancel and retry', async () => {
    const solo = await createSyncApp(gw, await createConnection(gw, { ...COLLECTING_RESET, purposes: { vehicles: true, groupMemberships: false, trips: false } }));
    const sync = await created(solo);
    const leased = await receipts(gw).leaseUnits('collector-a', 10, { connectionId: solo.connectionId });
    expect(leased.map((u) => u.syncId)).toEqual([sync.id, sync.id]);
    const read = async () => (await gw.call('GET', `/v1/syncs/${sync.id}`, { headers: solo.headers })).body as Sync;
    expect(await read()).toMatchObject({ status: 'in_progress', progress: 0 });

    expect(await receipts(gw).markUnitReceipted(leased[0]!.unitId, leased[0]!.fencingToken, evidence('r1'))).toMatchObject({ outcome: 'receipted', status: 'in_progress', progress: 50 });
    expect(await read()).toMatchObject({ status: 'in_progress', progress: 50 });
    expect((await read()).completedAt).toBeUndefined();
    // A redelivered receipt changes nothing.
    expect(await receipts(gw).markUnitReceipted(leased[0]!.unitId, leased[0]!.fencingToken, evidence('r1'))).toMatchObject({ outcome: 'already_receipted', progress: 50 });

    expect(await receipts(gw).markUnitReceipted(leased[1]!.unitId, leased[1]!.fencingToken, evidence('r2'))).toMatchObject({ outcome: 'receipted', status: 'completed', progress: 100 });
    const done = await read();
    expect(done).toMatchObject({ status: 'completed', progress: 100, attempts: 1 });
    expect(Date.parse(done.completedAt!)).toBeGreaterThanOrEqual(Date.parse(done.requestedAt));
    expect(await gw.call('POST', `/v1/syncs/${sync.id}/cancel`, { headers: solo.headers })).toMatchObject({ status: 422, body: { error: 'sync_state_conflict' } });
    expect(await gw.call('POST', `/v1/syncs/${sync.id}/retry`, { headers: solo.headers })).toMatchObject({ status: 422, body: { error: 'sync_state_conflict' } });
  });
});
