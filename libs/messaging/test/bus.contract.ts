/**
 * The contract every `MessageBus` keeps, run against both implementations
 * (jetstream-bus.int-spec.ts, in-process-bus.int-spec.ts). Each case uses its own subjects and
 * durables under the bus namespace, so cases never see each other's messages.
 * Timings: ackWait 600 ms and a 50 ms backoff keep the whole suite to a few seconds per bus.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  ALL_STREAMS,
  BusTimeoutError,
  BusUnavailableError,
  EVENTS,
  PoisonMessage,
  RpcError,
  STREAMS,
  deadLetterSubject,
  subjectFor,
  type BusLogger,
  type ConsumerDefinition,
  type DeadLetterV1,
  type Delivery,
  type DeliveryObserver,
  type EventDefinition,
  type MessageBus,
  type RpcDefinition,
  type StreamDefinition,
  type Subscription,
} from '../src/index.js';
import { eventually, sleep, type CapturedLog } from './test-helpers.js';

export type MakeBus = (options?: { logger?: BusLogger }) => Promise<MessageBus>;

const ACK_WAIT_MS = 600;
const BACKOFF = { initialMs: 50, maxMs: 200 };

const itemSchema = z.object({ n: z.number().int(), label: z.string() }).strict();
type Item = z.output<typeof itemSchema>;
const itemEvent: EventDefinition<typeof itemSchema> = { subject: 'events.contract.*', stream: 'EVENTS', schema: itemSchema, version: 1 };
/** Same subject, no rules: the only way to get bytes that fail `itemSchema` into the stream. */
const looseEvent: EventDefinition = { subject: 'events.contract.*', stream: 'EVENTS', schema: z.unknown(), version: 1 };

const echoRequest = z.object({ text: z.string().min(1) }).strict();
const echoResponse = z.object({ echoed: z.string(), correlationId: z.string().optional() }).strict();
const echoRpc = (name: string): RpcDefinition<typeof echoRequest, typeof echoResponse> => ({
  subject: `contract.${name}.echo`,
  request: echoRequest,
  response: echoResponse,
});
const looseRpc = (name: string): RpcDefinition => ({ subject: `contract.${name}.echo`, request: z.unknown(), response: z.unknown() });

function consumerFor(name: string, overrides: Partial<ConsumerDefinition<typeof itemSchema>> = {}): ConsumerDefinition<typeof itemSchema> {
  return {
    durable: `contract_${name}`,
    event: itemEvent,
    filterSubject: subjectFor(itemEvent.subject, name),
    ackWaitMs: ACK_WAIT_MS,
    maxDeliver: 5,
    maxAckPending: 10,
    backoff: BACKOFF,
    ...overrides,
  };
}

export function runBusContract(label: string, makeBus: MakeBus): void {
  describe(`MessageBus contract: ${label}`, () => {
    let bus: MessageBus;
    const logs: CapturedLog[] = [];
    const logger: BusLogger = {
      info: (obj, msg) => logs.push({ level: 'info', obj, msg }),
      warn: (obj, msg) => logs.push({ level: 'warn', obj, msg }),
      error: (obj, msg) => logs.push({ level: 'error', obj, msg }),
    };
    const open: Subscription[] = [];
    const extraBuses: MessageBus[] = [];
    const track = <S extends Subscription>(sub: S): S => (open.push(sub), sub);
    const anotherBus = async (): Promise<MessageBus> => {
      const b = await makeBus({ logger });
      extraBuses.push(b);
      return b;
    };

    const publishItem = (name: string, item: Item, msgId: string, headers?: Record<string, string>) =>
      bus.publish(itemEvent, subjectFor(itemEvent.subject, name), item, { msgId, headers });

    /** Collects the dead letters a durable writes. */
    async function watchDeadLetters(name: string): Promise<Delivery<DeadLetterV1>[]> {
      const letters: Delivery<DeadLetterV1>[] = [];
      track(
        await bus.consume(
          {
            durable: `dlqwatch_${name}`,
            event: EVENTS.deadLetter,
            filterSubject: deadLetterSubject('EVENTS', `contract_${name}`),
            ackWaitMs: ACK_WAIT_MS,
            maxDeliver: 5,
            maxAckPending: 10,
          },
          async (d) => {
            letters.push(d);
          },
        ),
      );
      return letters;
    }

    beforeAll(async () => {
      bus = await makeBus({ logger });
      await bus.ensureStreams(ALL_STREAMS);
    });

    afterEach(async () => {
      await Promise.all(open.splice(0).map((s) => s.drain({ deadlineMs: 100 })));
      await Promise.all(extraBuses.splice(0).map((b) => b.close()));
    });

    afterAll(async () => {
      await bus.close();
    });

    it('reports its kind and health', () => {
      expect(['jetstream', 'in-process']).toContain(bus.kind);
      expect(bus.isHealthy()).toBe(true);
    });

    it('round-trips a request with both sides validated', async () => {
      track(bus.serve(echoRpc('rt'), async (req, headers) => ({ echoed: req.text.toUpperCase(), correlationId: headers.correlationId })));
      await expect(bus.request(echoRpc('rt'), { text: 'hi' }, { headers: { correlationId: 'corr-1' } })).resolves.toEqual({
        echoed: 'HI',
        correlationId: 'corr-1',
      });
      // Requester side: an invalid request never leaves.
      await expect(bus.request(echoRpc('rt'), { text: '' })).rejects.toMatchObject({ name: 'RpcError', code: 'invalid_request' });
      // Responder side: bytes that bypass the requester's schema are refused before the handler.
      // (the loose definition skips requester-side checks, so this rejection comes from the responder)
      await expect(bus.request(looseRpc('rt'), { text: 42 })).rejects.toMatchObject({ name: 'RpcError', code: 'invalid_request' });
    });

    it('rejects a response that fails its schema on either side', async () => {
      track(bus.serve(looseRpc('badres'), async () => ({ echoed: 5 })));
      await expect(bus.request(echoRpc('badres'), { text: 'x' })).rejects.toMatchObject({ code: 'invalid_response' });
      const strictServer = echoRpc('badres2');
      track(bus.serve(strictServer, async () => ({ echoed: 7 }) as unknown as { echoed: string }));
      await expect(bus.request(strictServer, { text: 'x' })).rejects.toMatchObject({ code: 'internal_error' });
    });

    it('propagates an RpcError code and detail to the requester', async () => {
      track(
        bus.serve(echoRpc('err'), async () => {
          throw new RpcError('connection_not_found', 'no such connection');
        }),
      );
      const error = await bus.request(echoRpc('err'), { text: 'x' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RpcError);
      expect(error).toMatchObject({ code: 'connection_not_found', detail: 'no such connection' });
    });

    it('turns an unexpected handler error into internal_error, logged without the payload', async () => {
      track(
        bus.serve(echoRpc('boom'), async () => {
          throw new Error('exploded');
        }),
      );
      await expect(bus.request(echoRpc('boom'), { text: 'secret-payload-value' })).rejects.toMatchObject({ code: 'internal_error' });
      const entry = logs.find((l) => l.msg === 'rpc handler failed' && (l.obj as { subject?: string }).subject === 'contract.boom.echo');
      expect(entry).toBeDefined();
      expect(JSON.stringify(entry)).toContain('exploded');
      expect(JSON.stringify(logs)).not.toContain('secret-payload-value');
    });

    it('times out with BusTimeoutError within the deadline when the handler never answers', async () => {
      track(bus.serve(echoRpc('slow'), () => new Promise(() => undefined)));
      const started = Date.now();
      await expect(bus.request(echoRpc('slow'), { text: 'x' }, { timeoutMs: 300 })).rejects.toBeInstanceOf(BusTimeoutError);
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(280);
      expect(elapsed).toBeLessThan(1_000);
    });

    it('fails fast with BusUnavailableError when nobody serves the subject', async () => {
      const started = Date.now();
      await expect(bus.request(echoRpc('nobody'), { text: 'x' }, { timeoutMs: 5_000 })).rejects.toBeInstanceOf(BusUnavailableError);
      expect(Date.now() - started).toBeLessThan(1_000);
    });

    it('spreads requests over a queue group and handles each exactly once', async () => {
      const [a, b] = [await anotherBus(), await anotherBus()];
      const handled: Record<string, string[]> = { a: [], b: [] };
      track(a.serve(echoRpc('queue'), async (req) => (handled.a?.push(req.text), { echoed: 'a' })));
      track(b.serve(echoRpc('queue'), async (req) => (handled.b?.push(req.text), { echoed: 'b' })));
      // Subscriptions made on other connections reach the server asynchronously: wait until both answer.
      await eventually(async () => {
        const seen = new Set<string>();
        for (let i = 0; i < 10; i++) seen.add((await bus.request(echoRpc('queue'), { text: `warm${i}` })).echoed);
        expect(seen.size).toBe(2);
      });
      handled.a = [];
      handled.b = [];
      const ids = Array.from({ length: 30 }, (_, i) => `r${i}`);
      await Promise.all(ids.map((text) => bus.request(echoRpc('queue'), { text })));
      expect([...(handled.a ?? []), ...(handled.b ?? [])].sort()).toEqual([...ids].sort());
      expect(handled.a?.length).toBeGreaterThan(0);
      expect(handled.b?.length).toBeGreaterThan(0);
    });

    it('ensures streams idempotently, also when processes race', async () => {
      const other = await anotherBus();
      await Promise.all([bus.ensureStreams(ALL_STREAMS), other.ensureStreams(ALL_STREAMS), bus.ensureStreams(ALL_STREAMS)]);
      await expect(publishItem('idem', { n: 1, label: 'x' }, 'idem-1')).resolves.toMatchObject({ duplicate: false });
    });

    it('refuses to publish to a subject no stream captures', async () => {
      const orphan: EventDefinition = { subject: 'orphan.contract.*', stream: 'ORPHAN', schema: z.unknown(), version: 1 };
      await expect(bus.publish(orphan, 'orphan.contract.x', { a: 1 }, { msgId: 'o1' })).rejects.toBeInstanceOf(BusUnavailableError);
    });

    // Decision 0026. Mutation tried: the streams' `discard` switched to 'old' in subjects.ts — no
    // publish is refused, and the consumer finds only the newest items (the oldest were dropped).
    it('refuses a publish to a full stream with stream_full and keeps everything it stored', async () => {
      // INGEST's limits policy on a stream of its own, with room for a handful of items.
      const tinyStream: StreamDefinition = { ...STREAMS.INGEST, name: 'TINY', subjects: ['tiny.>'], maxBytes: 2_000 };
      const tinyEvent: EventDefinition<typeof itemSchema> = { subject: 'tiny.contract.*', stream: 'TINY', schema: itemSchema, version: 1 };
      await bus.ensureStreams([tinyStream]);
      const label = 'x'.repeat(100);
      let refusal: unknown;
      let stored = 0;
      for (let n = 0; n < 100 && refusal === undefined; n++) {
        await bus.publish(tinyEvent, 'tiny.contract.a', { n, label }, { msgId: `tiny-${n}` }).then(
          () => void (stored += 1),
          (error: unknown) => void (refusal = error),
        );
      }
      // Nothing stored was dropped to make room: a consumer from the start sees items 0 … stored-1.
      const seen: number[] = [];
      track(await bus.consume({ durable: 'contract_tiny', event: tinyEvent, ackWaitMs: ACK_WAIT_MS, maxDeliver: 5, maxAckPending: 100 }, async (d) => void seen.push(d.payload.n)));
      await eventually(() => expect(seen).toHaveLength(stored));
      expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: stored }, (_, n) => n));
      // … and the publish after the last stored one was refused as a retry-later.
      expect(refusal).toBeInstanceOf(BusUnavailableError);
      expect(refusal).toMatchObject({ reason: 'stream_full', subject: 'tiny.contract.a' });
      expect(stored).toBeGreaterThan(2);
      // A repeated msgId inside the duplicate window is still answered as a duplicate, not refused.
      await expect(bus.publish(tinyEvent, 'tiny.contract.a', { n: 0, label }, { msgId: 'tiny-0' })).resolves.toMatchObject({ duplicate: true });
      process.stdout.write(`[stream-limits] ${bus.kind}: ${stored} items stored under maxBytes ${tinyStream.maxBytes}, the next refused (stream_full), none dropped\n`);
    });

    it('stores a repeated msgId once and delivers it once', async () => {
      const first = await publishItem('dedupe', { n: 1, label: 'once' }, 'dedupe-1');
      const second = await publishItem('dedupe', { n: 1, label: 'once' }, 'dedupe-1');
      expect(first.duplicate).toBe(false);
      expect(second).toEqual({ seq: first.seq, duplicate: true });
      const seen: Item[] = [];
      track(await bus.consume(consumerFor('dedupe'), async (d) => void seen.push(d.payload)));
      await eventually(() => expect(seen).toHaveLength(1));
      await sleep(ACK_WAIT_MS + 200);
      expect(seen).toEqual([{ n: 1, label: 'once' }]);
    });

    it("runs handlers outside the caller's async context (no AsyncLocalStorage leaks between services)", async () => {
      const store = new AsyncLocalStorage<string>();
      const seenByConsumer: (string | undefined)[] = [];
      const seenByServer: (string | undefined)[] = [];
      track(await bus.consume(consumerFor('context'), async () => void seenByConsumer.push(store.getStore())));
      track(bus.serve(echoRpc('context'), async (req) => (seenByServer.push(store.getStore()), { echoed: req.text, correlationId: undefined })));
      await store.run('publisher-context', async () => {
        await publishItem('context', { n: 1, label: 'ctx' }, 'context-1');
        await bus.request(echoRpc('context'), { text: 'x' });
      });
      await eventually(() => expect(seenByConsumer).toHaveLength(1));
      expect(seenByConsumer).toEqual([undefined]);
      expect(seenByServer).toEqual([undefined]);
    });

    it('keeps per-subject order with maxAckPending 1, also across a retry', async () => {
      for (let n = 0; n < 50; n++) await publishItem('order', { n, label: 'o' }, `order-${n}`);
      const done: number[] = [];
      let failedOnce = false;
      track(
        await bus.consume(consumerFor('order', { maxAckPending: 1 }), async (d) => {
          if (d.payload.n === 10 && !failedOnce) {
            failedOnce = true;
            throw new Error('transient');
          }
          done.push(d.payload.n);
        }),
      );
      await eventually(() => expect(done).toHaveLength(50), 10_000);
      expect(done).toEqual(Array.from({ length: 50 }, (_, n) => n));
    });

    it('redelivers after a handler throws, with deliveryCount 2', async () => {
      const counts: number[] = [];
      track(
        await bus.consume(consumerFor('retry'), async (d) => {
          counts.push(d.deliveryCount);
          if (d.deliveryCount === 1) throw new Error('first attempt fails');
        }),
      );
      await publishItem('retry', { n: 1, label: 'r' }, 'retry-1');
      await eventually(() => expect(counts).toEqual([1, 2]));
      await sleep(ACK_WAIT_MS + 100);
      expect(counts).toEqual([1, 2]);
    });

    it('redelivers after ackWait when a consumer dies holding the message', async () => {
      let release: () => void = () => undefined;
      const stuck = new Promise<void>((resolve) => (release = resolve));
      let firstAt = 0;
      const crashed = await bus.consume(consumerFor('crash'), async () => {
        firstAt = Date.now();
        await stuck; // never settles while the "process" is alive
      });
      await publishItem('crash', { n: 1, label: 'c' }, 'crash-1');
      await eventually(() => expect(firstAt).toBeGreaterThan(0));
      await crashed.drain({ deadlineMs: 50 }); // gives up on the in-flight handler: no ack
      // The abandoned handler now finishes, well inside ackWait: its outcome must not be settled,
      // or the message would be acked and never come back.
      release();
      const redelivered: Delivery<Item>[] = [];
      track(await bus.consume(consumerFor('crash'), async (d) => void redelivered.push(d)));
      await eventually(() => expect(redelivered).toHaveLength(1), 5_000);
      expect(redelivered[0]?.deliveryCount).toBe(2);
      expect(Date.now() - firstAt).toBeGreaterThanOrEqual(ACK_WAIT_MS - 100);
      await sleep(ACK_WAIT_MS + 200);
      expect(redelivered).toHaveLength(1);
    });

    it('dead-letters a schema-invalid payload as schema_invalid without retrying', async () => {
      const letters = await watchDeadLetters('invalid');
      let calls = 0;
      track(await bus.consume(consumerFor('invalid'), async () => void calls++));
      await bus.publish(looseEvent, subjectFor(itemEvent.subject, 'invalid'), { n: 'not a number' }, { msgId: 'invalid-1', headers: { correlationId: 'corr-dlq' } });
      await eventually(() => expect(letters).toHaveLength(1));
      const letter = letters[0]?.payload;
      expect(letter).toMatchObject({
        reason: 'schema_invalid',
        originalSubject: 'events.contract.invalid',
        stream: 'EVENTS',
        consumer: 'contract_invalid',
        msgId: 'invalid-1',
        deliveryCount: 1,
        payloadEncoding: 'utf8',
      });
      expect(JSON.parse(letter?.payload ?? '')).toEqual({ n: 'not a number' });
      expect(letters[0]?.headers).toMatchObject({ correlationId: 'corr-dlq', 'x-dead-letter-reason': 'schema_invalid' });
      await sleep(ACK_WAIT_MS + 200);
      expect(calls).toBe(0);
      expect(letters).toHaveLength(1);
    });

    it('dead-letters on PoisonMessage with its reason, after one attempt', async () => {
      const letters = await watchDeadLetters('poison');
      let calls = 0;
      track(
        await bus.consume(consumerFor('poison'), async () => {
          calls++;
          throw new PoisonMessage('unknown_vehicle', 'vehicle 42 is not approved');
        }),
      );
      await publishItem('poison', { n: 42, label: 'p' }, 'poison-1');
      await eventually(() => expect(letters).toHaveLength(1));
      expect(letters[0]?.payload).toMatchObject({ reason: 'unknown_vehicle', detail: 'vehicle 42 is not approved', deliveryCount: 1 });
      await sleep(ACK_WAIT_MS + 200);
      expect(calls).toBe(1);
    });

    it('dead-letters max_deliveries after maxDeliver failed attempts', async () => {
      const letters = await watchDeadLetters('exhaust');
      const counts: number[] = [];
      track(
        await bus.consume(consumerFor('exhaust', { maxDeliver: 3 }), async (d) => {
          counts.push(d.deliveryCount);
          throw new Error('always fails');
        }),
      );
      await publishItem('exhaust', { n: 1, label: 'e' }, 'exhaust-1');
      await eventually(() => expect(letters).toHaveLength(1), 5_000);
      expect(letters[0]?.payload).toMatchObject({ reason: 'max_deliveries', deliveryCount: 3 });
      expect(letters[0]?.payload.detail).toContain('always fails');
      await sleep(ACK_WAIT_MS + 200);
      expect(counts).toEqual([1, 2, 3]);
    });

    // Mutation tried: replay without removing the dead letter → the second replay answers `replayed`
    // and the consumer sees the item twice; discard that publishes → the consumer sees item 2.
    it('lists its dead letters, replays one once to the fixed consumer and discards another (deadLetters())', async () => {
      const dead = bus.deadLetters();
      let fixed = false;
      const handled: number[] = [];
      track(
        await bus.consume(consumerFor('replay'), async (d) => {
          if (!fixed) throw new PoisonMessage('not_yet_fixed', 'refused until the fix');
          handled.push(d.payload.n);
        }),
      );
      await publishItem('replay', { n: 1, label: 'r' }, 'replay-1');
      await publishItem('replay', { n: 2, label: 'r' }, 'replay-2');
      let letters: Awaited<ReturnType<typeof dead.list>> = [];
      await eventually(async () => {
        letters = await dead.list({ consumer: 'contract_replay' });
        expect(letters).toHaveLength(2);
      }, 5_000);
      expect(letters.map((l) => [l.envelope.reason, l.envelope.originalSubject, JSON.parse(l.envelope.payload).n])).toEqual([
        ['not_yet_fixed', 'events.contract.replay', 1],
        ['not_yet_fixed', 'events.contract.replay', 2],
      ]);
      expect(await dead.list({ consumer: 'contract_replay', subject: 'events.contract.other' })).toEqual([]);
      expect((await dead.get(letters[0]!.seq))?.envelope.msgId).toBe('replay-1');
      fixed = true;
      const [first, second] = letters as [(typeof letters)[0], (typeof letters)[0]];
      expect(await dead.replay(first.seq)).toEqual({ seq: first.seq, outcome: 'replayed', subject: 'events.contract.replay' });
      expect(await dead.replay(first.seq)).toEqual({ seq: first.seq, outcome: 'not_found' });
      expect(await dead.discard(second.seq)).toEqual({ seq: second.seq, outcome: 'discarded', subject: 'events.contract.replay' });
      expect(await dead.discard(second.seq)).toEqual({ seq: second.seq, outcome: 'not_found' });
      await eventually(() => expect(handled).toEqual([1]), 5_000);
      expect(await dead.list({ consumer: 'contract_replay' })).toEqual([]);
      await sleep(ACK_WAIT_MS + 200);
      expect(handled).toEqual([1]);
    });

    it('tells an observer every arrival and settlement: ack, nak, dead letter with its reason, a late ack as an ack-wait expiry', async () => {
      const events: string[] = [];
      const observer: DeliveryObserver = {
        delivered: (count) => events.push(`delivered ${count}`),
        settled: (outcome, { reason, ackWaitExpired, elapsedMs }) => {
          expect(elapsedMs).toBeGreaterThanOrEqual(0);
          events.push(`${outcome}${reason ? ` ${reason}` : ''}${ackWaitExpired ? ' expired' : ''}`);
        },
      };
      const letters = await watchDeadLetters('observed');
      track(
        await bus.consume(
          consumerFor('observed', { maxAckPending: 1 }),
          async (d) => {
            if (d.payload.label === 'fail' && d.deliveryCount === 1) throw new Error('once');
            if (d.payload.label === 'poison') throw new PoisonMessage('observed_poison');
            // Past the ack wait without inProgress(): the server redelivers; the late ack is told as expired.
            if (d.payload.label === 'slow' && d.deliveryCount === 1) await sleep(ACK_WAIT_MS + 150);
          },
          { observer },
        ),
      );
      await publishItem('observed', { n: 1, label: 'fail' }, 'observed-1');
      await eventually(() => expect(events).toEqual(['delivered 1', 'nak', 'delivered 2', 'ack']));
      await publishItem('observed', { n: 2, label: 'poison' }, 'observed-2');
      await eventually(() => expect(events.slice(4)).toEqual(['delivered 1', 'dead_letter observed_poison']));
      await eventually(() => expect(letters).toHaveLength(1));
      await publishItem('observed', { n: 3, label: 'slow' }, 'observed-3');
      await eventually(() => expect(events.slice(6)).toContain('ack expired'), 5_000);
      expect(events.slice(6)[0]).toBe('delivered 1');
    });

    it('reports a durable\'s backlog: pending before delivery, ack pending while handled, nothing for an unknown durable', async () => {
      expect(await bus.consumerState(consumerFor('never_created'))).toBeUndefined();
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      const def = consumerFor('backlog', { maxAckPending: 1 });
      const first = await bus.consume(def, async () => held);
      await first.drain({ deadlineMs: 10 }); // the durable exists; nobody takes work now
      for (let n = 0; n < 3; n++) await publishItem('backlog', { n, label: 'b' }, `backlog-${n}`);
      await eventually(async () => expect(await bus.consumerState(def)).toMatchObject({ pending: 3, ackPending: 0 }));
      track(await bus.consume(def, async () => held));
      await eventually(async () => expect(await bus.consumerState(def)).toMatchObject({ pending: 2, ackPending: 1 }));
      release();
      await eventually(async () => expect(await bus.consumerState(def)).toMatchObject({ pending: 0, ackPending: 0 }), 5_000);
    });

    it('shares one durable between two consumers without double processing', async () => {
      const other = await anotherBus();
      const byConsumer: Record<'a' | 'b', number[]> = { a: [], b: [] };
      const def = consumerFor('shared', { maxAckPending: 2 });
      const work = (who: 'a' | 'b') => async (d: Delivery<Item>) => {
        await sleep(15);
        byConsumer[who].push(d.payload.n);
      };
      track(await bus.consume(def, work('a')));
      track(await other.consume(def, work('b')));
      for (let n = 0; n < 30; n++) await publishItem('shared', { n, label: 's' }, `shared-${n}`);
      await eventually(() => expect(byConsumer.a.length + byConsumer.b.length).toBe(30), 10_000);
      expect([...byConsumer.a, ...byConsumer.b].sort((x, y) => x - y)).toEqual(Array.from({ length: 30 }, (_, n) => n));
      expect(byConsumer.a.length).toBeGreaterThan(0);
      expect(byConsumer.b.length).toBeGreaterThan(0);
    });

    it('carries correlation id, trace context, msgId and version to durable handlers', async () => {
      const got: Delivery<Item>[] = [];
      track(await bus.consume(consumerFor('headers'), async (d) => void got.push(d)));
      const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      await publishItem('headers', { n: 1, label: 'h' }, 'headers-1', { correlationId: 'corr-h', traceparent });
      await eventually(() => expect(got).toHaveLength(1));
      expect(got[0]).toMatchObject({ subject: 'events.contract.headers', msgId: 'headers-1', deliveryCount: 1 });
      expect(got[0]?.headers).toMatchObject({ correlationId: 'corr-h', traceparent, 'x-msg-version': '1' });
    });

    it('is unhealthy and refuses work after close', async () => {
      const other = await makeBus({ logger });
      expect(other.isHealthy()).toBe(true);
      await other.close();
      expect(other.isHealthy()).toBe(false);
      await expect(other.request(echoRpc('closed'), { text: 'x' })).rejects.toBeInstanceOf(BusUnavailableError);
    });
  });
}
