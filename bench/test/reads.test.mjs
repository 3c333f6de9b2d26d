/**
 * Tests of the stored-read additions to the harness (no PostgreSQL or NATS): the runner's third
 * side (`hop`), `comparable` bodies and support-child CPU sampling; the body comparisons of
 * lib/read-bodies.mjs; the pure record builders of lib/directory-seed.mjs (checked against the
 * messaging schemas the directory's consumer validates with, so a seed cannot drift from them).
 * Run: npx node --test bench/test/
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { directoryBatchV1, ingestBatchId, INGEST_MAX_RECORDS } from '@switchyard/messaging';
import { chunks, tripRecords, vehicleRecord, vehicleSourceIds } from '../lib/directory-seed.mjs';
import { canonicalJson, withoutNext } from '../lib/read-bodies.mjs';
import { runScenario } from '../lib/runner.mjs';

const TINY = new URL('./fixtures/tiny-server.mjs', import.meta.url);
const tiny = (body) => new URL(`${TINY.href}?body=${encodeURIComponent(body)}`);
const QUICK = { concurrency: 2, rounds: 2, warmupMs: 20, durationMs: 100, primeMs: 20, maxRequests: 100_000, timeoutMs: 2_000 };

describe('read bodies', () => {
  it('withoutNext keeps everything but the cursor value, and its presence', () => {
    const a = withoutNext('{"status":"available","results":[{"id":1}],"next":"abc.def","coverage":{}}');
    assert.equal(a, withoutNext('{"status":"available","results":[{"id":1}],"next":"xyz.uvw","coverage":{}}'));
    assert.notEqual(a, withoutNext('{"status":"available","results":[{"id":1}],"coverage":{}}'));
    assert.notEqual(a, withoutNext('{"status":"available","results":[{"id":2}],"next":"abc.def","coverage":{}}'));
    assert.equal(withoutNext('not json'), 'not json');
  });

  it('canonicalJson ignores key order only', () => {
    assert.equal(canonicalJson('{"a":1,"b":{"d":[{"y":1,"x":2}],"c":null}}'), canonicalJson('{"b":{"c":null,"d":[{"x":2,"y":1}]},"a":1}'));
    assert.notEqual(canonicalJson('{"a":[1,2]}'), canonicalJson('{"a":[2,1]}'));
    assert.notEqual(canonicalJson('{"a":1}'), canonicalJson('{"a":"1"}'));
  });
});

describe('directory seed records', () => {
  const fetchedAt = '2026-11-22T10:00:00.000Z';
  const connectionId = '2f0c5a3e-6a3b-4f53-9d7e-0c1f1d7c9b11';
  const batch = (kind, records) => ({
    batchId: ingestBatchId({ connectionId, kind, unitId: '1', fencingToken: '1', pageKey: 'p', part: 0 }),
    connectionId,
    provider: 'samsara',
    syncId: 'sync_01JD0000000000000000000000',
    unitId: '1',
    fencingToken: '1',
    kind,
    records,
    fetchedAt,
    providerCursor: null,
    final: true,
  });

  it('vehicles and trips pass the directory batch schema in full-size batches', () => {
    const ids = vehicleSourceIds(3);
    assert.deepEqual(ids, ['v0001', 'v0002', 'v0003']);
    const vehicles = directoryBatchV1.safeParse(batch('vehicles', ids.map((id) => vehicleRecord(id, fetchedAt))));
    assert.equal(vehicles.success, true, vehicles.error?.message);
    const trips = tripRecords(INGEST_MAX_RECORDS.trips, ids, Date.parse('2026-11-01T00:00:00Z'), fetchedAt);
    const parsed = directoryBatchV1.safeParse(batch('trips', trips));
    assert.equal(parsed.success, true, parsed.error?.message);
  });

  it('trips: unique ids, ascending starts, vehicles round-robin, missing distances stay missing', () => {
    const trips = tripRecords(5, ['a', 'b'], Date.parse('2026-11-01T00:00:00Z'), fetchedAt);
    assert.equal(new Set(trips.map((t) => t.sourceId)).size, 5);
    assert.deepEqual(trips.map((t) => t.vehicleSourceId), ['a', 'b', 'a', 'b', 'a']);
    assert.ok(trips.every((t, i) => i === 0 || t.startedAt > trips[i - 1].startedAt));
    assert.equal(trips[1].distanceKm.status, 'missing');
    assert.equal(trips[0].distanceKm.status, 'available');
  });

  it('chunks splits without losing or reordering records', () => {
    assert.deepEqual(chunks([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]]);
    assert.deepEqual(chunks([], 3), []);
    assert.throws(() => chunks([1], 0), /positive integer/);
  });
});

describe('runner with a hop side', () => {
  const scenario = (hopBody, comparable) => ({
    name: 'test-hop',
    title: 'three sides',
    baseline: { label: 'a', module: tiny('{"n":1,"next":"x"}') },
    candidate: { label: 'b', module: tiny('{"n":1,"next":"y"}') },
    hop: { label: 'c', module: tiny(hopBody) },
    support: [{ label: 'context', module: tiny('{}') }],
    setup: async () => ({}),
    request: () => ({ method: 'GET', path: '/', headers: {} }),
    ...(comparable ? { comparable } : {}),
    teardown: async () => undefined,
  });

  it('measures three alternating sides with comparable bodies and reports both ratios', async () => {
    const result = await runScenario(scenario('{"n":1,"next":"z"}', withoutNext), { options: QUICK, print: () => undefined });
    assert.equal(result.valid, true, result.invalidReasons.join('; '));
    assert.deepEqual(result.rounds.map((r) => r.side), ['baseline', 'candidate', 'hop', 'baseline', 'candidate', 'hop']);
    assert.ok(result.summary.hopRatio.rps > 0 && result.summary.ratio.rps > 0);
    assert.ok(result.rounds.every((r) => Number.isFinite(r.supportCpuUsPerRequest) && r.supportCpuUsPerRequest >= 0));
    assert.deepEqual(Object.keys(result.labels), ['baseline', 'candidate', 'hop']);
  });

  it('without `comparable` the differing cursors make it invalid', async () => {
    const result = await runScenario(scenario('{"n":1,"next":"z"}'), { options: QUICK, print: () => undefined });
    assert.equal(result.valid, false);
    assert.match(result.invalidReasons.join('\n'), /bodies differ/);
  });

  it('a hop side answering a different comparable body makes it invalid', async () => {
    const result = await runScenario(scenario('{"n":2,"next":"z"}', withoutNext), { options: QUICK, print: () => undefined });
    assert.equal(result.valid, false);
    assert.match(result.invalidReasons.join('\n'), /bodies differ/);
  });
});

describe('telemetry seed', () => {
  it('builds observations the telemetry consumer accepts: a location and an odometer per vehicle, the history series inside the window', async () => {
    const { telemetryBatchV1 } = await import('@switchyard/messaging');
    const { telemetryRecords } = await import('../lib/telemetry-seed.mjs');
    const nowMs = Date.parse('2026-11-26T12:00:00.000Z');
    const window = { startTime: '2026-11-26T10:00:00.000Z', endTime: '2026-11-26T11:00:00.000Z' };
    const records = telemetryRecords({ sourceIds: vehicleSourceIds(3), historySourceId: 'v0002', historyPoints: 5, nowMs, window });
    assert.equal(records.length, 3 * 2 + 5);
    const history = records.slice(6);
    assert.ok(history.every((r) => r.observedAt >= window.startTime && r.observedAt < window.endTime && r.vehicleSourceId === 'v0002'));
    const connectionId = '00000000-0000-4000-8000-000000000001';
    const batch = {
      batchId: ingestBatchId({ connectionId, kind: 'observations', unitId: '1', fencingToken: '1', pageKey: 'p', part: 0 }),
      connectionId,
      provider: 'samsara',
      syncId: 'sync_01JD0000000000000000000000',
      unitId: '1',
      fencingToken: '1',
      kind: 'observations',
      records,
      fetchedAt: new Date(nowMs).toISOString(),
      providerCursor: null,
      final: true,
    };
    assert.equal(telemetryBatchV1.safeParse(batch).success, true);
  });
});
