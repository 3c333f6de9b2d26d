/**
 * The operator's dead-letter tools (issue 14, item 1; DeadLetterStore, the `npm run dlq` CLI's
 * engine) on the real NATS: messages a consumer dead-letters are listed by original subject
 * pattern, reason, consumer and time range, inspected by sequence, and replayed to their original
 * subject, where the (now fixed) consumer handles them; a second replay of the same dead letter
 * publishes nothing (`not_found`), so replay is idempotent. Mutation tried: replay without deleting
 * the dead letter — the second replay answers `replayed` and publishes again (JetStream's duplicate
 * window would absorb that copy only for two minutes).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { ALL_STREAMS, createBus, DeadLetterStore, EVENTS, PoisonMessage, subjectFor, type ConnectionConfigV1, type MessageBus, type Subscription } from '../src/index.js';
import { deleteNamespaceStreams, eventually, sleep, uniqueNamespace } from './test-helpers.js';

const servers = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const namespace = uniqueNamespace();
const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

let bus: MessageBus;
let store: DeadLetterStore;
let sub: Subscription;
let accept = false;
const handled: string[] = [];

const config = (): ConnectionConfigV1 => ({
  connectionId: randomUUID(),
  provider: 'samsara',
  environment: 'sandbox',
  status: 'active',
  unifiedCollection: true,
  purposes: { vehicles: true, groupMemberships: true, trips: true },
  approvedVehicleIds: [],
  includeVehicleIds: [],
  excludeVehicleIds: [],
  includeStatuses: [],
  optIns: { groupInventory: false, vehicleMetadata: true, extendedTelemetry: true },
  approvedGroupIds: [],
  selectedSignals: [],
  revision: 1,
  updatedAt: new Date().toISOString(),
});

const publish = (c: ConnectionConfigV1) => bus.publish(EVENTS.connectionConfigChanged, subjectFor(EVENTS.connectionConfigChanged.subject, c.connectionId), c, { msgId: `${c.connectionId}:1` });

beforeAll(async () => {
  bus = await createBus({ kind: 'jetstream', servers, name: 'dlq-test', namespace, logger: silent });
  await bus.ensureStreams(ALL_STREAMS);
  sub = await bus.consume({ durable: 'dlq-test', event: EVENTS.connectionConfigChanged, ackWaitMs: 5_000, maxDeliver: 2, maxAckPending: 8 }, async ({ payload }) => {
    if (!accept) throw new PoisonMessage('test_refused', 'the handler refuses it until fixed');
    handled.push(payload.connectionId);
  });
  store = await DeadLetterStore.open({ servers, namespace, logger: silent });
});

afterAll(async () => {
  await sub?.drain();
  await store?.close();
  await bus?.close();
  await deleteNamespaceStreams(servers, namespace);
});

describe('dead letters: list, inspect, replay', () => {
  it('lists by subject, reason, consumer and time; replays once', async () => {
    const before = new Date();
    const first = config();
    const second = config();
    await publish(first);
    await publish(second);
    let letters = await store.list();
    await eventually(async () => {
      letters = await store.list();
      expect(letters).toHaveLength(2);
    }, 10_000);
    expect(letters.map((l) => l.envelope.reason)).toEqual(['test_refused', 'test_refused']);
    expect(await store.list({ subject: `events.connection.config.${first.connectionId}` })).toHaveLength(1);
    expect(await store.list({ subject: 'events.connection.config.*', reason: 'test_refused', consumer: 'dlq-test' })).toHaveLength(2);
    expect(await store.list({ reason: 'max_deliveries' })).toHaveLength(0);
    expect(await store.list({ subject: 'ingest.>' })).toHaveLength(0);
    expect(await store.list({ from: new Date(Date.now() + 60_000) })).toHaveLength(0);
    expect(await store.list({ from: before, to: new Date(Date.now() + 1_000) })).toHaveLength(2);
    expect(await store.list({ to: before })).toHaveLength(0);

    const target = letters.find((l) => l.envelope.originalSubject.endsWith(first.connectionId))!;
    const inspected = await store.get(target.seq);
    expect(inspected?.envelope).toMatchObject({ originalSubject: `events.connection.config.${first.connectionId}`, consumer: 'dlq-test', reason: 'test_refused', payloadEncoding: 'utf8' });
    expect(JSON.parse(inspected!.envelope.payload)).toEqual(first);

    accept = true;
    expect(await store.replay(target.seq)).toEqual({ seq: target.seq, outcome: 'replayed', subject: `events.connection.config.${first.connectionId}` });
    await eventually(() => expect(handled).toEqual([first.connectionId]), 10_000);
    // Idempotent: the dead letter is gone, a second replay publishes nothing.
    expect(await store.replay(target.seq)).toEqual({ seq: target.seq, outcome: 'not_found' });
    await sleep(500);
    expect(handled).toEqual([first.connectionId]);
    expect((await store.list()).map((l) => l.envelope.originalSubject)).toEqual([`events.connection.config.${second.connectionId}`]);
  }, 30_000);
});
