/**
 * GET /v1/connections/{id}/vehicles (both views), …/vehicles/{vehicleId} and …/vehicles/{vehicleId}/metadata
 * over HTTP against a real gateway and a real directory (PostgreSQL + NATS JetStream), every
 * response validated against the committed OpenAPI document; plus the directory's
 * `events.vehicle.visibility.<id>` publication seen by a subscriber. Data enters through the
 * directory's ingest consumer (the collectors' path) as records of each of the three providers.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { available, groupId, toWireDateTime, VEHICLE_METADATA_KEYS, vehicleId, type Provider } from '@switchyard/domain';
import { EVENTS, type GroupRecordV1, subjectFor, type Subscription, type VehicleRecordV1, type VehicleVisibilityChangedV1 } from '@switchyard/messaging';
import { collectPages, createGeotabAdapter, createMotiveAdapter, createSamsaraAdapter, type ProviderAdapter } from '@switchyard/providers';
import { pollUntil, spawnSimulator, type NodeProcess } from '@switchyard/testing';
import { startTestGateway, type TestGateway } from './support.js';
import { configureReads, ingest, newUnit, readConnection, readKey, reportHealth, vehicleRecord } from './reads-fixture.js';

type Json = Record<string, unknown>;
type ProfilePage = { status: string; results: Json[]; next?: string; publishedAt: string | null; errorCode: string | null };
type Assets = { vehicles: (Json & { id: string })[]; nextCursor: string | null };

const TIME_CELLS = new Set<string>(['createdAt', 'updatedAt', 'activeFrom', 'activeTo']);
const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
const vcl = (connectionId: string, sourceId: string, provider: Provider = 'samsara') => vehicleId({ connectionId, provider, sourceId });

function groupRecord(sourceId: string, fetchedAt: string, provider: Provider = 'samsara'): GroupRecordV1 {
  return { provider, sourceId, name: available(`Group ${sourceId}`, 'test'), description: { status: 'missing', value: null, source: 'test' }, parentSourceId: null, fetchedAt } as GroupRecordV1;
}

/**
 * A vehicle whose provider reported no status: `missing` (it should have: unknown, never a
 * VehicleEntity), or `unsupported` (Samsara supplies none: the directory derives it from the roster).
 */
function statuslessVehicle(sourceId: string, fetchedAt: string, cell: 'missing' | 'unsupported' = 'missing'): ReturnType<typeof vehicleRecord> {
  const v = vehicleRecord(sourceId, fetchedAt);
  return { ...v, metadata: { ...v.metadata, status: { status: cell, value: null, source: 'test:status' } } } as ReturnType<typeof vehicleRecord>;
}

describe('stored vehicles', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ directory: true });
  }, 60_000);
  afterAll(() => gw?.close());

  const get = async (path: string, headers: Record<string, string>) => gw.call('GET', path, { headers });

  it('is pending before the first batch, then lists assets and profiles, reads one vehicle with expanded groups', async () => {
    const a = await readConnection(gw);
    const key = await readKey(gw, [a]);
    const base = `/v1/connections/${a}/vehicles`;

    expect((await get(base, key.headers)).body).toEqual({ vehicles: [], nextCursor: null });
    expect((await get(`${base}?view=profiles`, key.headers)).body).toEqual({
      status: 'pending',
      retrieval: 'stored',
      results: [],
      publishedAt: null,
      errorCode: null,
      selection: 'approved_source_vehicle_ids',
      completeness: 'not_established',
    });

    const now = new Date().toISOString();
    await ingest(gw, a, 'groups', [groupRecord('g1', now)]);
    await ingest(gw, a, 'vehicles', [vehicleRecord('v1', now), vehicleRecord('v2', now, 'inactive'), statuslessVehicle('v3', now)]);

    const assets = (await get(base, key.headers)).body as Assets;
    const ids = [vcl(a, 'v1'), vcl(a, 'v2'), vcl(a, 'v3')].sort();
    const bySource = Object.fromEntries(['v1', 'v2', 'v3'].map((s) => [vcl(a, s), s]));
    expect(assets).toEqual({ vehicles: ids.map((id) => ({ id, provider_id: bySource[id], name: `Truck ${bySource[id]}`, vin: '1FUJGLDR7CLBP8834' })), nextCursor: null });
    // The default view's ids are the ones the per-vehicle routes take (decision 0017).
    for (const v of assets.vehicles) expect({ id: v.id, status: (await get(`${base}/${v.id}/metadata`, key.headers)).status }).toEqual({ id: v.id, status: 200 });

    const profiles = (await get(`${base}?view=profiles`, key.headers)).body as ProfilePage;
    expect(profiles.status).toBe('available');
    expect(profiles.publishedAt).toEqual(expect.any(String));
    // v3's status is missing (unknown, vehicle.mapper.ts vehicleStatus): an asset, never a profile.
    expect(profiles.results.map((v) => v.sourceId).sort()).toEqual(['v1', 'v2']);
    const g1 = groupId({ connectionId: a, provider: 'samsara', sourceId: 'g1' });
    expect(profiles.results.find((v) => v.sourceId === 'v1')).toEqual({
      id: vcl(a, 'v1'),
      sourceId: 'v1',
      provider: 'samsara',
      status: 'active',
      name: 'Truck v1',
      vin: '1FUJGLDR7CLBP8834',
      make: 'Volvo',
      model: 'VNL',
      year: 2021,
      fuelType: 'diesel',
      licensePlate: { number: 'ABC-123', state: 'CA' },
      createdAt: '2024-01-02T03:04:05.000Z', // the provider's '…:05Z' in the wire format (decision 0017)
      groups: [g1],
      groupMembership: { status: 'available', scope: 'credential_visible_directory', sourceScope: 'credential_visible_reported_memberships', capturedAt: now, directoryFetchedAt: expect.any(String) },
      metadata: { addedAt: now, modifiedAt: now, visibility: 'visible' },
    });

    const one = await get(`${base}/${vcl(a, 'v1')}?scope=directory&expand=groups`, key.headers);
    expect(one.status).toBe(200);
    // The same Group a driver's expansion shows, parentResolution included (spec 2.2).
    expect((one.body as Json).groups).toEqual([
      { id: g1, sourceId: 'g1', provider: 'samsara', name: 'Group g1', metadata: { addedAt: now, modifiedAt: now, visibility: 'visible', parentResolution: 'root_or_unreported' } },
    ]);
    expect((await get(`${base}/${vcl(a, 'v1')}`, key.headers)).body).toMatchObject({ id: vcl(a, 'v1'), groups: [g1] });

    // Not a profile (unknown status), not stored, not a vcl_ id, a bad scope or expand.
    expect((await get(`${base}/${vcl(a, 'v3')}`, key.headers)).body).toEqual({ error: 'not_found' });
    expect((await get(`${base}/${vcl(a, 'nope')}`, key.headers)).status).toBe(404);
    expect((await get(`${base}/trk_1`, key.headers)).body).toEqual({ error: 'invalid_path' });
    expect((await get(`${base}/${vcl(a, 'v1')}?scope=provider`, key.headers)).body).toEqual({ error: 'invalid_query' });
    expect((await get(`${base}/${vcl(a, 'v1')}?expand=driver`, key.headers)).body).toEqual({ error: 'invalid_query' });
    expect((await get(`${base}?view=everything`, key.headers)).body).toEqual({ error: 'invalid_query' });
    expect((await get(`${base}?expand=groups`, key.headers)).body).toEqual({ error: 'invalid_query' });
    expect((await get(`${base}?limit=101`, key.headers)).body).toEqual({ error: 'invalid_query' });
  });

  it('pages with a stable horizon while batches commit; cursor misuse is invalid_cursor', async () => {
    const a = await readConnection(gw);
    const b = await readConnection(gw);
    const key = await readKey(gw, [a, b]);
    const now = new Date().toISOString();
    await ingest(gw, a, 'vehicles', ['p1', 'p2', 'p3', 'p4'].map((s) => vehicleRecord(s, now)));
    const base = `/v1/connections/${a}/vehicles`;

    const first = (await get(`${base}?view=profiles&limit=2`, key.headers)).body as ProfilePage;
    expect(first.results).toHaveLength(2);
    expect(first.next).toEqual(expect.any(String));
    // A batch commits between pages: the walk keeps the rows of its first page's horizon.
    await ingest(gw, a, 'vehicles', [vehicleRecord('p0', now), vehicleRecord('p9', now)]);
    const seen = [...first.results];
    let cursor = first.next;
    while (cursor) {
      const page = (await get(`${base}?view=profiles&limit=2&cursor=${encodeURIComponent(cursor)}`, key.headers)).body as ProfilePage;
      seen.push(...page.results);
      cursor = page.next;
    }
    expect(seen.map((v) => v.sourceId).sort()).toEqual(['p1', 'p2', 'p3', 'p4']);
    expect(seen.map((v) => v.id)).toEqual([...seen.map((v) => v.id as string)].sort());
    // A new walk sees them.
    expect(((await get(`${base}?view=profiles`, key.headers)).body as ProfilePage).results).toHaveLength(6);

    // Assets walk: nextCursor until null.
    const assetsFirst = (await get(`${base}?limit=4`, key.headers)).body as Assets;
    expect(assetsFirst.vehicles).toHaveLength(4);
    const assetsRest = (await get(`${base}?limit=4&cursor=${encodeURIComponent(assetsFirst.nextCursor!)}`, key.headers)).body as Assets;
    expect(assetsRest).toEqual({ vehicles: expect.any(Array), nextCursor: null });
    expect(assetsRest.vehicles).toHaveLength(2);

    const token = first.next!;
    const bad = async (path: string) => expect((await get(path, key.headers)).body).toEqual({ error: 'invalid_cursor' });
    await bad(`${base}?cursor=${encodeURIComponent(token)}`); // other view
    await bad(`/v1/connections/${b}/vehicles?view=profiles&cursor=${encodeURIComponent(token)}`); // other connection
    await bad(`${base}?view=profiles&cursor=${encodeURIComponent(`${token.slice(0, -2)}xx`)}`); // tampered
    await bad(`${base}?view=profiles&cursor=garbage`);
    const other = await readKey(gw, [a]);
    expect((await get(`${base}?view=profiles&cursor=${encodeURIComponent(token)}`, other.headers)).body).toEqual({ error: 'invalid_cursor' }); // other key
  });

  it('hides vehicles by include/exclude lists and status everywhere, and publishes the hidden set', async () => {
    const a = await readConnection(gw, { optIns: { groupInventory: false, vehicleMetadata: true, extendedTelemetry: false } });
    const key = await readKey(gw, [a]);
    const events: VehicleVisibilityChangedV1[] = [];
    const subscription: Subscription = await gw.bus.consume(
      { durable: `test-visibility-${a.slice(0, 8)}`, event: EVENTS.vehicleVisibility, filterSubject: subjectFor(EVENTS.vehicleVisibility.subject, a), ackWaitMs: 30_000, maxDeliver: 3, maxAckPending: 1 },
      async ({ payload }) => {
        events.push(payload);
      },
    );
    try {
      const now = new Date().toISOString();
      await ingest(gw, a, 'vehicles', [vehicleRecord('h1', now), vehicleRecord('h2', now, 'inactive'), vehicleRecord('h3', now)]);
      // The first set of a configured connection: nothing hidden.
      await pollUntil(async () => events.some((e) => e.hidden.length === 0), { timeoutMs: 15_000, description: 'initial visibility set' });

      await configureReads(gw, a, { excludeVehicleIds: ['h3'], includeStatuses: ['active'] });
      await pollUntil(async () => events.some((e) => e.hidden.length === 2), { timeoutMs: 15_000, description: 'visibility set after the config change' });
      const latest = events.reduce((x, y) => (BigInt(y.sequence) > BigInt(x.sequence) ? y : x));
      expect(latest).toMatchObject({ connectionId: a, hidden: [
        { vehicleId: vcl(a, 'h2'), sourceId: 'h2', visibility: 'hidden_by_status' },
        { vehicleId: vcl(a, 'h3'), sourceId: 'h3', visibility: 'hidden_by_exclude_list' },
      ].sort((x, y) => x.vehicleId.localeCompare(y.vehicleId)) });
      // Under a status filter the set lists the stored vehicles it shows too (decision 0029): a vehicle in neither list was never stored here and stays hidden in every context.
      // mutation: VehicleVisibilityService computing no `shown` → absent here → this fails.
      expect(latest.shown).toEqual([vcl(a, 'h1')]);
      expect(events.find((e) => e.hidden.length === 0)).not.toHaveProperty('shown');

      const base = `/v1/connections/${a}/vehicles`;
      expect(((await get(base, key.headers)).body as Assets).vehicles.map((v) => v.provider_id)).toEqual(['h1']);
      expect(((await get(`${base}?view=profiles`, key.headers)).body as ProfilePage).results.map((v) => v.sourceId)).toEqual(['h1']);
      for (const hidden of ['h2', 'h3']) {
        expect((await get(`${base}/${vcl(a, hidden)}`, key.headers)).body).toEqual({ error: 'not_found' });
        expect((await get(`${base}/${vcl(a, hidden)}/metadata`, key.headers)).body).toEqual({ error: 'not_found' });
      }

      // An ingest that changes the set (h1 turns inactive) publishes again.
      const before = events.length;
      await ingest(gw, a, 'vehicles', [vehicleRecord('h1', new Date().toISOString(), 'inactive')]);
      await pollUntil(async () => events.slice(before).some((e) => e.hidden.length === 3), { timeoutMs: 15_000, description: 'visibility set after an ingest' });
      expect(((await get(base, key.headers)).body as Assets).vehicles).toEqual([]);

      // A status derived from the roster (Samsara) meets the status rule as a reported one does: each
      // ingest here is a complete pass of its own, so s1 is active, then inactive once a pass without
      // it completes — hidden, and in the published set for the other contexts (decision 0011).
      // mutation: the directory's follow() after a roster change removed → s1 stays active → this fails.
      await ingest(gw, a, 'vehicles', [statuslessVehicle('s1', new Date().toISOString(), 'unsupported')]);
      expect(((await get(`${base}?view=profiles`, key.headers)).body as ProfilePage).results.map((v) => [v.sourceId, v.status])).toEqual([['s1', 'active']]);
      const delisted = events.length;
      await ingest(gw, a, 'vehicles', [vehicleRecord('h1', new Date().toISOString(), 'inactive')]);
      const s1Hidden = (e: VehicleVisibilityChangedV1) => e.hidden.some((h) => h.sourceId === 's1' && h.visibility === 'hidden_by_status');
      await pollUntil(async () => events.slice(delisted).some(s1Hidden), { timeoutMs: 15_000, description: 'derived inactive status in the visibility set' });
      expect(((await get(`${base}?view=profiles`, key.headers)).body as ProfilePage).results).toEqual([]);
    } finally {
      await subscription.drain();
    }
  });

  it('serves metadata: disabled, pending, available per provider, invalid cells, not_in_current_roster, stale', async () => {
    const off = await readConnection(gw);
    const offKey = await readKey(gw, [off]);
    await ingest(gw, off, 'vehicles', [vehicleRecord('m1', new Date().toISOString())]);
    expect((await get(`/v1/connections/${off}/vehicles/${vcl(off, 'm1')}/metadata`, offKey.headers)).body).toEqual({
      vehicleId: vcl(off, 'm1'),
      status: 'disabled',
      data: null,
      fetchedAt: null,
      rosterSeenAt: null,
      retrieval: 'stored',
    });

    const optIn = { optIns: { groupInventory: false, vehicleMetadata: true, extendedTelemetry: false } };
    const sources: Record<Provider, string> = { samsara: 'samsara:vehicles', motive: 'motive:vehicles', geotab: 'geotab:Device' };
    for (const provider of ['samsara', 'motive', 'geotab'] as const) {
      const c = await readConnection(gw, optIn, provider);
      const key = await readKey(gw, [c]);
      const path = (s: string) => `/v1/connections/${c}/vehicles/${vcl(c, s, provider)}/metadata`;
      expect((await get(path('m1'), key.headers)).body).toMatchObject({ status: 'pending', data: null });

      const t1 = ago(2);
      const broken = vehicleRecord('m2', t1, 'active', provider);
      const m2 = { ...broken, metadata: { ...broken.metadata, year: available(1700, 'test:year'), make: available('x'.repeat(1025), 'test:make'), providerStatus: { status: 'unsupported', value: null, source: '' } } };
      await ingest(gw, c, 'vehicles', [vehicleRecord('m1', t1, 'active', provider), m2 as typeof broken], { provider, fetchedAt: t1 });
      const m1 = await get(path('m1'), key.headers);
      expect(m1.body).toMatchObject({ vehicleId: vcl(c, 'm1', provider), status: 'available', fetchedAt: t1, rosterSeenAt: t1, retrieval: 'stored', data: { version: 1, source: sources[provider] } });
      const fields = (m1.body as { data: { fields: Json } }).data.fields;
      expect(Object.keys(fields).sort()).toHaveLength(15);
      expect(fields.make).toEqual({ status: 'available', value: 'Volvo', source: 'test:field' });
      expect(fields.year).toEqual({ status: 'available', value: 2021, source: 'test:field' });
      expect(fields.serialNumber).toEqual({ status: 'missing', value: null, source: 'test:field.serialNumber' });
      expect(fields.groups).toEqual({ status: 'available', value: [{ id: 'g1', name: 'Group g1' }], source: 'test:field' });
      const m2Fields = ((await get(path('m2'), key.headers)).body as { data: { fields: Json } }).data.fields;
      expect(m2Fields.year).toEqual({ status: 'invalid', value: null, source: 'test:year' });
      expect(m2Fields.make).toEqual({ status: 'invalid', value: null, source: 'test:make' });
      expect(m2Fields.providerStatus).toEqual({ status: 'unsupported', value: null, source: sources[provider] });

      // A later complete pass without m2: m2 is stored but not in the current roster; an unknown id is 404 now.
      const t2 = ago(1);
      await ingest(gw, c, 'vehicles', [vehicleRecord('m1', t2, 'active', provider)], { provider, fetchedAt: t2 });
      expect((await get(path('m2'), key.headers)).body).toMatchObject({ status: 'not_in_current_roster', rosterSeenAt: t1 });
      expect((await get(path('m1'), key.headers)).body).toMatchObject({ status: 'available', rosterSeenAt: t2 });
      expect((await get(path('never'), key.headers)).body).toEqual({ error: 'not_found' });
      expect((await get(`${path('m1')}?x=1`, key.headers)).body).toEqual({ error: 'invalid_query' });
    }

    const old = await readConnection(gw, optIn);
    const oldKey = await readKey(gw, [old]);
    const t = ago(60);
    await ingest(gw, old, 'vehicles', [vehicleRecord('s1', t)], { fetchedAt: t });
    expect((await get(`/v1/connections/${old}/vehicles/${vcl(old, 's1')}/metadata`, oldKey.headers)).body).toMatchObject({ status: 'stale', fetchedAt: t });
    // The profile page has no stale: old data is available, publishedAt tells its age; a failure degrades it.
    expect((await get(`/v1/connections/${old}/vehicles?view=profiles`, oldKey.headers)).body).toMatchObject({ status: 'available', errorCode: null });
    await reportHealth(gw, old, 'failure', 'provider_throttled');
    expect((await get(`/v1/connections/${old}/vehicles?view=profiles`, oldKey.headers)).body).toMatchObject({ status: 'degraded', errorCode: 'provider_throttled', results: [expect.objectContaining({ sourceId: 's1' })] });
  });

  describe('metadata roster: the last complete vehicles pass (decisions 0011, 0014)', () => {
    const optIn = { optIns: { groupInventory: false, vehicleMetadata: true, extendedTelemetry: false } };
    const setUp = async () => {
      const c = await readConnection(gw, optIn);
      const key = await readKey(gw, [c]);
      return { c, metadata: async (s: string) => (await get(`/v1/connections/${c}/vehicles/${vcl(c, s)}/metadata`, key.headers)).body };
    };

    it("keeps a vehicle first seen by an unfinished pass pending until that pass's final page commits", async () => {
      const { c, metadata } = await setUp();
      const t1 = ago(4);
      await ingest(gw, c, 'vehicles', [vehicleRecord('r1', t1)], { fetchedAt: t1 });
      // A newer pass's first page carries n1: fetched after the last complete pass started, yet in no complete roster.
      const second = newUnit();
      const t2 = ago(3);
      await ingest(gw, c, 'vehicles', [vehicleRecord('n1', t2), vehicleRecord('r1', t2)], { fetchedAt: t2, unit: second, page: 'start', final: false });
      expect(await metadata('n1')).toEqual({ vehicleId: vcl(c, 'n1'), status: 'pending', data: null, fetchedAt: null, rosterSeenAt: null, retrieval: 'stored' });
      // r1's newest version is the unfinished pass's; its roster time stays the complete pass's final page.
      expect(await metadata('r1')).toMatchObject({ status: 'available', fetchedAt: t2, rosterSeenAt: t1 });

      const t3 = ago(2);
      await ingest(gw, c, 'vehicles', [vehicleRecord('n2', t3)], { fetchedAt: t3, unit: second, page: 'last' });
      expect(await metadata('n1')).toMatchObject({ status: 'available', fetchedAt: t2, rosterSeenAt: t3, data: { version: 1, source: 'samsara:vehicles' } });
      expect(await metadata('n2')).toMatchObject({ status: 'available', rosterSeenAt: t3 });
      expect(await metadata('r1')).toMatchObject({ status: 'available', rosterSeenAt: t3 });
    });

    it('marks a vehicle a newer complete pass dropped not_in_current_roster, only once that pass completes', async () => {
      const { c, metadata } = await setUp();
      const t1 = ago(4);
      await ingest(gw, c, 'vehicles', [vehicleRecord('k1', t1), vehicleRecord('d1', t1)], { fetchedAt: t1 });
      const second = newUnit();
      const t2 = ago(3);
      await ingest(gw, c, 'vehicles', [vehicleRecord('k1', t2)], { fetchedAt: t2, unit: second, page: 'start', final: false });
      // The unfinished pass has not carried d1 (yet): d1 is still in the current roster.
      expect(await metadata('d1')).toMatchObject({ status: 'available', fetchedAt: t1, rosterSeenAt: t1 });

      const t3 = ago(2);
      await ingest(gw, c, 'vehicles', [], { fetchedAt: t3, unit: second, page: 'last' });
      expect(await metadata('d1')).toMatchObject({ status: 'not_in_current_roster', fetchedAt: t1, rosterSeenAt: t1, data: { version: 1, source: 'samsara:vehicles' } });
      expect(await metadata('k1')).toMatchObject({ status: 'available', rosterSeenAt: t3 });

      // An older pass finishing late never replaces the newer roster; a newer complete pass listing d1 brings it back.
      await ingest(gw, c, 'vehicles', [vehicleRecord('d1', t1)], { fetchedAt: ago(5) });
      expect(await metadata('d1')).toMatchObject({ status: 'not_in_current_roster', rosterSeenAt: t1 });
      const t4 = ago(1);
      await ingest(gw, c, 'vehicles', [vehicleRecord('d1', t4)], { fetchedAt: t4 });
      expect(await metadata('d1')).toMatchObject({ status: 'available', fetchedAt: t4, rosterSeenAt: t4 });
      expect(await metadata('k1')).toMatchObject({ status: 'not_in_current_roster', rosterSeenAt: t3 });
    });
  });

  it("never serves another connection's vehicles: ids, cursors or expansions of B through a key granted on A are 404", async () => {
    const a = await readConnection(gw, { optIns: { groupInventory: false, vehicleMetadata: true, extendedTelemetry: false } });
    const b = await readConnection(gw, { optIns: { groupInventory: false, vehicleMetadata: true, extendedTelemetry: false } });
    const now = new Date().toISOString();
    await ingest(gw, b, 'groups', [groupRecord('g1', now)]);
    await ingest(gw, b, 'vehicles', [vehicleRecord('b1', now)]);
    await ingest(gw, a, 'vehicles', [vehicleRecord('a1', now)]);
    const keyA = await readKey(gw, [a]);
    const keyB = await readKey(gw, [b]);
    const bVehicle = vcl(b, 'b1');
    for (const path of [`/v1/connections/${a}/vehicles/${bVehicle}`, `/v1/connections/${a}/vehicles/${bVehicle}?expand=groups`, `/v1/connections/${a}/vehicles/${bVehicle}/metadata`]) {
      const res = await get(path, keyA.headers);
      expect(res.status).toBe(404);
      expect(res.text).not.toContain('b1');
    }
    for (const path of [`/v1/connections/${b}/vehicles`, `/v1/connections/${b}/vehicles/${bVehicle}`, `/v1/connections/${b}/vehicles/${bVehicle}/metadata`]) {
      expect((await get(path, keyA.headers)).body).toEqual({ error: 'not_found' });
    }
    // B's cursor replayed by A's key on A's connection.
    await ingest(gw, b, 'vehicles', [vehicleRecord('b2', now)]);
    const bPage = (await get(`/v1/connections/${b}/vehicles?view=profiles&limit=1`, keyB.headers)).body as ProfilePage;
    expect(bPage.next).toEqual(expect.any(String));
    expect((await get(`/v1/connections/${a}/vehicles?view=profiles&limit=1&cursor=${encodeURIComponent(bPage.next!)}`, keyA.headers)).body).toEqual({ error: 'invalid_cursor' });
    // A's own listing never shows B's vehicles or groups.
    const aPage = await get(`/v1/connections/${a}/vehicles?view=profiles&expand=groups`, keyA.headers);
    expect((aPage.body as ProfilePage).results.map((v) => v.sourceId)).toEqual(['a1']);
    expect(aPage.text).not.toContain(groupId({ connectionId: b, provider: 'samsara', sourceId: 'g1' }));
  });
});

describe('stored vehicle profiles under a small response byte limit', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    // Results budget = limit - 16 KiB envelope reserve: about two profiles per page.
    gw = await startTestGateway({ directory: true, responseByteLimit: 16_384 + 1_800 });
  }, 60_000);
  afterAll(() => gw?.close());

  it('ends a page at the byte budget and continues with next', async () => {
    const a = await readConnection(gw);
    const key = await readKey(gw, [a]);
    const now = new Date().toISOString();
    await ingest(gw, a, 'vehicles', ['b1', 'b2', 'b3', 'b4', 'b5'].map((s) => vehicleRecord(s, now)));
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await gw.call('GET', `/v1/connections/${a}/vehicles?view=profiles${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers: key.headers });
      expect(Buffer.byteLength(res.text)).toBeLessThanOrEqual(16_384 + 1_800);
      const page = res.body as ProfilePage;
      expect(page.results.length).toBeLessThan(5);
      seen.push(...page.results.map((v) => v.sourceId as string));
      cursor = page.next;
      pages += 1;
    } while (cursor);
    expect(seen.sort()).toEqual(['b1', 'b2', 'b3', 'b4', 'b5']);
    expect(pages).toBeGreaterThan(1);
  });
});

/**
 * The three providers' simulators (built `sandbox/dist`, fixed clock), read through each provider's
 * real adapter — the collectors' mapping — and published as directory batches: every vehicle and
 * every metadata cell the API serves is the adapter's record, within the spec's bounds.
 */
describe('vehicles of the provider simulators', () => {
  const secret = `sim-${randomBytes(8).toString('hex')}`;
  const sims: NodeProcess[] = [];
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ directory: true });
  }, 60_000);
  afterAll(async () => {
    await Promise.all(sims.map((s) => s.kill()));
    await gw?.close();
  });

  const env = { SIM_VEHICLES: '3', SIM_SEED: 'vehicle-reads', SIM_CLOCK_FACTOR: '0' };
  const adapters: Record<Provider, (url: string) => ProviderAdapter> = {
    samsara: (baseUrl) => createSamsaraAdapter({ provider: 'samsara', baseUrl, credentials: { apiToken: secret } }),
    motive: (baseUrl) => createMotiveAdapter({ provider: 'motive', baseUrl, credentials: { apiKey: secret } }),
    geotab: (baseUrl) => createGeotabAdapter({ provider: 'geotab', baseUrl, credentials: { database: 'switchyard_demo', userName: 'sandbox@switchyard.example', password: secret } }),
  };
  const simEnv: Record<Provider, Record<string, string>> = { samsara: { SAMSARA_API_TOKENS: secret }, motive: { MOTIVE_API_KEYS: secret }, geotab: { GEOTAB_PASSWORD: secret } };
  const sources: Record<Provider, string> = { samsara: 'samsara:vehicles', motive: 'motive:vehicles', geotab: 'geotab:Device' };

  it.each(['samsara', 'motive', 'geotab'] as const)('serves %s vehicles and all 15 metadata cells as the adapter mapped them', async (provider) => {
    const { process: sim, url } = await spawnSimulator(provider, { ...env, ...simEnv[provider] });
    sims.push(sim);
    const adapter = adapters[provider](url);
    const vehicles = (await collectPages((c) => adapter.vehicles(c), 20)).items;
    const groups = (await collectPages((c) => adapter.groups(c), 20)).items;
    expect(vehicles.length).toBeGreaterThan(0);

    const c = await readConnection(gw, { optIns: { groupInventory: false, vehicleMetadata: true, extendedTelemetry: false } }, provider);
    const key = await readKey(gw, [c]);
    if (groups.length > 0) await ingest(gw, c, 'groups', groups as GroupRecordV1[], { provider });
    await ingest(gw, c, 'vehicles', vehicles as VehicleRecordV1[], { provider });

    const assets = (await getOn(gw, `/v1/connections/${c}/vehicles`, key.headers)).body as Assets;
    expect(assets.vehicles.map((v) => v.provider_id).sort()).toEqual(vehicles.map((v) => v.sourceId).sort());
    const profiles = (await getOn(gw, `/v1/connections/${c}/vehicles?view=profiles&expand=groups`, key.headers)).body as ProfilePage;
    expect(profiles.status).toBe('available');
    // Profiles: vehicles with a known status — a reported one, or, where the provider supplies none
    // (Samsara, cell `unsupported`), the one derived from the roster: the batch was a complete pass
    // listing them all, so `active` (decision 0011). A missing or invalid status is unknown: no profile.
    const derived = (r: (typeof vehicles)[number]) => r.metadata.status.status === 'unsupported';
    const withStatus = vehicles.filter((v) => v.metadata.status.status === 'available' || derived(v));
    expect(profiles.results.map((v) => v.sourceId).sort()).toEqual(withStatus.map((v) => v.sourceId).sort());
    for (const v of profiles.results) {
      const record = vehicles.find((r) => r.sourceId === v.sourceId)!;
      expect(v.status).toBe(record.metadata.status.status === 'available' ? record.metadata.status.value : 'active');
    }
    if (provider === 'samsara') {
      // mutation: no roster-derived status in the directory → no profiles and 404 by id → this fails.
      expect(profiles.results).toHaveLength(vehicles.length);
      for (const v of vehicles) {
        const one = await getOn(gw, `/v1/connections/${c}/vehicles/${vcl(c, v.sourceId, provider)}?scope=directory`, key.headers);
        expect({ status: one.status, vehicle: one.body }).toMatchObject({ status: 200, vehicle: { sourceId: v.sourceId, status: 'active' } });
      }
      // The status visibility rule applies to a derived status as to a reported one.
      await configureReads(gw, c, { includeStatuses: ['inactive'] });
      expect(((await getOn(gw, `/v1/connections/${c}/vehicles?view=profiles`, key.headers)).body as ProfilePage).results).toEqual([]);
      expect((await getOn(gw, `/v1/connections/${c}/vehicles/${vcl(c, vehicles[0]!.sourceId, provider)}`, key.headers)).status).toBe(404);
      await configureReads(gw, c, { includeStatuses: ['active'] });
      expect(((await getOn(gw, `/v1/connections/${c}/vehicles?view=profiles`, key.headers)).body as ProfilePage).results).toHaveLength(vehicles.length);
    }

    let availableCells = 0;
    let servedTimes = 0;
    for (const record of vehicles) {
      const res = await getOn(gw, `/v1/connections/${c}/vehicles/${vcl(c, record.sourceId, provider)}/metadata`, key.headers);
      expect(res.status).toBe(200);
      const body = res.body as { status: string; data: { source: string; fields: Record<string, { status: string; value: unknown; source: string }> } };
      expect(body.status).toBe('available');
      expect(body.data.source).toBe(sources[provider]);
      expect(Object.keys(body.data.fields).sort()).toEqual([...VEHICLE_METADATA_KEYS].sort());
      for (const k of VEHICLE_METADATA_KEYS) {
        const stored = record.metadata[k];
        const served = body.data.fields[k]!;
        if (k === 'status' && stored.status === 'unsupported') {
          // Derived, and the cell says so (decision 0011).
          expect(served).toEqual({ status: 'available', value: 'active', source: `${sources[provider]}(derived_from_roster)` });
          continue;
        }
        if (served.status === 'available') availableCells += 1;
        if (served.status === 'available' && TIME_CELLS.has(k)) servedTimes += 1;
        if (stored.status === 'available' && served.status === 'available') {
          // Times in the one wire format whatever the provider sent (Samsara whole seconds, others milliseconds or offsets; decision 0017).
          if (TIME_CELLS.has(k)) expect({ k, value: served.value }).toEqual({ k, value: toWireDateTime(stored.value as string) });
          else expect(served.value).toEqual(stored.value);
        }
        else if (stored.status !== 'available') expect(served).toEqual({ status: stored.status, value: null, source: stored.source || sources[provider] });
        else expect(served.status).toBe('invalid'); // stored but outside the spec's bounds
      }
    }
    // The simulators report make, model, year and more: the comparison above is not vacuous.
    expect(availableCells).toBeGreaterThan(vehicles.length * 3);
    expect(servedTimes).toBeGreaterThan(0);
  });
});

async function getOn(gw: TestGateway, path: string, headers: Record<string, string>) {
  return gw.call('GET', path, { headers });
}
