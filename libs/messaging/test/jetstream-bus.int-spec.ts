import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DiscardPolicy, jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { z } from 'zod';
import {
  createBus,
  Namespace,
  PoisonMessage,
  SERVER_MAX_DELIVER_SPARE,
  STREAMS,
  streamConfigOf,
  withStreamLimits,
  type BusLogger,
  type ConsumerDefinition,
  type EventDefinition,
  type MessageBus,
  type StreamDefinition,
} from '../src/index.js';
import { runBusContract } from './bus.contract.js';
import { deleteNamespaceStreams, eventually, uniqueNamespace } from './test-helpers.js';

const servers = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const namespace = uniqueNamespace();

runBusContract('jetstream', (options) => createBus({ kind: 'jetstream', servers, name: `messaging-contract-${namespace}`, namespace, logger: options?.logger }));

afterAll(async () => {
  // Delete every stream of this run (their consumers go with them).
  await deleteNamespaceStreams(servers, namespace);
});

/**
 * Byte limits on a running NATS (decision 0026): a stream created before its limit gets it at the
 * next start, and a limit is never lowered below what the stream stores, because nats-server
 * deletes the oldest messages at once when max_bytes drops under the stored bytes — whatever the
 * discard policy. Mutation tried: `appliedMaxBytes` returning the declared limit unconditionally —
 * the second case ends with 5 of its 10 messages.
 */
describe('stream byte limits on an existing stream', () => {
  const ns = new Namespace(namespace);
  let bus: MessageBus;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  const warnings: string[] = [];

  beforeAll(async () => {
    const logger: BusLogger = { info: () => undefined, warn: (_obj, msg) => void warnings.push(msg), error: () => undefined };
    bus = await createBus({ kind: 'jetstream', servers, name: `messaging-limits-${namespace}`, namespace, logger });
    nc = await connect({ servers });
    jsm = await jetstreamManager(nc);
  });

  afterAll(async () => {
    await bus.close();
    await nc.close();
  });

  /** A stream as the code before decision 0026 created it (no byte limit, discard old), holding `count` messages of 100 bytes. */
  async function legacyStream(name: string, count: number): Promise<StreamDefinition> {
    const def: StreamDefinition = { ...STREAMS.INGEST, name, subjects: [`${name.toLowerCase()}.>`] };
    await jsm.streams.add({ name: ns.stream(name), subjects: [ns.subject(`${name.toLowerCase()}.>`)], discard: DiscardPolicy.Old });
    const js = jetstream(nc);
    for (let i = 0; i < count; i++) await js.publish(ns.subject(`${name.toLowerCase()}.a`), new Uint8Array(100), { msgID: `${name}-${i}` });
    return def;
  }

  it('applies the declared limit and discard new to a stream created without them', async () => {
    const def = await legacyStream('LEGACYA', 3);
    await bus.ensureStreams([{ ...def, maxBytes: 100_000 }]);
    const info = await jsm.streams.info(ns.stream('LEGACYA'));
    expect(info.config).toMatchObject({ max_bytes: 100_000, discard: DiscardPolicy.New });
    expect(info.state.messages).toBe(3);
    // Idempotent: a second ensure finds nothing to change.
    await bus.ensureStreams([{ ...def, maxBytes: 100_000 }]);
    expect((await jsm.streams.info(ns.stream('LEGACYA'))).config.max_bytes).toBe(100_000);
  });

  it('keeps every message of a stream storing more than the declared limit, and warns', async () => {
    const def = await legacyStream('LEGACYB', 10);
    const before = await jsm.streams.info(ns.stream('LEGACYB'));
    await bus.ensureStreams([{ ...def, maxBytes: 1_000 }]);
    const after = await jsm.streams.info(ns.stream('LEGACYB'));
    process.stdout.write(`[stream-limits] existing stream of ${before.state.bytes} bytes, declared limit 1000: ${after.state.messages} of ${before.state.messages} messages kept, max_bytes ${after.config.max_bytes}\n`);
    expect(after.state.messages).toBe(10);
    expect(after.state.first_seq).toBe(1);
    expect(after.config.max_bytes).toBe(-1);
    expect(after.config.discard).toBe(DiscardPolicy.New);
    expect(warnings.some((w) => w.includes('limit not lowered'))).toBe(true);
  });
});

/**
 * A full DLQ (decision 0026: discard new) neither loops nor loses: a poison message whose dead
 * letter is refused is naked, not terminated, and redelivered with backoff until the server's own
 * cap (maxDeliver + SERVER_MAX_DELIVER_SPARE deliveries; the handler runs only for the first
 * maxDeliver), then left in its own stream, each refusal logged with that stream and sequence.
 * Mutation tried: `port.term()` after a failed dead-letter write in delivery-runner.ts — one
 * refusal logged instead of maxDeliver + spare, the message given up at its first failure.
 */
describe('a full dead-letter stream', () => {
  const dlqNamespace = uniqueNamespace();
  const ns = new Namespace(dlqNamespace);
  const errorsLogged: Record<string, unknown>[] = [];
  let bus: MessageBus;
  let nc: NatsConnection;

  beforeAll(async () => {
    const logger: BusLogger = { info: () => undefined, warn: () => undefined, error: (obj, msg) => void errorsLogged.push({ ...obj, msg }) };
    bus = await createBus({ kind: 'jetstream', servers, name: `messaging-dlq-full-${dlqNamespace}`, namespace: dlqNamespace, logger });
    nc = await connect({ servers });
  });

  afterAll(async () => {
    await bus.close();
    const jsm = await jetstreamManager(nc);
    for await (const name of jsm.streams.names()) if (name.startsWith(ns.stream('X').slice(0, -1))) await jsm.streams.delete(name);
    await nc.close();
  });

  it('redelivers a poison message a bounded number of times and keeps it in its stream', async () => {
    await bus.ensureStreams(withStreamLimits({ DLQ: 1 })); // no room for any dead letter
    const event: EventDefinition = { subject: 'events.dlqfull.*', stream: 'EVENTS', schema: z.object({ n: z.number() }), version: 1 };
    const consumer: ConsumerDefinition = { durable: 'dlqfull', event, ackWaitMs: 600, maxDeliver: 2, maxAckPending: 1, backoff: { initialMs: 20, maxMs: 50 } };
    let handled = 0;
    const sub = await bus.consume(consumer, async () => {
      handled += 1;
      throw new PoisonMessage('poison_test');
    });
    const { seq } = await bus.publish(event, 'events.dlqfull.a', { n: 1 }, { msgId: 'dlqfull-1' });
    const jsm = await jetstreamManager(nc);
    const refusals = () => errorsLogged.filter((e) => e['msg'] === 'dead-letter write failed; message will be redelivered');
    // Settled for good: nothing pending or waiting for an ack, after every delivery the server allows.
    await eventually(async () => {
      const info = await jsm.consumers.info(ns.stream('EVENTS'), ns.durable('dlqfull'));
      expect(refusals()).toHaveLength(consumer.maxDeliver + SERVER_MAX_DELIVER_SPARE);
      expect(info.num_ack_pending + info.num_pending).toBe(0);
    }, 15_000);
    await sub.drain({ deadlineMs: 100 });
    process.stdout.write(`[stream-limits] full DLQ: poison message handled ${handled}×, dead-letter write refused ${refusals().length}× (maxDeliver ${consumer.maxDeliver} + spare ${SERVER_MAX_DELIVER_SPARE}), then left in its stream at seq ${seq}\n`);
    expect(handled).toBe(consumer.maxDeliver);
    expect(refusals()[0]).toMatchObject({ stream: 'EVENTS', streamSequence: seq, errMessage: expect.stringContaining('stream_full') });
    expect((await jsm.streams.info(ns.stream('DLQ'))).state.messages).toBe(0);
    expect((await jsm.streams.getMessage(ns.stream('EVENTS'), { seq }))?.seq).toBe(seq);
  }, 30_000);
});

/**
 * Provisioned streams (decision 0033, issue 25 item 1): `ensureStreams` (the provisioning step)
 * sets a stream to exactly its declaration — whatever someone added (a message limit, a subject, a
 * republish) is gone — and `verifyStreams` (a service at start) changes nothing and names the
 * stream and each differing field. Mutations tried: the update setting only the fields the code
 * owned before (subjects, windows, byte limit, discard) on top of the live config → "restores a
 * tampered stream" fails (max_msgs 1 survives); dropping `republish` from the forbidden fields →
 * "names every differing field" fails.
 */
describe('provisioned streams: the provisioning step restores, a service only verifies', () => {
  const ns = new Namespace(namespace);
  let bus: MessageBus;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  const def = (name: string): StreamDefinition => ({ ...STREAMS.EVENTS, name, subjects: [`${name.toLowerCase()}.>`] });

  beforeAll(async () => {
    bus = await createBus({ kind: 'jetstream', servers, name: `messaging-provision-${namespace}`, namespace, logger: { info: () => undefined, warn: () => undefined, error: () => undefined } });
    nc = await connect({ servers });
    jsm = await jetstreamManager(nc);
  });

  afterAll(async () => {
    await bus.close();
    await nc.close();
  });

  /** The attacks of issue 25: a message limit and another service's subject by update, a republish at create (an update cannot add one). */
  async function tamper(name: string, how: 'update' | 'create'): Promise<void> {
    const changes = { max_msgs: 1, subjects: [ns.subject(`${name.toLowerCase()}.>`), ns.subject(`gateway.connection.provider-access.${name.toLowerCase()}`)] };
    if (how === 'update') return void (await jsm.streams.update(ns.stream(name), changes));
    await jsm.streams.add({ ...streamConfigOf(def(name)), name: ns.stream(name), ...changes, republish: { src: ns.subject(`${name.toLowerCase()}.>`), dest: ns.subject('leak.>') } } as never);
  }

  it('names every differing field, refuses a missing stream, and changes nothing', async () => {
    await expect(bus.verifyStreams([def('VMISSING')])).rejects.toThrow(/stream .*VMISSING does not exist .*provisioning step/);
    await tamper('VDRIFT', 'create');
    const refused = bus.verifyStreams([def('VDRIFT')]);
    await expect(refused).rejects.toThrow(/stream .*VDRIFT differs from its definition/);
    await expect(refused).rejects.toThrow(/max_msgs is 1, expected -1/);
    await expect(refused).rejects.toThrow(/subjects are .*gateway\.connection\.provider-access/);
    await expect(refused).rejects.toThrow(/republish is .*leak/);
    expect((await jsm.streams.info(ns.stream('VDRIFT'))).config.max_msgs).toBe(1); // verifying changed nothing
    // The server cannot remove a republish by update: provisioning stops and says what to do.
    await expect(bus.ensureStreams([def('VDRIFT')])).rejects.toThrow(/stream .*VDRIFT.*delete the stream/);
  });

  it('takes a smaller byte limit than declared as a difference, a larger one (kept by appliedMaxBytes) not', async () => {
    await bus.ensureStreams([def('VBYTES')]);
    await bus.verifyStreams([def('VBYTES')]);
    await jsm.streams.update(ns.stream('VBYTES'), { max_bytes: 1_048_576 });
    await expect(bus.verifyStreams([def('VBYTES')])).rejects.toThrow(/max_bytes is 1048576, expected at least/);
    await jsm.streams.update(ns.stream('VBYTES'), { max_bytes: (STREAMS.EVENTS.maxBytes ?? 0) * 2 });
    await bus.verifyStreams([def('VBYTES')]);
  });

  // mutation: the num_replicas comparison left out of streamDifferences (or 'at-least' read as "any") → this test fails.
  it('refuses a stream with fewer replicas than configured (an error, not a warning), accepts as many', async () => {
    await bus.ensureStreams([def('VREPL')]); // one server: one copy
    expect((await jsm.streams.info(ns.stream('VREPL'))).config.num_replicas).toBe(1);
    await bus.verifyStreams([def('VREPL')]);
    await bus.verifyStreams([{ ...def('VREPL'), replicas: 1 }]);
    await expect(bus.verifyStreams([{ ...def('VREPL'), replicas: 3 }])).rejects.toThrow(/stream .*VREPL differs from its definition .*num_replicas is 1, expected at least 3/);
    // One server cannot hold three copies: provisioning says so instead of creating a single-copy stream.
    await expect(bus.ensureStreams([{ ...def('VREPL3'), replicas: 3 }])).rejects.toThrow(/replicas/i);
  });

  it('restores a tampered stream to exactly its declaration', async () => {
    await bus.ensureStreams([def('VRESTORE')]);
    await tamper('VRESTORE', 'update');
    await bus.ensureStreams([def('VRESTORE')]);
    const config = (await jsm.streams.info(ns.stream('VRESTORE'))).config;
    expect(config.max_msgs).toBe(-1);
    expect(config.subjects).toEqual([ns.subject('vrestore.>')]);
    await bus.verifyStreams([def('VRESTORE')]);
  });
});
