/**
 * `MessageBus` in memory, for the embedded launcher when no NATS exists. Same semantics as the
 * JetStream bus, proven by the same contract suite: payloads cross as JSON bytes (so nothing that
 * would not survive the wire survives here), requests time out or fail fast without responders,
 * durable deliveries are settled by the shared delivery runner. Work is always handed out on a later
 * tick, never inside the caller's stack, like a network hop.
 * Invariant: durability ends with the process; this bus is for one-machine demos and tests only.
 */
import type { z } from 'zod';
import { AsyncResource } from 'node:async_hooks';
import { runDelivery } from '../delivery-runner.js';
import { BusTimeoutError, BusUnavailableError, MessageValidationError, StreamConfigMismatchError } from '../errors.js';
import { streamConfigOf, streamDifferences } from '../jetstream/stream-files.js';
import { outgoingHeaders } from '../correlation.js';
import { fromWireHeaders, HEADERS, toWireHeaders } from '../headers.js';
import { describeError, type BusLogger } from '../logger.js';
import type {
  ConsumeOptions,
  ConsumerDefinition,
  ConsumerState,
  DeliveryHandler,
  DrainOptions,
  EventDefinition,
  MessageBus,
  MessageHeaders,
  PublishAck,
  PublishOptions,
  RequestOptions,
  RpcDefinition,
  RpcHandler,
  StreamDefinition,
  Subscription,
} from '../port.js';
import { answerRequest, decodeReply, describeIssues, encodeJson, encodeRequest } from '../rpc-codec.js';
import { EVENTS, Namespace, STREAMS, subjectMatches } from '../subjects.js';
import { DeadLetters } from '../dead-letters.js';
import { acquireBroker, releaseBroker, type Broker, type RpcEndpoint, type StoredMessage } from './broker.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, settleWithin } from '../request-defaults.js';

export interface InProcessBusOptions {
  namespace: string;
  logger: BusLogger;
  requestTimeoutMs?: number;
}

const nextTick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class InProcessBus implements MessageBus {
  readonly kind = 'in-process' as const;
  private readonly broker: Broker;
  private readonly subscriptions = new Set<Subscription>();
  private closed = false;
  private closing: Promise<void> | undefined;
  private readonly requestTimeoutMs: number;

  constructor(private readonly options: InProcessBusOptions) {
    new Namespace(options.namespace); // same validation as the JetStream bus
    this.broker = acquireBroker(options.namespace);
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  private assertOpen(subject: string): void {
    if (this.closed) throw new BusUnavailableError(subject, 'connection_closed');
  }

  async request<Req extends z.ZodType, Res extends z.ZodType>(
    rpc: RpcDefinition<Req, Res>,
    payload: z.input<Req>,
    options?: RequestOptions,
  ): Promise<z.output<Res>> {
    this.assertOpen(rpc.subject);
    const data = encodeRequest(rpc, payload);
    const group = this.broker.rpc.get(rpc.subject);
    if (!group || group.endpoints.length === 0) throw new BusUnavailableError(rpc.subject, 'no_responders');
    const endpoint = group.endpoints[group.next++ % group.endpoints.length] as RpcEndpoint;
    const timeoutMs = options?.timeoutMs ?? this.requestTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new BusTimeoutError(rpc.subject, timeoutMs)), timeoutMs);
    });
    try {
      const reply = await Promise.race([nextTick().then(() => endpoint(data, toWireHeaders(outgoingHeaders(options?.headers)))), deadline]);
      return decodeReply(rpc, reply);
    } finally {
      clearTimeout(timer);
    }
  }

  serve<Req extends z.ZodType, Res extends z.ZodType>(rpc: RpcDefinition<Req, Res>, handler: RpcHandler<Req, Res>): Subscription {
    this.assertOpen(rpc.subject);
    const inFlight = new Set<Promise<Uint8Array>>();
    // Handlers run in the async context of whoever called serve(), never the requester's, as they
    // would across processes: AsyncLocalStorage state (a MikroORM request context, a correlation
    // store) must not leak from one service into another through the in-process bus.
    const scope = new AsyncResource('switchyard.in-process.serve');
    const endpoint: RpcEndpoint = (data, headers) =>
      scope.runInAsyncScope(() => {
        const work = answerRequest(rpc, handler, data, fromWireHeaders(Object.entries(headers)), this.options.logger).finally(() => inFlight.delete(work));
        inFlight.add(work);
        return work;
      });
    const group = this.broker.rpc.get(rpc.subject) ?? { endpoints: [], next: 0 };
    this.broker.rpc.set(rpc.subject, group);
    group.endpoints.push(endpoint);
    const subscription: Subscription = {
      drain: async (options?: DrainOptions) => {
        this.subscriptions.delete(subscription);
        group.endpoints = group.endpoints.filter((e) => e !== endpoint);
        await settleWithin([...inFlight], options?.deadlineMs ?? this.requestTimeoutMs);
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  /** The broker's DLQ stream as a dead-letter log: what the JetStream bus offers, in memory. */
  deadLetters(): DeadLetters {
    const broker = this.broker;
    const dlq = () => broker.streams.get(STREAMS.DLQ.name);
    const record = (m: StoredMessage) => ({ seq: m.seq, storedAt: new Date(m.at), data: m.data });
    return new DeadLetters({
      streamName: STREAMS.DLQ.name,
      async *scan(from) {
        // A copy: a replay or discard during the walk must not skip the next message.
        for (const m of [...(dlq()?.messages ?? [])]) if (!from || m.at >= from.getTime()) yield record(m);
      },
      get: async (seq) => {
        const m = broker.findMessage(STREAMS.DLQ.name, seq);
        return m && record(m);
      },
      remove: async (seq) => broker.remove(STREAMS.DLQ.name, seq),
      publishRaw: async (subject, data, headers, msgId) => {
        this.assertOpen(subject);
        await nextTick();
        const stream = broker.findStream(subject);
        if (!stream) throw new BusUnavailableError(subject, 'no_stream');
        broker.store(stream, subject, data, headers, msgId);
      },
    });
  }

  async ensureStreams(streams: readonly StreamDefinition[]): Promise<void> {
    this.assertOpen('$streams');
    for (const def of streams) this.broker.ensureStream(def);
  }

  async verifyStreams(streams: readonly StreamDefinition[]): Promise<void> {
    this.assertOpen('$streams');
    for (const def of streams) {
      const existing = this.broker.streams.get(def.name);
      if (!existing) throw new StreamConfigMismatchError(def.name, []);
      // The same comparison as a JetStream stream's (provisioning.ts), on the declared definitions.
      const differences = streamDifferences(streamConfigOf(existing.def), streamConfigOf(def), 'at-least');
      if (differences.length > 0) throw new StreamConfigMismatchError(def.name, differences);
    }
  }

  async publish<P extends z.ZodType>(event: EventDefinition<P>, subject: string, payload: z.input<P>, options: PublishOptions): Promise<PublishAck> {
    return this.publishOwned(event, subject, payload, options.msgId, options.headers, {});
  }

  private async publishOwned(
    event: EventDefinition,
    subject: string,
    payload: unknown,
    msgId: string,
    headers: MessageHeaders | undefined,
    owned: Record<string, string>,
  ): Promise<PublishAck> {
    this.assertOpen(subject);
    if (!subjectMatches(event.subject, subject)) throw new TypeError(`subject ${subject} does not match ${event.subject}`);
    const parsed = event.schema.safeParse(payload);
    if (!parsed.success) throw new MessageValidationError(subject, describeIssues(parsed.error));
    await nextTick();
    const stream = this.broker.findStream(subject);
    if (!stream) throw new BusUnavailableError(subject, 'no_stream');
    const wire = toWireHeaders(outgoingHeaders(headers), { ...owned, [HEADERS.msgVersion]: String(event.version) });
    return this.broker.store(stream, subject, encodeJson(parsed.data), wire, msgId);
  }

  async consume<P extends z.ZodType>(consumer: ConsumerDefinition<P>, handler: DeliveryHandler<z.output<P>>, options?: ConsumeOptions): Promise<Subscription> {
    this.assertOpen(consumer.event.subject);
    new Namespace('').durable(consumer.durable); // same name rules as JetStream
    if (!this.broker.streams.has(consumer.event.stream)) throw new BusUnavailableError(consumer.event.subject, 'no_stream');
    const durable = this.broker.upsertDurable(consumer, consumer.filterSubject ?? consumer.event.subject);
    const inFlight = new Set<Promise<unknown>>();
    let abandoned = false;
    const logger = this.options.logger;

    // Deliveries run in the consumer's async context, not the publisher's (see serve()).
    const scope = new AsyncResource('switchyard.in-process.consume');
    const member = {
      deliver: (message: { seq: number; subject: string; data: Uint8Array; headers: Record<string, string>; msgId: string | undefined }, deliveryCount: number) => {
        const work: Promise<unknown> = scope.runInAsyncScope(() =>
            nextTick()
            .then(() =>
              runDelivery({
                consumer,
                handler,
                logger,
                isAbandoned: () => abandoned,
                observer: options?.observer,
                message: {
                  subject: message.subject,
                  data: message.data,
                  msgId: message.msgId,
                  headers: fromWireHeaders(Object.entries(message.headers)),
                  deliveryCount,
                  streamSequence: message.seq,
                },
                port: {
                  ack: () => this.broker.settle(durable, message.seq),
                  term: () => this.broker.settle(durable, message.seq),
                  nak: (delayMs) => this.broker.nak(durable, message.seq, deliveryCount, delayMs),
                  working: () => this.broker.working(durable, message.seq, deliveryCount),
                  publishDeadLetter: async (subject, envelope, msgId, headers, owned) => {
                    await this.publishOwned(EVENTS.deadLetter, subject, envelope, msgId, headers, owned);
                  },
                },
              }),
            )
            .catch((error: unknown) => logger.error({ durable: consumer.durable, ...describeError(error) }, 'delivery failed'))
            .finally(() => inFlight.delete(work)),
        );
        inFlight.add(work);
      },
    };
    durable.members.push(member);
    this.broker.pump(durable);

    const subscription: Subscription = {
      drain: async (options?: DrainOptions) => {
        this.subscriptions.delete(subscription);
        durable.members = durable.members.filter((m) => m !== member);
        if (!(await settleWithin([...inFlight], options?.deadlineMs ?? consumer.ackWaitMs))) abandoned = true;
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  consumerState(consumer: ConsumerDefinition): Promise<ConsumerState | undefined> {
    return Promise.resolve(this.broker.state(consumer));
  }

  isHealthy(): boolean {
    return !this.closed;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled([...this.subscriptions].map((s) => s.drain()));
      this.closed = true;
      releaseBroker(this.options.namespace, this.broker);
    })();
    return this.closing;
  }
}
