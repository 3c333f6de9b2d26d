/**
 * GET /v1/connections/{id}/drivers and …/drivers/{driverId} over HTTP against a real gateway and a
 * real directory (PostgreSQL + NATS JetStream), every response validated against the committed
 * OpenAPI document. Data enter through the directory's ingest consumer (the collectors' path).
 * Covers: pending before data, the exact Driver shape (availability, invalid values omitted,
 * groups and expansion, groupMembership), stale, degraded, the directory as the last complete pass
 * (decision 0014: a driver a newer pass lacks leaves the list and is served stale by id, a pass in
 * progress shows nothing until its final page), keyset pages across a completing pass, cursor
 * misuse, limits and cross-connection 404s. Each `ingest` without `unit` is a whole pass.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { driverId, groupId, PROVIDERS } from '@switchyard/domain';
import { startTestGateway, type TestGateway } from './support.js';
import { configureReads, ingest, newUnit, readConnection, readKey, reportHealth } from './reads-fixture.js';
import { bad, driverWith, groupRecord, have } from './groups-fixture.js';
import { collectInto, simulatedAdapter } from './providers-directory.js';

type Directory = { status: string; retrieval: string; fetchedAt: string | null; capturedAt: string | null; errorCode: string | null; results: Record<string, unknown>[]; next?: string };
type Result = { status: string; fetchedAt: string | null; capturedAt: string | null; errorCode: string | null; driver: Record<string, unknown> };

describe('stored drivers', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ directory: true });
  }, 60_000);
  afterAll(() => gw?.close());

  const get = (connectionId: string, headers: Record<string, string>, path = '') => gw.call('GET', `/v1/connections/${connectionId}/drivers${path}`, { headers });
  const ids = (body: unknown) => (body as Directory).results.map((d) => d.id);

  it('is pending before any driver is committed, then serves the exact Driver shape', async () => {
    const connectionId = await readConnection(gw);
    const key = await readKey(gw, [connectionId]);
    const first = await get(connectionId, key.headers);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ status: 'pending', retrieval: 'stored', fetchedAt: null, capturedAt: null, errorCode: null, results: [] });

    const now = new Date().toISOString();
    await ingest(gw, connectionId, 'groups', [groupRecord('g1', now), groupRecord('g2', now, 'g1')], { fetchedAt: now });
    await ingest(gw, connectionId, 'drivers', [
      driverWith('d1', now, {}, ['g1', 'g2', 'g-unstored']),
      driverWith('d2', now, { phone: have('555-0100'), email: have('not-an-email'), licenseState: have('XX'), createdAt: have('yesterday'), username: bad('blank') }, null),
    ], { fetchedAt: now });
    const ref = { connectionId, provider: 'samsara' as const };
    const page = await get(connectionId, key.headers);
    expect(page.status).toBe(200);
    const body = page.body as Directory;
    expect(body).toMatchObject({ status: 'available', retrieval: 'stored', fetchedAt: now, capturedAt: now, errorCode: null });
    expect(body).not.toHaveProperty('next');
    const allAvailable = { firstName: 'available', middleName: 'missing', lastName: 'available', displayName: 'available', email: 'available', phone: 'available', username: 'missing', licenseNumber: 'available', licenseState: 'available', createdAt: 'missing', updatedAt: 'missing' };
    const byId = Object.fromEntries(body.results.map((d) => [d.id, d]));
    expect(byId[driverId({ ...ref, sourceId: 'd1' })]).toEqual({
      id: driverId({ ...ref, sourceId: 'd1' }),
      sourceId: 'd1',
      provider: 'samsara',
      status: 'active',
      firstName: 'Ada',
      lastName: 'Lovelace',
      displayName: 'Ada Lovelace',
      email: 'ada@example.com',
      phone: '+14155550100',
      license: { number: 'D123', state: 'CA' },
      groups: [groupId({ ...ref, sourceId: 'g1' }), groupId({ ...ref, sourceId: 'g2' }), groupId({ ...ref, sourceId: 'g-unstored' })],
      groupMembership: {
        status: 'available',
        scope: 'credential_visible_directory',
        sourceScope: 'credential_visible',
        fetchedAt: now,
        membershipCapturedAt: now,
        sourceAvailability: 'available',
        inventoryStatus: 'disabled',
      },
      metadata: { addedAt: now, modifiedAt: now, visibility: 'visible' },
      availability: allAvailable,
    });
    // Invalid values are omitted and reported, never made up; unknown membership is a status.
    const d2 = byId[driverId({ ...ref, sourceId: 'd2' })]!;
    for (const k of ['phone', 'email', 'createdAt', 'username', 'groups']) expect(d2).not.toHaveProperty(k);
    expect(d2.license).toEqual({ number: 'D123' });
    expect(d2.availability).toEqual({ ...allAvailable, phone: 'invalid', email: 'invalid', licenseState: 'invalid', createdAt: 'invalid', username: 'invalid' });
    expect(d2.groupMembership).toMatchObject({ status: 'missing', sourceScope: 'unknown', sourceAvailability: 'missing' });

    // expand=groups: stored groups become Groups of this connection, an unstored one stays an id.
    const one = await get(connectionId, key.headers, `/${driverId({ ...ref, sourceId: 'd1' })}?expand=groups`);
    expect(one.status).toBe(200);
    const result = one.body as Result;
    expect(result).toMatchObject({ status: 'available', retrieval: 'stored', fetchedAt: now, capturedAt: now, errorCode: null });
    expect(result.driver.groups).toEqual([
      { id: groupId({ ...ref, sourceId: 'g1' }), sourceId: 'g1', provider: 'samsara', name: 'Group g1', metadata: { addedAt: now, modifiedAt: now, visibility: 'visible', parentResolution: 'root_or_unreported' } },
      expect.objectContaining({ id: groupId({ ...ref, sourceId: 'g2' }), parent: groupId({ ...ref, sourceId: 'g1' }), metadata: expect.objectContaining({ parentResolution: 'resolved' }) }),
      groupId({ ...ref, sourceId: 'g-unstored' }),
    ]);

    // The groupInventory opt-in shows in the membership's inventoryStatus.
    await configureReads(gw, connectionId, { optIns: { groupInventory: true, vehicleMetadata: false, extendedTelemetry: false }, approvedGroupIds: ['g1'] });
    const opted = (await get(connectionId, key.headers, `/${driverId({ ...ref, sourceId: 'd1' })}`)).body as Result;
    expect(opted.driver.groupMembership).toMatchObject({ inventoryStatus: 'available' });
  });

  it('reports stale and degraded, still serving the stored drivers', async () => {
    const connectionId = await readConnection(gw);
    const key = await readKey(gw, [connectionId]);
    const old = new Date(Date.now() - 3_600_000).toISOString();
    await ingest(gw, connectionId, 'drivers', [driverWith('d1', old)], { fetchedAt: old });
    const stale = (await get(connectionId, key.headers)).body as Directory;
    expect(stale).toMatchObject({ status: 'stale', fetchedAt: old, errorCode: null });
    expect(stale.results).toHaveLength(1);
    const id = driverId({ connectionId, provider: 'samsara', sourceId: 'd1' });
    expect(((await get(connectionId, key.headers, `/${id}`)).body as Result).status).toBe('stale');

    await reportHealth(gw, connectionId, 'failure', 'provider_throttled');
    const degraded = (await get(connectionId, key.headers)).body as Directory;
    expect(degraded).toMatchObject({ status: 'degraded', errorCode: 'provider_throttled' });
    expect(degraded.results).toHaveLength(1);
    const result = (await get(connectionId, key.headers, `/${id}`)).body as Result;
    expect(result).toMatchObject({ status: 'degraded', errorCode: 'provider_throttled' });
    expect(result.driver.groupMembership).toMatchObject({ status: 'degraded', errorCode: 'provider_throttled' });

    // A reason outside the DriverDirectory enum is not invented into one.
    await reportHealth(gw, connectionId, 'failure', 'something_else');
    expect((await get(connectionId, key.headers)).body).toMatchObject({ status: 'degraded', errorCode: null });
    await reportHealth(gw, connectionId, 'success');
    expect((await get(connectionId, key.headers)).body).toMatchObject({ status: 'stale' });
  });

  it('walks keyset pages on the pass they started with while a newer pass completes, and refuses misused cursors', async () => {
    const connectionId = await readConnection(gw);
    const other = await readConnection(gw);
    const key = await readKey(gw, [connectionId]);
    const otherKey = await readKey(gw, [other]);
    const now = new Date().toISOString();
    const id = (s: string) => driverId({ connectionId, provider: 'samsara', sourceId: s });
    await ingest(gw, connectionId, 'drivers', ['a', 'b', 'c', 'd', 'e'].map((s) => driverWith(s, now)), { fetchedAt: now });
    await ingest(gw, other, 'drivers', [driverWith('x', now)]);

    const p1 = await get(connectionId, key.headers, '?limit=2');
    expect(p1.status).toBe(200);
    const b1 = p1.body as Directory;
    expect(b1.results).toHaveLength(2);
    expect(b1.next).toMatch(/^[A-Za-z0-9_-]+$/);
    // A newer pass completes after the first page: it drops b and d, adds f and g, and changes a's name.
    const later = new Date(Date.parse(now) + 1_000).toISOString();
    await ingest(gw, connectionId, 'drivers', [driverWith('a', later, { firstName: have('Grace') }), ...['c', 'e', 'f', 'g'].map((s) => driverWith(s, later))], { fetchedAt: later });
    const walked = [...ids(b1)];
    let next = b1.next;
    while (next) {
      const page = await get(connectionId, key.headers, `?limit=2&expand=groups&cursor=${next}`);
      expect(page.status).toBe(200);
      // The walk reports the pass it serves, not the newer one.
      expect(page.body).toMatchObject({ status: 'available', capturedAt: now });
      walked.push(...ids(page.body));
      next = (page.body as Directory).next;
    }
    // Exactly the first pass: nothing skipped, nothing repeated, b and d still there, f and g not.
    expect(walked).toEqual(['a', 'b', 'c', 'd', 'e'].map(id).sort());
    // A new walk serves the newer pass; an updated row shows its current content in either walk.
    const fresh = (await get(connectionId, key.headers)).body as Directory;
    expect(fresh).toMatchObject({ status: 'available', fetchedAt: later, capturedAt: later });
    expect(ids(fresh)).toEqual(['a', 'c', 'e', 'f', 'g'].map(id).sort());
    expect(fresh.results.find((d) => d.id === id('a'))).toMatchObject({ firstName: 'Grace' });

    const invalid = { error: 'invalid_cursor' };
    expect((await get(connectionId, key.headers, '?cursor=garbage')).body).toEqual(invalid);
    expect((await get(connectionId, key.headers, `?cursor=${b1.next!.slice(0, -2)}xx`)).body).toEqual(invalid);
    // Another key, another connection, another route: all invalid_cursor.
    expect((await get(other, otherKey.headers, `?cursor=${b1.next}`)).body).toEqual(invalid);
    const groups = await gw.call('GET', `/v1/connections/${connectionId}/groups?cursor=${b1.next}`, { headers: key.headers });
    expect(groups.body).toEqual(invalid);
  });

  it('refuses bad queries and paths', async () => {
    const connectionId = await readConnection(gw);
    const key = await readKey(gw, [connectionId]);
    for (const q of ['?limit=0', '?limit=101', '?limit=x', '?expand=vehicle', '?bogus=1']) {
      const res = await get(connectionId, key.headers, q);
      expect({ q, status: res.status, body: res.body }).toEqual({ q, status: 400, body: { error: 'invalid_query' } });
    }
    expect((await get(connectionId, key.headers, '/trp_01JD0000000000000000000000')).body).toEqual({ error: 'invalid_path' });
    const unknown = await get(connectionId, key.headers, `/${driverId({ connectionId, provider: 'samsara', sourceId: 'nobody' })}`);
    expect(unknown).toMatchObject({ status: 404, body: { error: 'not_found' } });
    const full = await get(connectionId, key.headers, '?limit=100');
    expect(full.status).toBe(200);
  });

  it('lists the last complete pass only: a driver a newer pass lacks leaves the list and is served stale by id', async () => {
    const connectionId = await readConnection(gw);
    const key = await readKey(gw, [connectionId]);
    const id = (s: string) => driverId({ connectionId, provider: 'samsara', sourceId: s });
    const t1 = new Date(Date.now() - 2_000).toISOString();
    const t2 = new Date(Date.now() - 1_000).toISOString();
    await ingest(gw, connectionId, 'drivers', [driverWith('kept', t1), driverWith('gone', t1)], { fetchedAt: t1 });
    expect(ids((await get(connectionId, key.headers)).body)).toEqual([id('kept'), id('gone')].sort());

    await ingest(gw, connectionId, 'drivers', [driverWith('kept', t2)], { fetchedAt: t2 });
    const list = (await get(connectionId, key.headers)).body as Directory;
    expect(list).toMatchObject({ status: 'available', fetchedAt: t2, capturedAt: t2 });
    expect(ids(list)).toEqual([id('kept')]);
    // By id: its last known record, `stale`, fetchedAt = that record's fetch (before capturedAt, the current directory's).
    const gone = await get(connectionId, key.headers, `/${id('gone')}`);
    expect(gone.status).toBe(200);
    expect(gone.body).toMatchObject({ status: 'stale', retrieval: 'stored', fetchedAt: t1, capturedAt: t2, errorCode: null });
    expect((gone.body as Result).driver).toMatchObject({ id: id('gone'), sourceId: 'gone', groupMembership: { status: 'stale', membershipCapturedAt: t1 } });
    expect((await get(connectionId, key.headers, `/${id('kept')}`)).body).toMatchObject({ status: 'available', fetchedAt: t2, capturedAt: t2 });
    // Degraded beats stale, with its reason.
    await reportHealth(gw, connectionId, 'failure', 'provider_unavailable');
    expect((await get(connectionId, key.headers, `/${id('gone')}`)).body).toMatchObject({ status: 'degraded', errorCode: 'provider_unavailable', fetchedAt: t1 });
    await reportHealth(gw, connectionId, 'success');

    // Listed again by a later pass: back in the list and available.
    const t3 = new Date().toISOString();
    await ingest(gw, connectionId, 'drivers', [driverWith('kept', t3), driverWith('gone', t3)], { fetchedAt: t3 });
    expect(ids((await get(connectionId, key.headers)).body)).toEqual([id('kept'), id('gone')].sort());
    expect((await get(connectionId, key.headers, `/${id('gone')}`)).body).toMatchObject({ status: 'available', fetchedAt: t3, capturedAt: t3 });

    // A complete pass without any driver is an empty directory, not pending.
    await ingest(gw, connectionId, 'drivers', [], { fetchedAt: new Date().toISOString() });
    expect((await get(connectionId, key.headers)).body).toMatchObject({ status: 'available', results: [] });
    expect((await get(connectionId, key.headers, `/${id('kept')}`)).body).toMatchObject({ status: 'stale', fetchedAt: t3 });
  });

  it('shows nothing of a pass in progress until its final page commits', async () => {
    const connectionId = await readConnection(gw);
    const key = await readKey(gw, [connectionId]);
    const id = (s: string) => driverId({ connectionId, provider: 'samsara', sourceId: s });
    // Before the first complete pass: pending, empty, and its drivers are not found by id.
    const first = newUnit();
    const t0 = new Date(Date.now() - 3_000).toISOString();
    await ingest(gw, connectionId, 'drivers', [driverWith('old', t0)], { fetchedAt: t0, unit: first, page: 'start', final: false });
    expect((await get(connectionId, key.headers)).body).toEqual({ status: 'pending', retrieval: 'stored', fetchedAt: null, capturedAt: null, errorCode: null, results: [] });
    expect(await get(connectionId, key.headers, `/${id('old')}`)).toMatchObject({ status: 404, body: { error: 'not_found' } });
    const t1 = new Date(Date.now() - 2_000).toISOString();
    await ingest(gw, connectionId, 'drivers', [], { fetchedAt: t1, unit: first, page: 'last' });
    expect((await get(connectionId, key.headers)).body).toMatchObject({ status: 'available', fetchedAt: t1, capturedAt: t1, results: [expect.objectContaining({ id: id('old') })] });

    // A second pass: its first page carries a new driver (and not `old`); nothing changes until its final page.
    const second = newUnit();
    const t2 = new Date(Date.now() - 1_000).toISOString();
    await ingest(gw, connectionId, 'drivers', [driverWith('new1', t2)], { fetchedAt: t2, unit: second, page: 'start', final: false });
    const during = (await get(connectionId, key.headers)).body as Directory;
    expect(during).toMatchObject({ status: 'available', fetchedAt: t1, capturedAt: t1 });
    expect(ids(during)).toEqual([id('old')]);
    expect(await get(connectionId, key.headers, `/${id('new1')}`)).toMatchObject({ status: 404, body: { error: 'not_found' } });
    expect((await get(connectionId, key.headers, `/${id('old')}`)).body).toMatchObject({ status: 'available' });

    const t3 = new Date().toISOString();
    await ingest(gw, connectionId, 'drivers', [driverWith('new2', t3)], { fetchedAt: t3, unit: second, page: 'last' });
    const after = (await get(connectionId, key.headers)).body as Directory;
    expect(after).toMatchObject({ status: 'available', fetchedAt: t3, capturedAt: t3 });
    expect(ids(after)).toEqual([id('new1'), id('new2')].sort());
    expect((await get(connectionId, key.headers, `/${id('new1')}`)).body).toMatchObject({ status: 'available', capturedAt: t3 });
    expect((await get(connectionId, key.headers, `/${id('old')}`)).body).toMatchObject({ status: 'stale', fetchedAt: t0, capturedAt: t3 });

    // An older pass whose final page arrives late never replaces the newer directory.
    await ingest(gw, connectionId, 'drivers', [driverWith('old', t0)], { fetchedAt: t0 });
    expect(ids((await get(connectionId, key.headers)).body)).toEqual([id('new1'), id('new2')].sort());
  });

  it("never shows connection B's drivers to a key granted on A", async () => {
    const a = await readConnection(gw);
    const b = await readConnection(gw);
    const key = await readKey(gw, [a]);
    const now = new Date().toISOString();
    await ingest(gw, b, 'groups', [groupRecord('g1', now)]);
    await ingest(gw, b, 'drivers', [driverWith('secret', now)]);
    await ingest(gw, a, 'drivers', [driverWith('mine', now, {}, ['g1'])]);
    const bDriver = driverId({ connectionId: b, provider: 'samsara', sourceId: 'secret' });
    const denied = async () => {
      for (const res of [await get(b, key.headers), await get(b, key.headers, `/${bDriver}`), await get(a, key.headers, `/${bDriver}`)]) {
        expect(res).toMatchObject({ status: 404, body: { error: 'not_found' } });
        expect(res.text).not.toContain('secret');
      }
    };
    await denied();
    // Still 404 once B's newer pass delists it (a delisted driver is served stale only on its own connection).
    await ingest(gw, b, 'drivers', [driverWith('other', new Date().toISOString())]);
    await denied();
    // A's expansion resolves only A's groups: B's stored g1 never appears.
    const mine = await get(a, key.headers, '?expand=groups');
    expect(mine.status).toBe(200);
    expect((mine.body as Directory).results[0]!.groups).toEqual([groupId({ connectionId: a, provider: 'samsara', sourceId: 'g1' })]);
    expect(mine.text).not.toContain(b);
  });
  it.each(PROVIDERS)('serves %s drivers and groups collected from the simulator through the adapter', async (provider) => {
    const { adapter, simulator } = await simulatedAdapter(provider);
    try {
      const connectionId = await readConnection(gw, {}, provider);
      const key = await readKey(gw, [connectionId]);
      const groupCount = await collectInto(gw, connectionId, provider, 'groups', (c) => adapter.groups(c));
      const driverCount = await collectInto(gw, connectionId, provider, 'drivers', (c) => adapter.drivers(c));
      expect(driverCount).toBeGreaterThan(0);
      expect(groupCount).toBeGreaterThan(0);
      const walk = async (path: string) => {
        const out: Record<string, unknown>[] = [];
        for (let cursor: string | undefined = '', n = 0; cursor !== undefined && n < 100; n++) {
          const res = await gw.call('GET', `/v1/connections/${connectionId}/${path}${cursor ? `${path.includes('?') ? '&' : '?'}cursor=${cursor}` : ''}`, { headers: key.headers });
          expect(res.status).toBe(200);
          const body = res.body as Directory;
          expect(body.status).toBe('available');
          out.push(...body.results);
          cursor = body.next;
        }
        return out;
      };
      // Every stored record is served (each response validated against the OpenAPI document).
      const drivers = await walk('drivers?limit=7&expand=groups');
      expect(drivers).toHaveLength(driverCount);
      expect(await walk('groups?expand=parent')).toHaveLength(groupCount);
      // Memberships resolve to the stored groups of the same provider (expand=groups).
      expect(drivers.some((d) => (d.groups as unknown[] | undefined)?.some((g) => typeof g === 'object' && (g as { provider: string }).provider === provider))).toBe(true);
      for (const d of drivers) {
        expect(d.provider).toBe(provider);
        expect(Object.keys(d.availability as object)).toHaveLength(11);
      }
    } finally {
      await simulator.kill();
    }
  }, 120_000);
});
