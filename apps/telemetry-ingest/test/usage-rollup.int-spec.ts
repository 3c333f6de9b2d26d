/**
 * The usage rollups on real PostgreSQL and NATS (issue 12, migration 0004): observation batches
 * ingested through the consumer — out of order, in parallel, re-delivered and with duplicate
 * records in later batches — and for many windows (aligned or not, hours to days, with local hour or
 * day buckets) the figures served from rollups equal the raw computation over every stored
 * observation (the oracle, libs/domain rawUsageViews).
 * Reports read the interior's slots summed in SQL per vehicle, metric, series and bucket, and only
 * the observations at the window's edges plus the nearest one before and after each edge part; the
 * fleet pages over windows whose edges fall on observations and on slot edges equal the public
 * answer built from the oracle.
 * Mutations tried: rebuilding only the slots of the batch's own time range (no maxObservationGap
 * margin, `from = floorSlot(min)`) fails "equal the raw computation"; so do edgeObservations
 * without the last observation before an edge part (`e.observed_at = e.prev_at` dropped), without
 * the first after it (`e.observed_at = e.next_at` dropped), and summedSlots summing every bucket
 * into the first (width_bucket over `starts[0]` only: the bucket amounts differ).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bucketEdges, floorSlot, rawUsageViews, utilizationOf, vehicleId, type CounterFigure, type UtilizationFigures } from '@switchyard/domain';
import { EVENTS, subjectFor, type ObservationV1, type TelemetryBatchV1, type UtilizationV1 } from '@switchyard/messaging';
import { pollUntil, startIngestHarness, telemetryBatchOf, type IngestHarness } from '@switchyard/testing';
import { UsageObservationRepository } from '../src/db/repositories/usage-observation.repository.js';
import { startTelemetryIngest, telemetryIngestService } from '../src/index.js';
import { UsageReportService, utilizationReport } from '../src/services/usage-report.service.js';

/** A small deterministic PRNG (mulberry32), so a failure is reproducible. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = prng(20261126);
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
const FETCHED = new Date().toISOString();
/** Two hours from now (after the rollup epoch of this schema's migration), off the 15-minute grid. */
const T0 = floorSlot(Date.now() + 2 * 3600_000) + 433_000;
const SPAN_MS = 2 * 86_400_000;

function steps(): number[] {
  const times: number[] = [];
  let t = T0 + Math.floor(random() * 600_000);
  while (t < T0 + SPAN_MS) {
    times.push(t);
    t += pick([30, 60, 120, 300, 600, 900, 1790, 1800, 1801, 1810, 3600]) * 1000 + Math.floor(random() * 1000);
  }
  return times;
}

/** A cumulative counter with ordinary rises, resets and implausible jumps. */
function counter(vehicle: string, metric: 'odometer' | 'engineHours' | 'totalIdleTime', source: string): ObservationV1[] {
  let v = 5_000_000;
  return steps().map((t, i) => {
    const r = random();
    if (i > 0) v = r < 0.03 ? 100 : r < 0.05 ? v + 9e6 : v + Math.floor(random() * (metric === 'odometer' ? 40_000 : 700));
    const value = metric === 'odometer' ? { meters: v } : { seconds: v };
    return { provider: 'samsara', vehicleSourceId: vehicle, metric, value, source, observedAt: new Date(t).toISOString(), fetchedAt: FETCHED } as ObservationV1;
  });
}

function states(vehicle: string): ObservationV1[] {
  return steps().map(
    (t) =>
      ({
        provider: 'samsara',
        vehicleSourceId: vehicle,
        metric: 'engineState',
        value: { state: pick(['on', 'off', 'idle'] as const) },
        source: pick(['samsara:engineStates', 'samsara:ignition']),
        observedAt: new Date(t).toISOString(),
        fetchedAt: FETCHED,
      }) as ObservationV1,
  );
}

const batch = (connectionId: string, records: ObservationV1[]): TelemetryBatchV1 => telemetryBatchOf(connectionId, records, FETCHED);

const shuffle = <T>(list: T[]): T[] => {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [list[i], list[j]] = [list[j] as T, list[i] as T];
  }
  return list;
};

const closeTo = (a: number | null, b: number | null) => (a === null || b === null ? a === b : Math.abs(a - b) <= 0.002);

function expectSame(rolled: CounterFigure, raw: CounterFigure, where: string): void {
  expect({ where, ...rolled, value: null, intervals: undefined }).toEqual({ where, ...raw, value: null, intervals: undefined });
  expect({ where, close: closeTo(rolled.value, raw.value), rolled: rolled.value, raw: raw.value }).toMatchObject({ close: true });
  rolled.intervals?.forEach((i, n) => expect({ where, n, close: closeTo(i.amount, raw.intervals?.[n]?.amount ?? null) }).toMatchObject({ close: true }));
}

describe('usage rollups', () => {
  let x: IngestHarness;
  beforeAll(async () => {
    x = await startIngestHarness(telemetryIngestService, startTelemetryIngest);
  });
  afterAll(() => x?.close());

  it('equal the raw computation after out-of-order, parallel, re-delivered and duplicate batches', async () => {
    const config = await x.connect({ approvedVehicleIds: ['v1', 'v2', 'v3', 'v4'] });
    const { connectionId } = config;
    const records = [
      ...counter('v1', 'odometer', 'samsara:obdOdometerMeters'),
      ...counter('v1', 'engineHours', 'samsara:obdEngineSeconds'),
      ...counter('v1', 'totalIdleTime', 'samsara:idleTime'),
      ...counter('v2', 'odometer', 'samsara:obdOdometerMeters'),
      ...counter('v2', 'odometer', 'samsara:gpsOdometerMeters'),
      ...counter('v2', 'engineHours', 'samsara:obdEngineSeconds'),
      ...counter('v3', 'odometer', 'samsara:obdOdometerMeters'),
      ...states('v3'),
    ];
    // Batches of shuffled records (late and out-of-order arrival), then copies of some records in new batches (re-delivered data).
    const shuffled = shuffle([...records]);
    const batches: TelemetryBatchV1[] = [];
    for (let i = 0; i < shuffled.length; i += 400) batches.push(batch(connectionId, shuffled.slice(i, i + 400)));
    for (let i = 0; i < 3; i++) batches.push(batch(connectionId, shuffle([...records]).slice(0, 300)));
    // All in flight at once (the consumer commits up to 16 in parallel); one published twice.
    await Promise.all([...batches, batches[0] as TelemetryBatchV1].map((b) => x.h.client.publish(EVENTS.telemetryBatch, subjectFor(EVENTS.telemetryBatch.subject, connectionId), b, { msgId: b.batchId })));
    await pollUntil(
      async () => {
        const [row] = await x.sql<{ n: number }>(`select count(*)::int as n from ${x.t('ingest_batch')} where connection_id = ? and status = 'committed'`, [connectionId]);
        return row?.n === batches.length;
      },
      { timeoutMs: 60_000, description: 'every batch committed' },
    );
    // v4 in time order, one small batch after the other (each rebuild must reach back into the previous batch's slots), then the observations held back arrive late.
    const ordered = [...counter('v4', 'odometer', 'samsara:obdOdometerMeters'), ...counter('v4', 'engineHours', 'samsara:obdEngineSeconds')].sort((a, b) => a.observedAt.localeCompare(b.observedAt));
    const late = ordered.filter((_, i) => i % 7 === 3);
    const onTime = ordered.filter((_, i) => i % 7 !== 3);
    for (let i = 0; i <= onTime.length; i += 15) {
      const chunk = i < onTime.length ? onTime.slice(i, i + 15) : late;
      const b = batch(connectionId, chunk);
      await x.h.client.publish(EVENTS.telemetryBatch, subjectFor(EVENTS.telemetryBatch.subject, connectionId), b, { msgId: b.batchId });
      await pollUntil(async () => (await x.sql<{ status: string }>(`select status from ${x.t('ingest_batch')} where batch_id = ?`, [b.batchId]))[0]?.status === 'committed', { timeoutMs: 20_000, description: 'v4 batch committed' });
    }
    const [slots] = await x.sql<{ n: number }>(`select count(*)::int as n from ${x.t('usage_slot')} where connection_id = ?`, [connectionId]);
    expect(slots?.n).toBeGreaterThan(100);

    const orm = x.h.service.runtime.orm;
    const service = new UsageReportService(orm);
    const em = orm.em.fork();
    const ids = ['v1', 'v2', 'v3', 'v4'].map((s) => vehicleId({ connectionId, provider: 'samsara', sourceId: s }));
    const all = await new UsageObservationRepository().observations(em, connectionId, ids, new Date(T0 - 86_400_000).toISOString(), new Date(T0 + 3 * 86_400_000).toISOString());
    let compared = 0;
    for (let n = 0; n < 60; n++) {
      const startMs = T0 - 3600_000 + Math.floor(random() * SPAN_MS);
      const lengthMs = pick([40 * 60_000, 3 * 3600_000, 86_400_000, SPAN_MS]) + Math.floor(random() * 3_600_000);
      const window = { startMs, endMs: startMs + lengthMs };
      const edges = n % 2 === 0 ? bucketEdges(pick(['UTC', 'Europe/Berlin', 'Asia/Kathmandu', 'America/St_Johns']), lengthMs > 4 * 86_400_000 ? 'day' : pick(['hour', 'day'] as const), window.startMs, window.endMs) : undefined;
      const rolled = await service.viewsOf(em, connectionId, ids, window, edges);
      for (const id of ids) {
        const a: UtilizationFigures = utilizationOf(rolled.get(id)!, window, edges);
        const b: UtilizationFigures = utilizationOf(rawUsageViews(all.get(id)!, window), window, edges);
        const where = `${id} ${new Date(window.startMs).toISOString()}+${lengthMs}`;
        for (const k of ['engineRuntime', 'engineNotRunning', 'distance', 'idleTime'] as const) expectSame(a[k], b[k], `${where} ${k}`);
        expect(a.limitations).toEqual(b.limitations);
        expect(closeTo(a.engineOnPercentOfObservedTime, b.engineOnPercentOfObservedTime)).toBe(true);
        if (b.distance.status !== 'missing') compared++;
      }
    }
    expect(compared).toBeGreaterThan(60);

    // Fleet pages (the public shape) over windows whose edges sit exactly on an observation or on a
    // slot edge, or a millisecond beside one: the nearest-observation reads at the edges must see the
    // same segments as the oracle.
    const times = [...new Set([...all.values()].flatMap((o) => [...o.odometer, ...o.engineHours, ...o.engineState].map((x) => x.observedAtMs)))].sort((a, b) => a - b);
    const inner = times.filter((t) => t > T0 + 3600_000 && t < T0 + SPAN_MS - 86_400_000);
    let pages = 0;
    for (let n = 0; n < 24; n++) {
      const at = (kind: number) => (kind === 0 ? pick(inner) : kind === 1 ? floorSlot(pick(inner)) : pick(inner) + pick([-1, 1]));
      const startMs = at(n % 3);
      const endMs = (n % 2 === 0 ? pick(inner.filter((t) => t > startMs + 3600_000)) : floorSlot(startMs + pick([2, 7, 30]) * 3600_000)) + (n % 4 === 3 ? 1 : 0);
      const window = { startMs, endMs };
      const buckets = n % 2 === 0 ? { size: pick(['hour', 'day'] as const), timeZone: pick(['UTC', 'Asia/Kathmandu', 'America/St_Johns']) } : undefined;
      const edges = buckets ? bucketEdges(buckets.timeZone, buckets.size, startMs, endMs) : undefined;
      const reply = await service.fleet(em, { connectionId, limit: 100, maxBytes: 4_000_000, startTime: new Date(startMs).toISOString(), endTime: new Date(endMs).toISOString(), ...(buckets ? { buckets } : {}) });
      // The page is the JSON text the gateway forwards (a framed reply).
      const vehicles = JSON.parse(String(reply.body)) as UtilizationV1[];
      expect(vehicles.map((v) => v.vehicleId)).toEqual([...ids].sort());
      expect(reply.meta).toEqual({ hasMore: false });
      for (const served of vehicles) {
        const oracle = utilizationReport(served.vehicleId, rawUsageViews(all.get(served.vehicleId)!, window), window, edges);
        const where = `${served.vehicleId} ${new Date(startMs).toISOString()}..${new Date(endMs).toISOString()} ${buckets?.size ?? ''}`;
        for (const k of ['engineRuntime', 'engineNotRunning', 'distance', 'idleTime'] as const) {
          const [a, b] = [served[k], oracle[k]];
          // idleTime is optional in the public shape; both sides build it from the same figure.
          expect(a === undefined).toBe(b === undefined);
          if (!a || !b) continue;
          expect({ where, k, ...a, value: null, intervals: undefined }).toEqual({ where, k, ...b, value: null, intervals: undefined });
          expect({ where, k, close: closeTo(a.value, b.value) }).toMatchObject({ close: true });
          a.intervals?.forEach((i, m) => expect({ where, k, m, close: closeTo(i.amount, b.intervals?.[m]?.amount ?? null), start: i.startTime }).toMatchObject({ close: true, start: b.intervals?.[m]?.startTime }));
          expect(a.intervals?.length).toBe(b.intervals?.length);
        }
        expect(served.limitations).toEqual(oracle.limitations);
        expect(closeTo(served.engineOnPercentOfObservedTime, oracle.engineOnPercentOfObservedTime)).toBe(true);
      }
      pages++;
    }
    expect(pages).toBe(24);
  }, 180_000);
});
