/**
 * The durable cursor under concurrent writers, over HTTP: two fault-feed processes share the
 * ingest consumer of one connection and commit its transitions concurrently (every batch arrives
 * at once; both processes take them off the INGEST stream in parallel) while a reader pages
 * `GET …/fault-events` with the `nextCursor` it stored after each page (as a maintenance app
 * does). The reader sees every transition exactly once, in sequence order — none that a slower
 * transaction committed behind its cursor — and exactly what the subjects carried.
 * Mutation tried: FaultIngestService.apply without `lockConnection` and reserving its sequences on
 * an `em.fork({ disableTransactions: true })` (outside the batch transaction) — the reader passes
 * sequences a slower transaction commits later and misses them (failed in two runs of two). The
 * same guarantee at the service level, with random commit delays: apps/fault-feed/test/fault-reads.int-spec.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFaultFeed } from '@switchyard/fault-feed';
import { createBus, EVENTS, ingestBatchId, subjectFor, type FaultBatchV1, type MessageBus } from '@switchyard/messaging';
import type { RunningService } from '@switchyard/service-kit';
import { sleep } from '@switchyard/testing';
import { faultConnection, faultSql, recordSubjects, type EventsPage, type FaultEvent } from './faults-fixture.js';
import { newUnit } from './reads-fixture.js';
import { startTestGateway, type TestGateway } from './support.js';

const VEHICLES = 12;
const ROUNDS = 6;

describe('fault feed with two fault-feed processes committing one connection', () => {
  let gw: TestGateway;
  let bus2: MessageBus;
  let second: RunningService;
  let subjects: Awaited<ReturnType<typeof recordSubjects>>;
  beforeAll(async () => {
    gw = await startTestGateway({ directory: true, faultFeed: true });
    bus2 = await createBus({ kind: 'jetstream', servers: gw.natsUrl, name: 'fault-feed-2-test', namespace: gw.namespace });
    second = await startFaultFeed({ databaseUrl: gw.databaseUrl, bus: bus2, environment: 'sandbox', schema: gw.schemas['fault-feed'], allServiceSchemas: Object.values(gw.schemas), logLevel: 'warn' });
    subjects = await recordSubjects(gw, 'test-fault-concurrency');
  }, 60_000);
  afterAll(async () => {
    await subjects?.sub.drain();
    await second?.close();
    await bus2?.close();
    await gw?.close();
  });

  it('a reader with stored cursors sees every transition exactly once, in order', async () => {
    const { connectionId, key } = await faultConnection(gw);
    // Every vehicle's rounds alternate its fault, one batch per vehicle and round, all published at once.
    const batches: FaultBatchV1[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (let v = 0; v < VEHICLES; v++) {
        const at = new Date(Date.UTC(2026, 10, 23, 7, round)).toISOString();
        const unitId = newUnit();
        batches.push({
          batchId: ingestBatchId({ connectionId, kind: 'fault_snapshots', unitId, fencingToken: '1', pageKey: 'p', part: 0 }),
          connectionId,
          provider: 'samsara',
          syncId: 'sync_01JD0000000000000000000000',
          unitId,
          fencingToken: '1',
          kind: 'fault_snapshots',
          records: [{ model: 'complete_snapshot', provider: 'samsara', vehicleSourceId: `v${v}`, observedAt: at, active: [{ faultKey: `j1939:0:spn${round % 2 === 0 ? 110 : 190}:fmi0`, code: 'x', description: null }], fetchedAt: at }],
          fetchedAt: at,
          providerCursor: null,
          final: true,
        } as FaultBatchV1);
      }
    }
    const publishing = Promise.all(batches.map((b) => gw.bus.publish(EVENTS.faultBatch, subjectFor(EVENTS.faultBatch.subject, connectionId), b, { msgId: b.batchId })));

    const seen: FaultEvent[] = [];
    let cursor: string | undefined;
    let committedAll = false;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
      const done = committedAll;
      const res = await gw.call('GET', `/v1/connections/${connectionId}/fault-events?limit=5${cursor ? `&cursor=${cursor}` : ''}`, { headers: key.headers });
      expect(res.status).toBe(200);
      const page = res.body as EventsPage;
      seen.push(...page.events);
      cursor = page.nextCursor; // stored after every page, as a client does
      if (done && !page.hasMore) break;
      if (!page.hasMore) {
        await sleep(20);
        const [row] = await faultSql<{ n: number }>(gw, `select count(*)::int as n from $faults.ingest_batch where batch_id = any(?::text[]) and status = 'committed'`, [`{${batches.map((b) => b.batchId).join(',')}}`]);
        committedAll = row!.n === batches.length;
      }
    }
    await publishing;
    expect(committedAll).toBe(true);
    const stored = await faultSql<{ id: string }>(gw, `select id::text as id from $faults.fault_transition where connection_id = ?::uuid order by fault_transition.sequence`, [connectionId]);
    // Snapshots of one vehicle applied out of order are dropped by the snapshot rule, so count what committed.
    expect(stored.length).toBeGreaterThanOrEqual(VEHICLES);
    expect(seen.map((e) => e.sequence)).toEqual(stored.map((_, i) => i + 1));
    expect(seen.map((e) => e.id)).toEqual(stored.map((r) => r.id));
    const published = await subjects.of(connectionId, stored.length);
    expect(published.map((p) => p.transitionId)).toEqual(stored.map((r) => r.id));
  }, 90_000);
});
