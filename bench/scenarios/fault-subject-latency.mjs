/**
 * fault-subject-latency (job): how long after its commit a fault transition is delivered on
 * `fleet.faults.<connectionId>.<kind>` to an outside consumer. fault-feed runs as its own child
 * (consuming INGEST, committing, relaying its outbox right after the commit, 1 s poll as a
 * fallback); this process publishes BENCH_FAULT_BATCHES (default 200) one-vehicle snapshot batches
 * (each clears one occurrence and opens another: two transitions) at a steady pace
 * (BENCH_FAULT_GAP_MS, default 25 ms) and receives the transitions with an ordered JetStream
 * consumer started before (lib/fault-seed.mjs publishTimedSnapshots / awaitTimedDelivery, shared
 * with webhook-latency). Latency per transition = its delivery time here − its batch's commit
 * time (`ingest_batch.committed_at`, taken by fault-feed just before COMMIT on the same machine's
 * clock; the commit itself lands within a millisecond or two after). p50 and p99 per round; the
 * round's "rate" is transitions delivered per second. No baseline: the figures are absolute.
 */
import { DeliverPolicy, jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createBus, Namespace, STREAMS } from '@switchyard/messaging';
import { awaitTimedDelivery, createFaultFeedFixture, dropFaultFeedFixture, publishTimedSnapshots } from '../lib/fault-seed.mjs';
import { percentile } from '../lib/stats.mjs';

const BATCHES = Number(process.env.BENCH_FAULT_BATCHES ?? 200);
const GAP_MS = Number(process.env.BENCH_FAULT_GAP_MS ?? 25);

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
      // The bootstrap open of the vehicle is untimed (delivered before the reset).
      let startedAt = Date.now();
      const reset = () => {
        count = 0;
        delivered.clear();
        startedAt = Date.now();
      };
      const timed = await publishTimedSnapshots(fixture, bus, { round, batches: BATCHES, gapMs: GAP_MS, onReset: reset });
      const committed = await awaitTimedDelivery(fixture, timed, () => count);
      messages.stop();
      const ms = Date.now() - startedAt;
      const latencies = timed.batches.flatMap((b) => (delivered.get(b.at) ?? []).map((t) => t - committed.get(b.batchId))).sort((x, y) => x - y);
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
