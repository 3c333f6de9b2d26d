/**
 * Webhooks end to end (issue 29, decision 0042): a real gateway, directory, fault-feed and
 * sync-orchestrator, and the gateway's webhook delivery role beside them, with a compressed retry
 * schedule (300, 600, 1200 ms); receivers on loopback that verify every Standard Webhooks signature
 * themselves (libs/testing webhook-receiver.ts). Fault batches go through fault-feed's real ingest
 * and outbox onto FAULTS; sync outcomes through the orchestrator's outbox; connection status
 * changes through the gateway's. Timing assertions are lower bounds only (an attempt never comes
 * before its delay), never upper bounds.
 * Mutations tried (each fails the test named):
 * - the signature over `id.body` instead of `id.timestamp.body` (webhook-signature.ts) → "delivers
 *   fault.opened then fault.cleared" (verified false);
 * - the order key dropped from the claim (the `not exists` of webhook-delivery.repository.ts
 *   `claim`) → "keeps per-vehicle order" (the cleared arrives before its opened is delivered);
 * - 410 handled like any failure (the `status === 410` branch removed) → "410 disables the endpoint";
 * - EVENTS.webhookEndpointDisabled left out of the gateway's outbox relay → "410 disables the
 *   endpoint" (the record is written but never published);
 * - Retry-After ignored (`Math.max(delay, …)` reduced to `delay`) → "honours Retry-After";
 * - the delay counted from the attempt's start instead of its answer (`answeredAt` → `startedAt` in
 *   webhook-delivery.service.ts settleAttempt) → "retries a failing receiver at the schedule" (the
 *   gap is the delay, not answer + delay).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { vehicleId } from '@switchyard/domain';
import { webhookConnectionEventV1, webhookFaultEventV1, webhookSyncEventV1, type FaultSnapshotV1 } from '@switchyard/messaging';
import { pollUntil, sleep, startWebhookReceiver, type ReceivedWebhook, type ReceiverAnswer, type WebhookReceiver } from '@switchyard/testing';
import { drainFeed, faultSql, ingestFaults } from './faults-fixture.js';
import { execute } from './gateway-client.js';
import { ingest, readKey, vehicleRecord } from './reads-fixture.js';
import { COLLECTING, createConnection, createSyncApp, evidence, jsonHeaders, receipts, type SyncApp } from './syncs-fixture.js';
import { startTestGateway, type TestGateway } from './support.js';

const SCHEDULE = [300, 600, 1200];
/** An attempt is never earlier than its delay; the receiver's arrival times differ from the sender's start by a few ms. */
const TOLERANCE_MS = 30;

let gw: TestGateway;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  gw = await startTestGateway({ directory: true, faultFeed: true, syncOrchestrator: true, webhookDelivery: { retryScheduleMs: SCHEDULE, pollMs: 50, attemptTimeoutMs: 2_000, secretOverlapMs: 60_000 } });
}, 120_000);

afterAll(async () => {
  for (const r of receivers) await r.close();
  await gw?.close();
});

const gatewaySql = <T>(text: string, params: unknown[] = []) => execute<T>(gw.service, text.replaceAll('$gw.', `"${gw.schemas.gateway}".`), params);

/** A connection collecting one vehicle, projected by the orchestrator, fault-feed and the delivery role's visibility copy, with an application holding a Connection-Token and sync grants. */
async function hookedConnection(): Promise<{ connectionId: string; app: SyncApp }> {
  const connectionId = await createConnection(gw, { ...COLLECTING, purposes: { vehicles: true, groupMemberships: false, trips: false }, approvedVehicleIds: ['veh-1'] });
  await pollUntil(async () => (await faultSql(gw, `select 1 from $faults.connection_config where connection_id = ?::uuid`, [connectionId])).length === 1, { timeoutMs: 15_000, description: 'config in fault-feed' });
  await pollUntil(async () => (await gatewaySql(`select 1 from $gw.vehicle_visibility where connection_id = ?::uuid`, [connectionId])).length === 1, { timeoutMs: 15_000, description: 'visibility set at the delivery role' });
  return { connectionId, app: await createSyncApp(gw, connectionId) };
}

async function receiver(respond?: (w: ReceivedWebhook) => ReceiverAnswer): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver(respond);
  receivers.push(r);
  return r;
}

/** An endpoint of `app` at the receiver's URL; the receiver is given its secret. */
async function endpoint(app: SyncApp, r: WebhookReceiver, eventTypes: string[]): Promise<string> {
  const res = await gw.call('POST', '/v1/webhooks/endpoints', { headers: { authorization: `Bearer ${app.secret}`, 'content-type': 'application/json' }, body: JSON.stringify({ url: r.url, eventTypes }) });
  expect(res.status).toBe(201);
  const body = res.body as { endpoint: { id: string }; secret: string };
  r.secrets = [body.secret];
  return body.endpoint.id;
}

const appHeaders = (app: SyncApp) => ({ authorization: `Bearer ${app.secret}`, 'content-type': 'application/json' });

let clock = Date.UTC(2026, 4, 1);
/** One vehicle's complete snapshot, each a second after the previous one. */
function snapshot(vehicle: string, keys: string[]): FaultSnapshotV1 {
  clock += 1000;
  const at = new Date(clock).toISOString();
  return { model: 'complete_snapshot', provider: 'samsara', vehicleSourceId: vehicle, observedAt: at, active: keys.map((k) => ({ faultKey: k, code: k, description: null })), fetchedAt: at };
}

const arrivals = (r: WebhookReceiver, count: number, description: string) => pollUntil(() => r.received.length >= count && r.received, { timeoutMs: 30_000, description });

interface Message {
  eventId: string;
  sequence: string;
  state: string;
  recordedAt: string;
  attemptCount: number;
  attempts: { attempt: number; status: number | null; error: string | null; trigger: string; retryAfterMs?: number }[];
}
async function log(app: SyncApp, endpointId: string): Promise<Message[]> {
  const res = await gw.call('GET', `/v1/webhooks/endpoints/${endpointId}/messages?limit=100`, { headers: appHeaders(app) });
  expect(res.status).toBe(200);
  return (res.body as { messages: Message[] }).messages;
}

describe('webhook delivery from the durable streams', () => {
  it('delivers fault.opened then fault.cleared per vehicle, signed, as the CloudEvents of the document, with the fault-event feed\'s ids', async () => {
    const { connectionId, app } = await hookedConnection();
    const r = await receiver();
    const endpointId = await endpoint(app, r, ['fault.opened', 'fault.cleared']);
    await ingestFaults(gw, connectionId, 'samsara', [snapshot('v-1', ['spn110'])]);
    await ingestFaults(gw, connectionId, 'samsara', [snapshot('v-1', [])]);
    const got = await arrivals(r, 2, 'opened and cleared delivered');
    expect(got.map((w) => w.verified)).toEqual([true, true]);
    expect(got.map((w) => w.event.type)).toEqual(['fault.opened', 'fault.cleared']);
    for (const w of got) {
      expect(w.contentType).toBe('application/cloudevents+json');
      expect(w.id).toBe(w.event.id);
      expect(webhookFaultEventV1.parse(JSON.parse(w.body))).toEqual(JSON.parse(w.body));
    }
    expect(got[0]!.event.data).toMatchObject({ kind: 'opened', bootstrap: true, fault_key: 'spn110', cleared_by: null, connection_id: connectionId });
    expect(got[1]!.event.data).toMatchObject({ kind: 'cleared', cleared_by: 'snapshot_absent', occurrence_id: got[0]!.event.data.occurrence_id });
    expect(BigInt(got[0]!.event.sequence) < BigInt(got[1]!.event.sequence)).toBe(true);
    // The same ids (and transition sequences) as the pull feed.
    const key = await readKey(gw, [connectionId]);
    const feed = await drainFeed(gw, connectionId, key.headers);
    expect(got.map((w) => [w.id, w.event.data.sequence])).toEqual(feed.events.map((e) => [e.id, e.sequence]));
    const messages = await log(app, endpointId);
    expect(messages.map((m) => [m.state, m.attemptCount, m.attempts.map((a) => a.status)])).toEqual([
      ['delivered', 1, [204]],
      ['delivered', 1, [204]],
    ]);
  });

  it('retries a failing receiver at the schedule, every attempt signed with the same webhook-id, and logs each attempt', async () => {
    const { connectionId, app } = await hookedConnection();
    // Each failure answers after ANSWER_MS: the delay counts from the answer (Svix: "started following the failure").
    const ANSWER_MS = 250;
    const r = await receiver((w) => (w.repeat < 3 ? { status: 500, body: 'busy', delayMs: ANSWER_MS } : { status: 200 }));
    const endpointId = await endpoint(app, r, ['fault.opened']);
    await ingestFaults(gw, connectionId, 'samsara', [snapshot('v-2', ['spn190'])]);
    const got = await arrivals(r, 4, 'three failures and the delivery');
    expect(new Set(got.map((w) => w.id)).size).toBe(1);
    expect(got.every((w) => w.verified)).toBe(true);
    expect(new Set(got.map((w) => w.body)).size).toBe(1);
    for (let i = 1; i < got.length; i++) expect(got[i]!.at - got[i - 1]!.at).toBeGreaterThanOrEqual(ANSWER_MS + SCHEDULE[i - 1]! - TOLERANCE_MS);
    const [message] = await log(app, endpointId);
    expect(message).toMatchObject({ state: 'delivered', attemptCount: 4 });
    expect(message!.attempts.map((a) => [a.attempt, a.status, a.error]).reverse()).toEqual([
      [1, 500, 'http_status'],
      [2, 500, 'http_status'],
      [3, 500, 'http_status'],
      [4, 200, null],
    ]);
  });

  it('fails a message once the schedule is spent', async () => {
    const { connectionId, app } = await hookedConnection();
    const r = await receiver(() => ({ status: 502 }));
    const endpointId = await endpoint(app, r, ['fault.opened']);
    await ingestFaults(gw, connectionId, 'samsara', [snapshot('v-3', ['spn1'])]);
    await arrivals(r, SCHEDULE.length + 1, 'every attempt of the schedule');
    const [message] = await pollUntil(async () => {
      const messages = await log(app, endpointId);
      return messages[0]?.state === 'failed' && messages;
    }, { timeoutMs: 10_000, description: 'message failed' });
    expect(message!.attemptCount).toBe(SCHEDULE.length + 1);
    await sleep(SCHEDULE.at(-1)! + 300);
    expect(r.received).toHaveLength(SCHEDULE.length + 1);
  });

  it('keeps per-vehicle order while a message waits for its retry; another vehicle\'s events are not held', async () => {
    const { connectionId, app } = await hookedConnection();
    const vehicleA = vehicleId({ connectionId, provider: 'samsara', sourceId: 'v-a' });
    // A's opened is refused once with Retry-After: 8 — its retry waits at least 8 s, while A's cleared and B's opened are recorded.
    const r = await receiver((w) => (w.event.type === 'fault.opened' && w.event.subject === vehicleA && w.repeat === 0 ? { status: 503, headers: { 'retry-after': '8' } } : { status: 204 }));
    await endpoint(app, r, ['fault.opened', 'fault.cleared']);
    await ingestFaults(gw, connectionId, 'samsara', [snapshot('v-a', ['k1'])]);
    await pollUntil(() => r.received[0], { timeoutMs: 20_000, description: 'the first attempt of A\'s opened' });
    await ingestFaults(gw, connectionId, 'samsara', [snapshot('v-a', [])]);
    const clearedRecordedAt = performance.now();
    await ingestFaults(gw, connectionId, 'samsara', [snapshot('v-b', ['k2'])]);
    const got = await arrivals(r, 4, 'A opened twice, A cleared, B opened');
    const aDelivered = got.find((w) => w.event.subject === vehicleA && w.event.type === 'fault.opened' && w.repeat === 1)!;
    const aCleared = got.find((w) => w.event.subject === vehicleA && w.event.type === 'fault.cleared')!;
    const bOpened = got.find((w) => w.event.subject !== vehicleA)!;
    // The precondition of the check: A's cleared was recorded while A's opened still waited.
    expect(clearedRecordedAt).toBeLessThan(aDelivered.at);
    expect(aCleared.at).toBeGreaterThan(aDelivered.at);
    // B's opened was recorded after A's cleared and still went out before A's opened got through.
    expect(bOpened.at).toBeLessThan(aDelivered.at);
  });

  it('410 disables the endpoint at once and records webhook.endpoint.disabled; nothing more is sent to it', async () => {
    const { connectionId, app } = await hookedConnection();
    const r = await receiver(() => ({ status: 410 }));
    const endpointId = await endpoint(app, r, ['fault.opened']);
    await ingestFaults(gw, connectionId, 'samsara', [snapshot('v-410', ['k'])]);
    await arrivals(r, 1, 'the attempt answered 410');
    const disabled = await pollUntil(async () => {
      const res = await gw.call('GET', `/v1/webhooks/endpoints/${endpointId}`, { headers: appHeaders(app) });
      return (res.body as { enabled: boolean }).enabled === false && (res.body as Record<string, unknown>);
    }, { timeoutMs: 5_000, description: 'endpoint disabled' });
    expect(disabled).toMatchObject({ enabled: false, disabledReason: 'gone' });
    const [record] = await gatewaySql<{ payload: Record<string, unknown> }>(`select payload from $gw.outbox where subject = ?`, [`events.webhook.disabled.${app.id}`]);
    expect(record!.payload).toMatchObject({ endpointId, applicationId: app.id, reason: 'gone', origin: new URL(r.url).origin });
    // The record reaches EVENTS (the relay marks a row published once JetStream acked it).
    await pollUntil(async () => (await gatewaySql(`select 1 from $gw.outbox where subject = ? and published_at is not null`, [`events.webhook.disabled.${app.id}`])).length === 1, {
      timeoutMs: 10_000,
      description: 'webhook.endpoint.disabled published',
    });
    await ingestFaults(gw, connectionId, 'samsara', [snapshot('v-410b', ['k'])]);
    await sleep(SCHEDULE[0]! * 3);
    expect(r.received).toHaveLength(1);
    // The message waits for the endpoint to be enabled again; enabling sends it.
    expect((await log(app, endpointId)).map((m) => m.state)).toEqual(['pending']);
    r.respond = () => ({ status: 204 });
    await gw.call('PATCH', `/v1/webhooks/endpoints/${endpointId}`, { headers: appHeaders(app), body: JSON.stringify({ enabled: true }) });
    await arrivals(r, 2, 'the pending message after enabling');
  });

  it('honours Retry-After: the next attempt waits at least what the receiver asked, beyond the schedule\'s delay', async () => {
    const { connectionId, app } = await hookedConnection();
    const r = await receiver((w) => (w.repeat === 0 ? { status: 503, headers: { 'retry-after': '2' } } : { status: 204 }));
    const endpointId = await endpoint(app, r, ['fault.opened']);
    await ingestFaults(gw, connectionId, 'samsara', [snapshot('v-ra', ['k'])]);
    const got = await arrivals(r, 2, 'the retry after Retry-After');
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(2_000 - TOLERANCE_MS);
    const [message] = await log(app, endpointId);
    expect(message!.attempts.at(-1)).toMatchObject({ status: 503, retryAfterMs: 2_000 });
  });

  it('disables an endpoint that has failed for the disable window (5 days) and records it', async () => {
    const { connectionId, app } = await hookedConnection();
    const r = await receiver(() => ({ status: 500 }));
    const endpointId = await endpoint(app, r, ['fault.opened']);
    // It has been failing for five days and a minute (the window's default).
    await gatewaySql(`update $gw.webhook_endpoint set failing_since = now() - interval '5 days 1 minute' where id = ?::uuid`, [endpointId]);
    await ingestFaults(gw, connectionId, 'samsara', [snapshot('v-5d', ['k'])]);
    await arrivals(r, 1, 'one more failure');
    const res = await pollUntil(async () => {
      const body = (await gw.call('GET', `/v1/webhooks/endpoints/${endpointId}`, { headers: appHeaders(app) })).body as Record<string, unknown>;
      return body.enabled === false && body;
    }, { timeoutMs: 5_000, description: 'disabled as failing' });
    expect(res).toMatchObject({ disabledReason: 'failing' });
    const [record] = await gatewaySql<{ payload: Record<string, unknown> }>(`select payload from $gw.outbox where subject = ?`, [`events.webhook.disabled.${app.id}`]);
    expect(record!.payload).toMatchObject({ endpointId, reason: 'failing' });
  });

  it('replay re-delivers exactly the asked range: from a sequence, one event, since a time', async () => {
    const { connectionId, app } = await hookedConnection();
    const r = await receiver();
    const endpointId = await endpoint(app, r, ['fault.opened', 'fault.cleared']);
    for (const s of [snapshot('v-r1', ['a']), snapshot('v-r2', ['b']), snapshot('v-r1', []), snapshot('v-r2', [])]) await ingestFaults(gw, connectionId, 'samsara', [s]);
    // Not subscribed: the pause is recorded in the log but is never this endpoint's.
    await gw.connections.configure(connectionId, { status: 'paused' });
    await gw.flushOutbox();
    const first = await arrivals(r, 4, 'four transitions');
    const bySequence = [...first].sort((x, y) => (BigInt(x.event.sequence) < BigInt(y.event.sequence) ? -1 : 1));
    const replay = (body: unknown) => gw.call('POST', `/v1/webhooks/endpoints/${endpointId}/replay`, { headers: appHeaders(app), body: JSON.stringify(body) });

    const fromThird = await replay({ fromSequence: bySequence[2]!.event.sequence });
    expect(fromThird.status).toBe(202);
    expect(fromThird.body).toMatchObject({ replayed: 2, fromSequence: bySequence[2]!.event.sequence, complete: true });
    await arrivals(r, 6, 'the two replayed');
    expect(r.received.slice(4).map((w) => w.id).sort()).toEqual([bySequence[2]!.id, bySequence[3]!.id].sort());
    expect(r.received.slice(4).every((w) => w.verified && w.repeat === 1)).toBe(true);

    expect((await replay({ eventId: bySequence[0]!.id })).body).toMatchObject({ replayed: 1 });
    await arrivals(r, 7, 'the one replayed');
    expect(r.received[6]!.id).toBe(bySequence[0]!.id);
    expect(r.received[6]!.body).toBe(bySequence[0]!.body);

    const messages = await log(app, endpointId);
    const second = messages.find((m) => m.eventId === bySequence[1]!.id)!;
    expect((await replay({ since: second.recordedAt })).body).toMatchObject({ replayed: 3 });
    await arrivals(r, 10, 'the three recorded since the second');
    expect(r.received.slice(7).map((w) => w.id).sort()).toEqual(bySequence.slice(1).map((w) => w.id).sort());
    await sleep(500);
    expect(r.received).toHaveLength(10);
    // The log says which attempts were replays.
    const replayed = (await log(app, endpointId)).find((m) => m.eventId === bySequence[0]!.id)!;
    expect(replayed.attempts.map((a) => a.trigger)).toEqual(['replay', 'scheduled']);
  });

  it('tells sync.completed and sync.failed to the application that created the sync, and connection.paused, resumed and disconnected to every linked application', async () => {
    const { connectionId, app } = await hookedConnection();
    const other = await createSyncApp(gw, connectionId, { name: 'another app' });
    const mine = await receiver();
    const theirs = await receiver();
    await endpoint(app, mine, ['sync.completed', 'sync.failed', 'connection.paused', 'connection.resumed', 'connection.disconnected']);
    await endpoint(other, theirs, ['sync.completed', 'sync.failed', 'connection.paused', 'connection.resumed', 'connection.disconnected']);

    const completed = await gw.call('POST', '/v1/syncs', { headers: jsonHeaders(app), body: '{}' });
    expect(completed.status).toBe(201);
    const syncId = (completed.body as { id: string }).id;
    const leased = await receipts(gw).leaseUnits('collector-w', 10, { connectionId });
    for (const unit of leased) await receipts(gw).markUnitReceipted(unit.unitId, unit.fencingToken, evidence(`w-${unit.unitId}`));
    const cancelled = await gw.call('POST', '/v1/syncs', { headers: jsonHeaders(app), body: '{}' });
    await gw.call('POST', `/v1/syncs/${(cancelled.body as { id: string }).id}/cancel`, { headers: app.headers });

    await gw.connections.configure(connectionId, { status: 'paused' });
    await gw.connections.configure(connectionId, { status: 'active' });
    await gw.connections.disconnect(connectionId);
    await gw.flushOutbox();

    const got = await arrivals(mine, 5, 'two sync outcomes and three status changes');
    expect(got.every((w) => w.verified)).toBe(true);
    const types = got.map((w) => w.event.type);
    expect(types.filter((t) => t.startsWith('sync.'))).toEqual(['sync.completed', 'sync.failed']);
    expect(types.filter((t) => t.startsWith('connection.'))).toEqual(['connection.paused', 'connection.resumed', 'connection.disconnected']);
    const done = got.find((w) => w.event.type === 'sync.completed')!;
    expect(webhookSyncEventV1.parse(JSON.parse(done.body))).toMatchObject({ subject: syncId, data: { connectionId, sync: { id: syncId, status: 'completed', progress: 100 } } });
    expect(got.find((w) => w.event.type === 'sync.failed')!.event.data).toMatchObject({ sync: { status: 'failed', failureReason: 'cancelled' } });
    const paused = got.find((w) => w.event.type === 'connection.paused')!;
    expect(webhookConnectionEventV1.parse(JSON.parse(paused.body))).toMatchObject({ subject: connectionId, data: { status: 'paused', previousStatus: 'active' } });
    // The other application holds a Connection-Token too: it hears the status changes, not this application's syncs.
    const theirsGot = await arrivals(theirs, 3, 'the status changes');
    await sleep(300);
    expect(theirsGot.map((w) => w.event.type)).toEqual(['connection.paused', 'connection.resumed', 'connection.disconnected']);
    expect(theirsGot.map((w) => w.id)).toEqual(got.filter((w) => w.event.type.startsWith('connection.')).map((w) => w.id));
  });

  it('does not send faults of a vehicle hidden from the connection (suppressed in the log)', async () => {
    const { connectionId, app } = await hookedConnection();
    const r = await receiver();
    const endpointId = await endpoint(app, r, ['fault.opened']);
    const now = new Date().toISOString();
    await ingest(gw, connectionId, 'vehicles', [vehicleRecord('v-hidden', now), vehicleRecord('v-shown', now)]);
    const before = (await gatewaySql<{ sequence: string }>(`select sequence::text as sequence from $gw.vehicle_visibility where connection_id = ?::uuid`, [connectionId]))[0]!.sequence;
    await gw.connections.configure(connectionId, { approvedVehicleIds: ['veh-1', 'v-hidden', 'v-shown'], excludeVehicleIds: ['v-hidden'] });
    await gw.flushOutbox();
    const hidden = vehicleId({ connectionId, provider: 'samsara', sourceId: 'v-hidden' });
    await pollUntil(async () => {
      const [row] = await gatewaySql<{ sequence: string; hidden: { vehicleId: string }[] }>(`select sequence::text as sequence, hidden from $gw.vehicle_visibility where connection_id = ?::uuid`, [connectionId]);
      return row && BigInt(row.sequence) > BigInt(before) && row.hidden.some((h) => h.vehicleId === hidden);
    }, { timeoutMs: 15_000, description: 'a set hiding v-hidden at the delivery role' });
    await ingestFaults(gw, connectionId, 'samsara', [snapshot('v-hidden', ['k'])]);
    await ingestFaults(gw, connectionId, 'samsara', [snapshot('v-shown', ['k'])]);
    const got = await arrivals(r, 1, 'the shown vehicle\'s fault');
    await pollUntil(async () => (await log(app, endpointId)).some((m) => m.state === 'suppressed'), { timeoutMs: 5_000, description: 'the hidden one suppressed' });
    expect(got.map((w) => w.event.subject)).toEqual([vehicleId({ connectionId, provider: 'samsara', sourceId: 'v-shown' })]);
    expect((await log(app, endpointId)).map((m) => m.state).sort()).toEqual(['delivered', 'suppressed']);
  });

  it('signs with both secrets during a rotation, so a receiver holding either verifies', async () => {
    const { connectionId, app } = await hookedConnection();
    const r = await receiver();
    const endpointId = await endpoint(app, r, ['fault.opened']);
    const old = r.secrets[0]!;
    const rotated = await gw.call('POST', `/v1/webhooks/endpoints/${endpointId}/rotate-secret`, { headers: { authorization: `Bearer ${app.secret}` } });
    const fresh = (rotated.body as { secret: string }).secret;
    r.secrets = [fresh, old];
    await ingestFaults(gw, connectionId, 'samsara', [snapshot('v-rot', ['k'])]);
    const [w] = await arrivals(r, 1, 'signed twice');
    expect(w!.signatures).toHaveLength(2);
    expect(w!.verifiedBy).toBe(2);
  });
});
