/**
 * The connection-config projection on the real PostgreSQL and NATS: snapshots published on
 * `events.connection.config.<id>` reach the table; an older or repeated revision never changes it;
 * a payload that fails the schema is dead-lettered as `schema_invalid` and never applied; two
 * replicas on one schema share the durable consumer and end with one consistent row per connection.
 * "Processed" is read from the consumer's ack floor, so the no-op checks wait for the message to
 * be settled instead of sleeping and hoping.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { createBus, deadLetterSubject, deadLetterV1, EVENTS, Namespace, subjectFor, type ConnectionConfigV1, type MessageBus } from '@switchyard/messaging';
import { randomUUID } from 'node:crypto';
import { ConnectionConfigStore } from '../src/context/db/connection-config.repository.js';
import { cleanup, eventually, natsUrl, startInstance, uniqueSuffix, type ContextInstance } from './support.js';

const suffix = uniqueSuffix();
const schema = `directory_${suffix}`;
const namespace = `cfg-${suffix}`;
const ns = new Namespace(namespace);
// The durable every replica of the `directory` context shares (ConnectionConfigHandler).
const DURABLE = 'directory-connection-config';

let first: ContextInstance;
let publisher: MessageBus;
let nc: NatsConnection;
let jsm: JetStreamManager;
let store: ConnectionConfigStore;

function snapshot(connectionId: string, revision: number, overrides: Partial<ConnectionConfigV1> = {}): ConnectionConfigV1 {
  return {
    connectionId,
    provider: 'motive',
    environment: 'sandbox',
    status: 'active',
    unifiedCollection: true,
    purposes: { vehicles: true, groupMemberships: false, trips: true },
    // Differs per revision, so the stored row shows which snapshot won.
    approvedVehicleIds: [`vehicle-r${revision}`],
    includeVehicleIds: [],
    excludeVehicleIds: [],
    includeStatuses: ['active'],
    optIns: { groupInventory: false, vehicleMetadata: true, extendedTelemetry: false },
    approvedGroupIds: [],
    selectedSignals: ['odometer'],
    revision,
    updatedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, revision)).toISOString(),
    ...overrides,
  };
}

/** Publishes like the gateway's outbox relay; `msgId` defaults to `<id>:<revision>`. Returns the stream sequence. */
async function publish(config: ConnectionConfigV1, msgId = `${config.connectionId}:${config.revision}`): Promise<number> {
  const ack = await publisher.publish(EVENTS.connectionConfigChanged, subjectFor(EVENTS.connectionConfigChanged.subject, config.connectionId), config, { msgId });
  expect(ack.duplicate).toBe(false);
  return ack.seq;
}

/** Waits until the shared durable has settled (acked or terminated) everything up to `seq`. */
async function settled(seq: number): Promise<void> {
  await eventually(async () => {
    const info = await jsm.consumers.info(ns.stream('EVENTS'), ns.durable(DURABLE));
    expect(info.ack_floor.stream_seq).toBeGreaterThanOrEqual(seq);
  });
}

beforeAll(async () => {
  first = await startInstance(schema, namespace);
  publisher = await createBus({ kind: 'jetstream', servers: natsUrl, name: 'config-publisher', namespace });
  nc = await connect({ servers: natsUrl, name: 'config-raw' });
  jsm = await jetstreamManager(nc);
  store = new ConnectionConfigStore(first.service.runtime.orm);
});

afterAll(async () => {
  await first?.close();
  await publisher?.close();
  await nc?.close();
  await cleanup(schema, namespace);
});

describe('connection-config projection', () => {
  it('applies a published snapshot', async () => {
    const config = snapshot(randomUUID(), 1);
    await publish(config);
    await eventually(async () => expect(await store.get(config.connectionId)).toEqual(config));
  });

  it('never rolls back: an older revision published after a newer one is ignored', async () => {
    const id = randomUUID();
    await publish(snapshot(id, 3));
    await eventually(async () => expect((await store.get(id))?.revision).toBe(3));
    await settled(await publish(snapshot(id, 2, { status: 'paused' })));
    expect(await store.get(id)).toEqual(snapshot(id, 3));
  });

  it('treats the same revision delivered again as a no-op', async () => {
    const id = randomUUID();
    await publish(snapshot(id, 5));
    await eventually(async () => expect((await store.get(id))?.revision).toBe(5));
    // A new msgId passes JetStream's de-duplication: the consumer really sees revision 5 twice.
    await settled(await publish(snapshot(id, 5, { status: 'disconnected' }), `${id}:5:again`));
    expect(await store.get(id)).toEqual(snapshot(id, 5));
    expect(await store.apply(snapshot(id, 5, { status: 'paused' }))).toBe(false);
  });

  it('dead-letters a payload that fails the schema as schema_invalid and does not apply it', async () => {
    const id = randomUUID();
    const raw = JSON.stringify({ ...snapshot(id, 1), provider: 'teletrac' });
    const subject = subjectFor(EVENTS.connectionConfigChanged.subject, id);
    // Straight through NATS: the typed bus refuses to publish an invalid payload.
    const ack = await jetstream(nc).publish(ns.subject(subject), raw, { msgID: `${id}:raw` });
    await settled(ack.seq);
    const stored = await eventually(async () => {
      const message = await jsm.streams.getMessage(ns.stream('DLQ'), { last_by_subj: ns.subject(deadLetterSubject('EVENTS', DURABLE)) });
      if (!message) throw new Error('no dead letter yet');
      return message;
    });
    const letter = deadLetterV1.parse(stored.json());
    expect(letter).toMatchObject({ reason: 'schema_invalid', originalSubject: subject, stream: 'EVENTS', consumer: DURABLE, streamSequence: ack.seq, payloadEncoding: 'utf8', payload: raw });
    expect(await store.get(id)).toBeUndefined();
  });

  it('shares the durable between two replicas on one schema; every row ends at its newest revision', async () => {
    const second = await startInstance(schema, namespace);
    try {
      const ids = Array.from({ length: 20 }, () => randomUUID());
      // Revisions 1..5 of every connection, newest first for half of them, interleaved.
      const messages = ids.flatMap((id, i) => [1, 2, 3, 4, 5].map((revision) => snapshot(id, i % 2 ? revision : 6 - revision)));
      let last = 0;
      for (const config of messages) last = await publish(config);
      await settled(last);
      for (const id of ids) expect(await store.get(id)).toEqual(snapshot(id, 5));
      const rows = await first.service.runtime.orm.em.fork().execute<{ n: string }[]>(`select count(*) as n from "${schema}".connection_config where connection_id in (${ids.map(() => '?').join(',')})`, ids);
      expect(Number(rows[0]?.n)).toBe(ids.length);
      // One durable on the server, and both replicas took part of the work.
      const durables: string[] = [];
      for await (const consumer of jsm.consumers.list(ns.stream('EVENTS'))) durables.push(consumer.name);
      expect(durables).toEqual([ns.durable(DURABLE)]);
      const handled = (instance: ContextInstance) => instance.logText().split('connection config received').length - 1;
      expect(handled(second)).toBeGreaterThan(0);
      expect(handled(first) + handled(second)).toBeGreaterThanOrEqual(messages.length);
    } finally {
      await second.close();
    }
  });
});
