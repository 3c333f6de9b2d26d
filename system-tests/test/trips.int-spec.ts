/**
 * GET /v1/connections/{id}/trips and …/trips/{tripId} over HTTP against a real gateway and a real
 * directory (PostgreSQL + NATS JetStream), every response validated against the committed OpenAPI
 * document. Data enters through the directory's ingest consumer (the collectors' path).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { driverId, tripId, vehicleId } from '@switchyard/domain';
import { configureReads, driverRecord, ingest, readConnection, readKey, reportHealth, tripRecord, vehicleRecord } from './reads-fixture.js';
import { expectError, startTestGateway, type TestGateway } from './support.js';

type Page = { status: string; results: (Record<string, unknown> & { sourceId: string })[]; next?: string; publishedAt: string | null; errorCode: string | null; coverage: { completedUnits: number } };

describe('stored trips', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ directory: true });
  }, 60_000);
  afterAll(() => gw?.close());

  const list = async (connectionId: string, headers: Record<string, string>, query = '') => gw.call('GET', `/v1/connections/${connectionId}/trips${query}`, { headers });

  it('is pending before any trip is committed, then serves the stored trips with expansion', async () => {
    const connectionId = await readConnection(gw);
    const key = await readKey(gw, [connectionId]);
    const first = await list(connectionId, key.headers);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ status: 'pending', retrieval: 'stored', results: [], coverage: { completedUnits: 0, selection: 'completed_trips_started_in_window', completeness: 'not_established' }, publishedAt: null, errorCode: null });

    const now = new Date().toISOString();
    await ingest(gw, connectionId, 'vehicles', [vehicleRecord('v1', now)]);
    await ingest(gw, connectionId, 'drivers', [driverRecord('d1', now)]);
    await ingest(gw, connectionId, 'trips', [tripRecord('t1', 'v1', '2026-11-01T08:00:00.000Z', now), tripRecord('t2', 'v1', '2026-11-01T10:00:00.000Z', now, { distanceKm: { status: 'invalid', value: null, source: 'x', reason: 'negative' }, driverSourceId: null })]);
    const ref = { connectionId, provider: 'samsara' as const };
    const page = await list(connectionId, key.headers);
    expect(page.status).toBe(200);
    const body = page.body as Page;
    expect(body.status).toBe('available');
    expect(body.coverage.completedUnits).toBe(1);
    expect(body.publishedAt).toEqual(expect.any(String));
    expect(body.results).toEqual([
      {
        id: tripId({ ...ref, sourceId: 't1' }),
        sourceId: 't1',
        provider: 'samsara',
        vehicle: vehicleId({ ...ref, sourceId: 'v1' }),
        driver: driverId({ ...ref, sourceId: 'd1' }),
        startedAt: '2026-11-01T08:00:00.000Z',
        endedAt: '2026-11-01T08:30:00.000Z',
        duration: 1_800_000,
        distance: 12.5,
        startLocation: { latitude: 37.77, longitude: -122.42 },
        metadata: { addedAt: now, modifiedAt: now },
      },
      expect.objectContaining({ id: tripId({ ...ref, sourceId: 't2' }) }),
    ]);
    expect(body.results[1]).not.toHaveProperty('distance');
    expect(body.results[1]).not.toHaveProperty('driver');

    const expanded = await gw.call('GET', `/v1/connections/${connectionId}/trips/${tripId({ ...ref, sourceId: 't1' })}?expand=vehicle,driver`, { headers: key.headers });
    expect(expanded.status).toBe(200);
    expect(expanded.body).toMatchObject({
      vehicle: { id: vehicleId({ ...ref, sourceId: 'v1' }), status: 'active', make: 'Volvo', year: 2021, licensePlate: { number: 'ABC-123', state: 'CA' }, metadata: { visibility: 'visible' } },
      driver: { id: driverId({ ...ref, sourceId: 'd1' }), firstName: 'Ada', license: { number: 'D123', state: 'CA' } },
    });
  });

  it('sends a page of 100 trips compressed, and revalidates it with its ETag: 304 while unchanged, a new tag once a trip commits (decision 0017)', async () => {
    const connectionId = await readConnection(gw);
    const key = await readKey(gw, [connectionId]);
    const now = new Date().toISOString();
    const trips = Array.from({ length: 100 }, (_, i) => tripRecord(`z${String(i).padStart(3, '0')}`, `v${i % 7}`, new Date(Date.UTC(2026, 10, 3, 0, i)).toISOString(), now));
    await ingest(gw, connectionId, 'trips', trips);
    const headers = { ...key.headers, 'accept-encoding': 'gzip' };
    const page = await list(connectionId, headers);
    expect(page.status).toBe(200);
    expect((page.body as Page).results).toHaveLength(100);
    expect({ coding: page.headers.get('content-encoding'), vary: page.headers.get('vary'), cache: page.headers.get('cache-control') }).toEqual({ coding: 'gzip', vary: 'Accept-Encoding', cache: 'private, no-cache' });
    // fetch undid the gzip; the bytes on the wire were far fewer than the JSON.
    expect(Number(page.headers.get('content-length'))).toBeLessThan(Buffer.byteLength(page.text) / 4);
    const tag = String(page.headers.get('etag'));
    expect(tag).toMatch(/^W\/"/);

    const unchanged = await list(connectionId, { ...headers, 'if-none-match': tag });
    expect({ status: unchanged.status, text: unchanged.text, etag: unchanged.headers.get('etag') }).toEqual({ status: 304, text: '', etag: tag });

    await ingest(gw, connectionId, 'trips', [tripRecord('z-new', 'v1', '2026-11-03T00:00:30.000Z', now)]);
    const changed = await list(connectionId, { ...headers, 'if-none-match': tag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(tag);
  });

  it('filters by window, vehicle and driver ids, and refuses bad queries and ids', async () => {
    const connectionId = await readConnection(gw);
    const key = await readKey(gw, [connectionId]);
    const now = new Date().toISOString();
    await ingest(gw, connectionId, 'trips', [
      tripRecord('a', 'v1', '2026-11-01T08:00:00.000Z', now),
      tripRecord('b', 'v2', '2026-11-01T09:00:00.000Z', now, { driverSourceId: 'd2' }),
      tripRecord('c', 'v1', '2026-11-02T08:00:00.000Z', now),
    ]);
    const ref = { connectionId, provider: 'samsara' as const };
    const ids = async (query: string) => {
      const res = await list(connectionId, key.headers, query);
      expect(res.status).toBe(200);
      return (res.body as Page).results.map((t) => t.sourceId);
    };
    expect(await ids('')).toEqual(['a', 'b', 'c']);
    expect(await ids('?from=2026-11-01T09:00:00Z&to=2026-11-02T08:00:00Z')).toEqual(['b']);
    expect(await ids('?from=2026-11-01T09:00:00.001Z')).toEqual(['c']);
    expect(await ids(`?vehicleIds=${vehicleId({ ...ref, sourceId: 'v1' })}`)).toEqual(['a', 'c']);
    expect(await ids(`?driverIds=${driverId({ ...ref, sourceId: 'd2' })},${driverId({ ...ref, sourceId: 'nobody' })}`)).toEqual(['b']);
    expect(await ids(`?vehicleIds=${vehicleId({ ...ref, sourceId: 'v2' })}&driverIds=${driverId({ ...ref, sourceId: 'd1' })}`)).toEqual([]);

    const fifty = Array.from({ length: 50 }, (_, i) => vehicleId({ ...ref, sourceId: `x${i}` }));
    expect(await ids(`?vehicleIds=${fifty.join(',')}`)).toEqual([]);
    const bad = [
      `?vehicleIds=${[...fifty, vehicleId({ ...ref, sourceId: 'x50' })].join(',')}`,
      `?driverIds=${Array.from({ length: 51 }, (_, i) => driverId({ ...ref, sourceId: `d${i}` })).join(',')}`,
      '?vehicleIds=vcl_nope',
      `?vehicleIds=${driverId({ ...ref, sourceId: 'd1' })}`,
      `?vehicleIds=${vehicleId({ ...ref, sourceId: 'v1' })}&vehicleIds=${vehicleId({ ...ref, sourceId: 'v2' })}`,
      '?limit=0',
      '?limit=101',
      '?limit=1.5',
      '?from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z',
      '?from=yesterday',
      // Lowercase t/z is accepted like startFrom's (issue 18 item 8; query-params.int-spec.ts).
      '?from=0000-01-01T00:00:00Z',
      '?expand=fleet',
      '?unknown=1',
    ];
    for (const query of bad) expectError(await list(connectionId, key.headers, query), 400, 'invalid_query');

    expectError(await gw.call('GET', `/v1/connections/${connectionId}/trips/trp_123`, { headers: key.headers }), 400, 'invalid_path');
    expectError(await gw.call('GET', `/v1/connections/${connectionId}/trips/${tripId({ ...ref, sourceId: 'zzz' })}`, { headers: key.headers }), 404, 'not_found');
    expectError(await gw.call('GET', `/v1/connections/${connectionId}/trips/${tripId({ ...ref, sourceId: 'a' })}?expand=nope`, { headers: key.headers }), 400, 'invalid_query');
  });

  it('walks pages without skipping or repeating a trip while batches are committed, and refuses misused cursors', async () => {
    const connectionId = await readConnection(gw);
    const other = await readConnection(gw);
    const key = await readKey(gw, [connectionId, other]);
    const fetchedAt = new Date(Date.now() - 60_000).toISOString();
    const day = (h: number) => `2026-11-03T${String(h).padStart(2, '0')}:00:00.000Z`;
    const original = Array.from({ length: 9 }, (_, i) => tripRecord(`t${i + 1}`, `v${i % 3}`, day(i + 2), fetchedAt));
    await ingest(gw, connectionId, 'trips', original);

    const first = await list(connectionId, key.headers, '?limit=4');
    const p1 = first.body as Page;
    expect(p1.results.map((t) => t.sourceId)).toEqual(['t1', 't2', 't3', 't4']);
    expect(p1.next).toEqual(expect.stringMatching(/^[A-Za-z0-9_-]+$/));

    // Concurrent writes: new trips before, between and after the cursor, and a changed trip not yet served.
    const later = new Date().toISOString();
    await ingest(gw, connectionId, 'trips', [
      tripRecord('new-early', 'v0', day(1), later),
      tripRecord('new-middle', 'v0', '2026-11-03T07:30:00.000Z', later),
      tripRecord('new-late', 'v0', day(20), later),
      tripRecord('t6', 'v2', day(7), later, { distanceKm: { status: 'available', value: 99, source: 'test:changed' } }),
    ]);

    const seen = [...p1.results];
    let cursor = p1.next;
    while (cursor) {
      const res = await list(connectionId, key.headers, `?limit=4&cursor=${cursor}`);
      expect(res.status).toBe(200);
      const page = res.body as Page;
      seen.push(...page.results);
      cursor = page.next;
    }
    expect(seen.map((t) => t.sourceId)).toEqual(original.map((t) => t.sourceId));
    expect(seen.find((t) => t.sourceId === 't6')).toMatchObject({ distance: 99 });
    // A new walk sees the new trips.
    expect(((await list(connectionId, key.headers)).body as Page).results).toHaveLength(12);

    // Misuse: other filters, another connection, garbage, a grant change.
    expectError(await list(connectionId, key.headers, `?limit=4&from=2026-01-01T00:00:00Z&cursor=${p1.next}`), 400, 'invalid_cursor');
    expectError(await list(connectionId, key.headers, `?vehicleIds=${vehicleId({ connectionId, provider: 'samsara', sourceId: 'v1' })}&cursor=${p1.next}`), 400, 'invalid_cursor');
    expectError(await list(other, key.headers, `?limit=4&cursor=${p1.next}`), 400, 'invalid_cursor');
    expectError(await list(connectionId, key.headers, '?cursor=garbage'), 400, 'invalid_cursor');
    expectError(await list(connectionId, key.headers, `?cursor=${p1.next!.slice(0, -2)}`), 400, 'invalid_cursor');
    const otherKey = await readKey(gw, [connectionId]);
    expectError(await list(connectionId, otherKey.headers, `?limit=4&cursor=${p1.next}`), 400, 'invalid_cursor');
    // expand and limit are not filters: changing them keeps the cursor valid.
    expect((await list(connectionId, key.headers, `?limit=2&expand=vehicle&cursor=${p1.next}`)).status).toBe(200);
    await gw.credentials.grantConsumer(key.id, connectionId, ['read']);
    expectError(await list(connectionId, key.headers, `?limit=4&cursor=${p1.next}`), 400, 'invalid_cursor');
  });

  it('reports degraded with the provider code after a failure and serves the stored trips, available again after a success', async () => {
    const connectionId = await readConnection(gw);
    const key = await readKey(gw, [connectionId]);
    await reportHealth(gw, connectionId, 'failure', 'provider_auth_required');
    expect((await list(connectionId, key.headers)).body).toMatchObject({ status: 'degraded', errorCode: 'provider_auth_required', results: [], publishedAt: null });
    await ingest(gw, connectionId, 'trips', [tripRecord('t1', 'v1', '2026-11-04T08:00:00.000Z', new Date().toISOString())]);
    await reportHealth(gw, connectionId, 'failure', 'provider_throttled');
    const degraded = (await list(connectionId, key.headers)).body as Page;
    expect(degraded).toMatchObject({ status: 'degraded', errorCode: 'provider_throttled' });
    expect(degraded.results.map((t) => t.sourceId)).toEqual(['t1']);
    await reportHealth(gw, connectionId, 'success');
    expect((await list(connectionId, key.headers)).body).toMatchObject({ status: 'available', errorCode: null });
  });

  it("reports each dataset's own health: a refused trips fetch degrades trips while vehicles stay available", async () => {
    const connectionId = await readConnection(gw);
    const key = await readKey(gw, [connectionId]);
    const now = new Date().toISOString();
    await ingest(gw, connectionId, 'vehicles', [vehicleRecord('v1', now)]);
    await ingest(gw, connectionId, 'trips', [tripRecord('t1', 'v1', '2026-11-06T08:00:00.000Z', now)]);
    const profiles = async () => (await gw.call('GET', `/v1/connections/${connectionId}/vehicles?view=profiles`, { headers: key.headers })).body;

    await reportHealth(gw, connectionId, 'failure', 'provider_scope_mismatch', ['trips']);
    await reportHealth(gw, connectionId, 'success', null, ['vehicles']);
    expect((await list(connectionId, key.headers)).body).toMatchObject({ status: 'degraded', errorCode: 'provider_scope_mismatch', results: [expect.objectContaining({ sourceId: 't1' })] });
    expect(await profiles()).toMatchObject({ status: 'available', errorCode: null, results: [expect.objectContaining({ sourceId: 'v1' })] });

    // A vehicles failure does not clear the trips one, and a trips success does not clear the vehicles one.
    await reportHealth(gw, connectionId, 'failure', 'provider_unavailable', ['vehicles']);
    await reportHealth(gw, connectionId, 'success', null, ['trips']);
    expect((await list(connectionId, key.headers)).body).toMatchObject({ status: 'available', errorCode: null });
    expect(await profiles()).toMatchObject({ status: 'degraded', errorCode: 'provider_unavailable' });
  });

  it('never shows trips of hidden vehicles, by list, by id or by expansion', async () => {
    const connectionId = await readConnection(gw);
    const key = await readKey(gw, [connectionId]);
    const now = new Date().toISOString();
    await ingest(gw, connectionId, 'vehicles', [vehicleRecord('v1', now), vehicleRecord('v2', now, 'inactive'), vehicleRecord('v3', now)]);
    await ingest(gw, connectionId, 'trips', [
      tripRecord('t1', 'v1', '2026-11-05T08:00:00.000Z', now),
      tripRecord('t2', 'v2', '2026-11-05T09:00:00.000Z', now),
      tripRecord('t3', 'v3', '2026-11-05T10:00:00.000Z', now),
      tripRecord('t4', 'not-in-roster', '2026-11-05T11:00:00.000Z', now),
    ]);
    const ref = { connectionId, provider: 'samsara' as const };
    const shown = async () => ((await list(connectionId, key.headers, '?expand=vehicle&limit=1')).body as Page).results.map((t) => t.sourceId);
    const walk = async () => {
      const out: string[] = [];
      let query = '?expand=vehicle&limit=1';
      for (;;) {
        const page = (await list(connectionId, key.headers, query)).body as Page;
        out.push(...page.results.map((t) => t.sourceId));
        if (!page.next) return out;
        query = `?expand=vehicle&limit=1&cursor=${page.next}`;
      }
    };
    expect(await walk()).toEqual(['t1', 't2', 't3', 't4']);

    await configureReads(gw, connectionId, { excludeVehicleIds: ['v3'], includeStatuses: ['active'] });
    expect(await walk()).toEqual(['t1']);
    expect(await shown()).toEqual(['t1']);
    for (const hidden of ['t2', 't3', 't4']) {
      expectError(await gw.call('GET', `/v1/connections/${connectionId}/trips/${tripId({ ...ref, sourceId: hidden })}?expand=vehicle`, { headers: key.headers }), 404, 'not_found');
    }
    const visible = await gw.call('GET', `/v1/connections/${connectionId}/trips/${tripId({ ...ref, sourceId: 't1' })}?expand=vehicle`, { headers: key.headers });
    expect(visible.body).toMatchObject({ vehicle: { metadata: { visibility: 'visible' } } });

    await configureReads(gw, connectionId, { excludeVehicleIds: [], includeStatuses: [], includeVehicleIds: ['v2', 'not-in-roster'] });
    expect(await walk()).toEqual(['t2', 't4']);
  });

  it('answers 404 for another connection’s trips, trip ids and cursors with a key granted only on its own', async () => {
    const a = await readConnection(gw);
    const b = await readConnection(gw);
    const keyA = await readKey(gw, [a]);
    const keyB = await readKey(gw, [b]);
    const now = new Date().toISOString();
    await ingest(gw, b, 'vehicles', [vehicleRecord('vb', now)]);
    await ingest(gw, b, 'trips', [tripRecord('tb1', 'vb', '2026-11-06T08:00:00.000Z', now), tripRecord('tb2', 'vb', '2026-11-06T09:00:00.000Z', now)]);
    const bPage = (await list(b, keyB.headers, '?limit=1')).body as Page;
    expect(bPage.next).toBeDefined();
    const bTrip = tripId({ connectionId: b, provider: 'samsara', sourceId: 'tb1' });

    expectError(await list(b, keyA.headers), 404, 'not_found');
    expectError(await list(b, keyA.headers, `?cursor=${bPage.next}`), 404, 'not_found');
    expectError(await gw.call('GET', `/v1/connections/${b}/trips/${bTrip}?expand=vehicle,driver`, { headers: keyA.headers }), 404, 'not_found');
    expectError(await gw.call('GET', `/v1/connections/${a}/trips/${bTrip}?expand=vehicle`, { headers: keyA.headers }), 404, 'not_found');
    expectError(await list(a, keyA.headers, `?cursor=${bPage.next}`), 400, 'invalid_cursor');
    const filtered = await list(a, keyA.headers, `?vehicleIds=${vehicleId({ connectionId: b, provider: 'samsara', sourceId: 'vb' })}&expand=vehicle`);
    expect((filtered.body as Page).results).toEqual([]);
    expect(filtered.text).not.toContain('tb1');
  });
});

describe('stored trips under a small response byte limit', () => {
  // 16,384 bytes are the envelope reserve; the rest (1,500) holds about three trips per page.
  const LIMIT = 16_384 + 1_500;
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ directory: true, responseByteLimit: LIMIT });
  }, 60_000);
  afterAll(() => gw?.close());

  it('fills each page up to the byte limit and continues with next, never exceeding the limit', async () => {
    const connectionId = await readConnection(gw);
    const key = await readKey(gw, [connectionId]);
    const now = new Date().toISOString();
    const trips = Array.from({ length: 10 }, (_, i) => tripRecord(`trip-${String(i).padStart(2, '0')}`, 'v1', `2026-11-07T${String(i + 1).padStart(2, '0')}:00:00.000Z`, now));
    await ingest(gw, connectionId, 'trips', trips);
    const seen: string[] = [];
    const sizes: number[] = [];
    let query = '';
    for (;;) {
      const res = await gw.call('GET', `/v1/connections/${connectionId}/trips${query}`, { headers: key.headers });
      expect(res.status).toBe(200);
      expect(Buffer.byteLength(res.text)).toBeLessThanOrEqual(LIMIT);
      const page = res.body as Page;
      sizes.push(page.results.length);
      seen.push(...page.results.map((t) => t.sourceId as string));
      if (!page.next) break;
      query = `?cursor=${page.next}`;
    }
    expect(seen).toEqual(trips.map((t) => t.sourceId));
    expect(sizes.length).toBeGreaterThan(2);
    expect(Math.max(...sizes)).toBeLessThan(10);
    expect(Math.min(...sizes.slice(0, -1))).toBeGreaterThan(1);
  });
});
