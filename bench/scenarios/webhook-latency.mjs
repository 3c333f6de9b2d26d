/**
 * webhook-latency (job): how long after its commit a fault transition's webhook reaches a receiver —
 * the issue-29 figure, first attempt p99 ≤ 500 ms. fault-feed and the gateway's webhook delivery
 * role run as their own children (fault-feed commits and relays its outbox onto FAULTS; the role
 * records the event in the webhook log, fans it out, wakes its delivery loop and POSTs it signed);
 * this process seeds an application holding a Connection-Token for the connection with one endpoint
 * subscribed to fault.opened and fault.cleared, runs a loopback receiver (libs/testing
 * webhook-receiver.ts, verifying every signature) and publishes BENCH_FAULT_BATCHES (default 200)
 * one-vehicle snapshot batches at a steady pace (BENCH_FAULT_GAP_MS, default 25 ms), the vehicles
 * (BENCH_WEBHOOK_VEHICLES, default 20) in turn (lib/fault-seed.mjs, as fault-subject-latency). Latency per transition = its first arrival at the receiver − its batch's
 * commit time (`ingest_batch.committed_at`, fault-feed, same clock). p50 and p99 per round. No
 * baseline: the figures are absolute; fault-subject-latency of the same run is the hop it adds to.
 */
import { createBus } from '@switchyard/messaging';
import { SecretBox, WebhookEndpointsService } from '@switchyard/gateway';
import { startWebhookReceiver } from '@switchyard/testing';
import { awaitTimedDelivery, createFaultFeedFixture, dropFaultFeedFixture, publishTimedSnapshots } from '../lib/fault-seed.mjs';
import { withGatewayOrm } from '../lib/gateway-fixture.mjs';
import { percentile } from '../lib/stats.mjs';

const BATCHES = Number(process.env.BENCH_FAULT_BATCHES ?? 200);
const GAP_MS = Number(process.env.BENCH_FAULT_GAP_MS ?? 25);
/**
 * Vehicles the batches take turns on (BENCH_WEBHOOK_VEHICLES, default 20): webhooks keep per-vehicle
 * order, so one vehicle's events are attempted one after the other; a fleet's transitions spread
 * over its vehicles. With 1, the figure is the per-vehicle sequential throughput instead.
 */
const VEHICLES = Number(process.env.BENCH_WEBHOOK_VEHICLES ?? 20);

async function gatewayRows(fixture, text, params) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: fixture.databaseUrl });
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}

/** The receiver lives in this process for the whole run (the fixture crosses IPC, a server cannot). */
let receiver;

export default {
  kind: 'job',
  name: 'webhook-latency',
  title: `commit → webhook first attempt latency, ${BATCHES} batches × 2 transitions over ${VEHICLES} vehicles, one every ${GAP_MS} ms`,
  unit: 'transitions',
  rounds: 3,
  candidate: { label: 'fault-feed commit → FAULTS → webhook delivery role (log, fan-out, signed POST) → loopback receiver' },
  support: [
    { label: 'fault-feed', module: new URL('../servers/context-service.mjs?service=fault-feed', import.meta.url) },
    { label: 'webhook-delivery', module: new URL('../servers/context-service.mjs?service=webhook-delivery', import.meta.url) },
  ],

  async setup() {
    const fixture = await createFaultFeedFixture({ vehicles: 1, rounds: 1 });
    try {
      receiver = await startWebhookReceiver(() => ({ status: 204 }));
      await withGatewayOrm(fixture, async (orm, { credentials }) => {
        const app = await credentials.createApplication('bench webhooks', 'sandbox');
        await credentials.issueConnectionToken(app.id, fixture.connectionId);
        const endpoints = new WebhookEndpointsService(orm, new SecretBox(fixture.masterKey), { environment: 'sandbox', secretOverlapMs: 0 });
        const { secret } = await endpoints.create(app.id, { url: receiver.url, eventTypes: ['fault.opened', 'fault.cleared'] });
        receiver.secrets = [secret];
      });
      return fixture;
    } catch (error) {
      await receiver?.close();
      await dropFaultFeedFixture(fixture).catch(() => undefined);
      throw error;
    }
  },

  async run(fixture, _side, { round }) {
    const bus = await createBus({ kind: 'jetstream', servers: fixture.natsUrl, name: 'bench-webhook-publisher', namespace: fixture.namespace });
    try {
      let startedAt = Date.now();
      let from = receiver.received.length;
      const reset = () => {
        from = receiver.received.length;
        startedAt = Date.now();
      };
      const timed = await publishTimedSnapshots(fixture, bus, { round, batches: BATCHES, gapMs: GAP_MS, onReset: reset, vehicles: VEHICLES });
      const firsts = () => receiver.received.slice(from).filter((w) => w.repeat === 0);
      const committed = await awaitTimedDelivery(fixture, timed, () => firsts().length);
      const ms = Date.now() - startedAt;
      const arrivals = firsts();
      if (!arrivals.every((w) => w.verified)) throw new Error('a webhook arrived without a valid signature');
      const batchOf = new Map(timed.batches.map((b) => [b.at, b.batchId]));
      const latencies = arrivals.flatMap((w) => {
        const batch = batchOf.get(w.event.data.observed_at);
        return batch ? [w.wallAt - committed.get(batch)] : [];
      }).sort((x, y) => x - y);
      const p50 = percentile(latencies, 0.5);
      const p99 = percentile(latencies, 0.99);
      const retried = receiver.received.slice(from).length - arrivals.length;
      // Where the time goes: commit → recorded in the webhook log (FAULTS relay and the fan-out), recorded → arrival (claim, sign, POST).
      const recorded = new Map((await gatewayRows(fixture, `select id::text as id, extract(epoch from recorded_at) * 1000 as at from "${fixture.schemas.gateway}".webhook_event where id = any($1::uuid[])`, [arrivals.map((w) => w.id)])).map((r) => [r.id, Number(r.at)]));
      const split = arrivals.flatMap((w) => {
        const batch = batchOf.get(w.event.data.observed_at);
        const at = recorded.get(w.id);
        return batch && at !== undefined ? [[at - committed.get(batch), w.wallAt - at]] : [];
      });
      const fanOut = split.map(([f]) => f).sort((x, y) => x - y);
      const attempt = split.map(([, a]) => a).sort((x, y) => x - y);
      const parts = { fanOutP50: percentile(fanOut, 0.5), fanOutP99: percentile(fanOut, 0.99), attemptP50: percentile(attempt, 0.5), attemptP99: percentile(attempt, 0.99) };
      return {
        units: latencies.length,
        ms,
        details: { p50, p99, max: latencies.at(-1), samples: latencies.length, retried, ...parts },
        lines: [
          `commit → first webhook attempt: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${latencies.at(-1).toFixed(1)} ms (${latencies.length} transitions, ${retried} repeated)`,
          `  commit → recorded in the log: p50 ${parts.fanOutP50.toFixed(1)} ms, p99 ${parts.fanOutP99.toFixed(1)} ms; recorded → arrival: p50 ${parts.attemptP50.toFixed(1)} ms, p99 ${parts.attemptP99.toFixed(1)} ms`,
        ],
      };
    } finally {
      await bus.close();
    }
  },

  async teardown(fixture) {
    await receiver?.close();
    await dropFaultFeedFixture(fixture);
  },
};
