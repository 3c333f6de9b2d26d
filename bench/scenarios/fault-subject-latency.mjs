/**
 * fault-subject-latency (job): how long after its commit a fault transition is delivered on
 * `fleet.faults.<connectionId>.<kind>` to an outside consumer. fault-feed runs as its own child
 * (consuming INGEST, committing, relaying its outbox right after the commit, 1 s poll as a
 * fallback); this process publishes BENCH_FAULT_BATCHES (default 200) one-vehicle snapshot batches
 * (each clears one occurrence and opens another: two transitions) at a steady pace
 * (BENCH_FAULT_GAP_MS, default 25 ms) and receives the transitions with an ordered JetStream
 * consumer started before. Latency per transition = its delivery time here − its batch's commit
 * time (`ingest_batch.committed_at`, taken by fault-feed just before COMMIT on the same machine's
 * clock; the commit itself lands within a millisecond or two after). p50 and p99 per round; the
 * round's "rate" is transitions delivered per second. No baseline: the figures are absolute.
 */
import { DeliverPolicy, jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { createBus, EVENTS, ingestBatchId, Namespace, STREAMS, subjectFor } from '@switchyard/messaging';
import { createFaultFeedFixture, dropFaultFeedFixture } from '../lib/fault-seed.mjs';
import { percentile } from '../lib/stats.mjs';

const BATCHES = Number(process.env.BENCH_FAULT_BATCHES ?? 200);
const GAP_MS = Number(process.env.BENCH_FAULT_GAP_MS ?? 25);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function sql(fixture, text, params = []) {
  const client = new pg.Client({ connectionString: fixture.databaseUrl });
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}

export default {
  kind: 'job',
  name: 'fault-subject-latency',
  title: `commit → fleet.faults delivery latency, ${BATCHES} batches × 2 transitions, one every ${GAP_MS} ms`,
  unit: 'transitions',
  rounds: 3,
  candidate: { label: 'fault-feed (ingest commit → outbox relay → FAULTS stream → ordered consumer)' },
  support: [{ label: 'fault-feed', module: new URL('../servers/context-service.mjs?service=fault-feed', import.meta.url) }],

  // fault-feed migrated and holding the connection's configuration (seeded through its real ingest: one vehicle, one snapshot).
  setup: () => createFaultFeedFixture({ vehicles: 1, rounds: 1 }),

  async run(fixture, _side, { round }) {
    const ns = new Namespace(fixture.namespace);
    const nc = await connect({ servers: fixture.natsUrl, name: 'bench-fault-latency' });
    const bus = await createBus({ kind: 'jetstream', servers: fixture.natsUrl, name: 'bench-fault-publisher', namespace: fixture.namespace });
    try {
      const consumer = await jetstream(nc).consumers.get(ns.stream(STREAMS.FAULTS.name), { filter_subjects: ns.subject(`fleet.faults.${fixture.connectionId}.>`), deliver_policy: DeliverPolicy.New });
      const messages = await consumer.consume();
      const delivered = new Map(); // observedAt → delivery times
      let count = 0;
      (async () => {
        for await (const msg of messages) {
          const t = msg.json();
          const list = delivered.get(t.observedAt) ?? [];
          list.push(Date.now());
          delivered.set(t.observedAt, list);
          count++;
        }
      })().catch(() => undefined);
      const vehicle = `bench-r${round}`;
      const base = Date.UTC(2026, 0, 1) + round * 10 * 86_400_000;
      const batches = [];
      const send = async (i, keys) => {
        const at = new Date(base + i * 1000).toISOString();
        const unitId = String(round * 100_000 + i + 1);
        const batch = {
          batchId: ingestBatchId({ connectionId: fixture.connectionId, kind: 'fault_snapshots', unitId, fencingToken: '1', pageKey: 'p', part: 0 }),
          connectionId: fixture.connectionId,
          provider: 'samsara',
          syncId: 'sync_01JD0000000000000000000000',
          unitId,
          fencingToken: '1',
          kind: 'fault_snapshots',
          records: [{ model: 'complete_snapshot', provider: 'samsara', vehicleSourceId: vehicle, observedAt: at, active: keys.map((k) => ({ faultKey: k, code: k, description: null })), fetchedAt: at }],
          fetchedAt: at,
          providerCursor: null,
          final: true,
        };
        await bus.publish(EVENTS.faultBatch, subjectFor(EVENTS.faultBatch.subject, fixture.connectionId), batch, { msgId: batch.batchId });
        return { batchId: batch.batchId, at };
      };
      await send(0, ['j1939:0:spn110:fmi0']);
      await sleep(1500);
      count = 0;
      delivered.clear();
      // The bootstrap open of the vehicle is untimed (delivered before the reset above).
      const startedAt = Date.now();
      for (let i = 1; i <= BATCHES; i++) {
        batches.push(await send(i, [i % 2 === 0 ? 'j1939:0:spn110:fmi0' : 'j1939:0:spn190:fmi2']));
        await sleep(GAP_MS);
      }
      // Batches of one vehicle may be applied out of order by concurrent ingest workers: a snapshot
      // older than one already applied changes nothing (docs/faults.md), so count what committed.
      const faults = `"${fixture.schemas['fault-feed']}"`;
      let expected = -1;
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(50)) {
        const [c] = await sql(fixture, `select count(*) filter (where status = 'committed')::int as committed from ${faults}.ingest_batch where batch_id = any($1)`, [batches.map((b) => b.batchId)]);
        if (c.committed < batches.length) continue;
        if (expected < 0) {
          const [t] = await sql(fixture, `select count(*)::int as n from ${faults}.fault_transition t join ${faults}.fault_occurrence o on o.id = t.occurrence_id where o.vehicle_source_id = $1 and t.observed_at >= $2`, [vehicle, batches[0].at]);
          expected = t.n;
        }
        if (count >= expected) break;
      }
      if (expected < 0 || count < expected) throw new Error(`only ${count} of ${expected} committed transitions delivered in 60 s`);
      messages.stop();
      const ms = Date.now() - startedAt;
      const committed = new Map(
        (await sql(fixture, `select batch_id, extract(epoch from committed_at) * 1000 as at from "${fixture.schemas['fault-feed']}".ingest_batch where batch_id = any($1)`, [batches.map((b) => b.batchId)])).map((r) => [r.batch_id, Number(r.at)]),
      );
      const latencies = batches.flatMap((b) => (delivered.get(b.at) ?? []).map((t) => t - committed.get(b.batchId))).sort((x, y) => x - y);
      const p50 = percentile(latencies, 0.5);
      const p99 = percentile(latencies, 0.99);
      return { units: latencies.length, ms, details: { p50, p99, max: latencies.at(-1), samples: latencies.length }, lines: [`commit → delivery: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${latencies.at(-1).toFixed(1)} ms (${latencies.length} transitions)`] };
    } finally {
      await bus.close();
      await nc.drain();
    }
  },

  teardown: (fixture) => dropFaultFeedFixture(fixture),
};
