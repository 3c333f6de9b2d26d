/**
 * The webhook delivery role as deployed — the built apps/gateway/dist/webhook-delivery.js in its own
 * process — SIGKILLed mid-stream and started again (issue 29; docs/webhooks.md "At least once"):
 * fault transitions are published on FAULTS as fault-feed's relay does (three vehicles, opened and
 * cleared in turn), a receiver that takes 100 ms per request is mid-way through them when the first
 * process is killed, and a second process finishes. Every event arrives (none lost: the durable
 * redelivers what the dead process had not acked, the log keeps what it had recorded), per vehicle
 * in publish order, and an event arrives twice only if an attempt of it was in flight when the
 * process died — at most WEBHOOK_CONCURRENCY (4 here) such repeats, the documented bound. Every
 * message of the delivery log ends `delivered`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { vehicleId } from '@switchyard/domain';
import { EVENTS, subjectFor, vehicleVisibilityMsgId, type FaultTransitionV1 } from '@switchyard/messaging';
import { assertBuilt, pollUntil, spawnNode, startWebhookReceiver, type NodeProcess, type WebhookReceiver } from '@switchyard/testing';
import { execute } from './gateway-client.js';
import { startTestGateway, type TestGateway } from './support.js';

const CONCURRENCY = 4;
const VEHICLES = ['crash-a', 'crash-b', 'crash-c'];
const PER_VEHICLE = 16;
const TOTAL = VEHICLES.length * PER_VEHICLE;

let gw: TestGateway;
let receiver: WebhookReceiver;
const processes: NodeProcess[] = [];

beforeAll(async () => {
  gw = await startTestGateway();
  receiver = await startWebhookReceiver(() => ({ status: 204, delayMs: 100 }));
}, 60_000);

afterAll(async () => {
  for (const p of processes) await p.kill();
  await receiver?.close();
  await gw?.close();
});

function deliveryProcess(): NodeProcess {
  const main = assertBuilt('apps/gateway/dist/webhook-delivery.js', ['apps/gateway', 'libs/service-kit', 'libs/messaging', 'libs/persistence', 'libs/providers']);
  const child = spawnNode(main, {
    env: {
      DATABASE_URL: gw.databaseUrl,
      DB_SCHEMA: gw.schemas.gateway,
      NATS_URL: gw.natsUrl,
      NATS_NAMESPACE: gw.namespace,
      SWITCHYARD_ENV: 'sandbox',
      SWITCHYARD_MASTER_KEY: gw.masterKey,
      CURSOR_SECRET: randomBytes(32).toString('base64url'),
      HEALTH_PORT: '0',
      LOG_LEVEL: 'info',
      WEBHOOK_CONCURRENCY: String(CONCURRENCY),
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_POLL_MS: '50',
      WEBHOOK_RETRY_SCHEDULE_MS: '200,200,200,200,200',
    },
  });
  processes.push(child);
  return child;
}

describe('webhook delivery killed mid-stream', () => {
  // Two process starts and 48 deliveries of 100 ms each, the second process waiting out the dead
  // one's leases: past jest's default 30 s on a loaded machine (it timed out at load 4-8).
  it('loses no event, keeps per-vehicle order and repeats only attempts in flight at the kill', async () => {
    const app = await gw.credentials.createApplication('crash app', 'sandbox');
    const { connectionId } = await gw.connections.create({ customerId: 'crash', provider: 'samsara', environment: 'sandbox' });
    await gw.credentials.issueConnectionToken(app.id, connectionId);
    const created = await gw.call('POST', '/v1/webhooks/endpoints', {
      headers: { authorization: `Bearer ${app.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, eventTypes: ['fault.opened', 'fault.cleared'] }),
    });
    receiver.secrets = [(created.body as { secret: string }).secret];

    const first = deliveryProcess();
    await first.waitForOutput(/"msg":"gateway\/webhook-delivery started"/, 120_000);
    // The directory's set for the connection (nothing hidden), as its relay publishes it.
    const set = { connectionId, sequence: '1', configRevision: 1, computedAt: new Date().toISOString(), hidden: [] };
    await gw.bus.publish(EVENTS.vehicleVisibility, subjectFor(EVENTS.vehicleVisibility.subject, connectionId), set, { msgId: vehicleVisibilityMsgId(set) });
    await pollUntil(async () => (await execute(gw.service, `select 1 from "${gw.schemas.gateway}".vehicle_visibility where connection_id = ?::uuid`, [connectionId])).length === 1, { timeoutMs: 15_000, description: 'visibility set projected' });

    const published: FaultTransitionV1[] = [];
    let sequence = 0;
    for (let i = 0; i < PER_VEHICLE; i++) {
      for (const source of VEHICLES) {
        const kind = i % 2 === 0 ? 'opened' : 'cleared';
        const t: FaultTransitionV1 = {
          transitionId: randomUUID(),
          sequence: ++sequence,
          connectionId,
          provider: 'samsara',
          kind,
          occurrenceId: randomUUID(),
          vehicleId: vehicleId({ connectionId, provider: 'samsara', sourceId: source }),
          vehicleSourceId: source,
          faultKey: 'spn110',
          code: 'SPN 110',
          description: null,
          model: 'complete_snapshot',
          observedAt: new Date(Date.UTC(2026, 5, 1) + sequence * 1000).toISOString(),
          clearedBy: kind === 'cleared' ? 'snapshot_absent' : null,
          bootstrap: false,
        };
        published.push(t);
        await gw.bus.publish(EVENTS.faultTransition, subjectFor(EVENTS.faultTransition.subject, connectionId, kind), t, { msgId: t.transitionId });
      }
    }

    await pollUntil(() => receiver.received.length >= TOTAL / 3, { timeoutMs: 60_000, description: 'a third delivered by the first process' });
    first.child.kill('SIGKILL');
    const killed = await first.waitForExit(10_000);
    expect(killed.signal).toBe('SIGKILL');
    const atKill = receiver.received.length;
    expect(atKill).toBeLessThan(TOTAL);

    const second = deliveryProcess();
    await second.waitForOutput(/"msg":"gateway\/webhook-delivery started"/, 120_000);
    await pollUntil(() => new Set(receiver.received.map((w) => w.id)).size === TOTAL, { timeoutMs: 90_000, description: `all ${TOTAL} events delivered` });

    expect(receiver.received.every((w) => w.verified)).toBe(true);
    // None lost, each published one.
    expect(new Set(receiver.received.map((w) => w.id))).toEqual(new Set(published.map((t) => t.transitionId)));
    // Per vehicle, first arrivals in publish order.
    for (const source of VEHICLES) {
      const vehicle = vehicleId({ connectionId, provider: 'samsara', sourceId: source });
      const expected = published.filter((t) => t.vehicleId === vehicle).map((t) => t.transitionId);
      const firstArrivals = receiver.received.filter((w) => w.event.subject === vehicle && w.repeat === 0).map((w) => w.id);
      expect({ source, order: firstArrivals }).toEqual({ source, order: expected });
    }
    // Repeats only of attempts the killed process had in flight.
    const repeats = receiver.received.filter((w) => w.repeat > 0);
    expect(repeats.length).toBeLessThanOrEqual(CONCURRENCY);
    // The last answers settle right after they arrive.
    const states = () => execute<{ state: string; n: number }>(gw.service, `select state, count(*)::int as n from "${gw.schemas.gateway}".webhook_message group by state`);
    await pollUntil(async () => JSON.stringify(await states()) === JSON.stringify([{ state: 'delivered', n: TOTAL }]), { timeoutMs: 10_000, description: 'every message delivered in the log' });
    expect(second.child.exitCode).toBeNull();
  }, 240_000);
});
