/**
 * `MessageBus` over NATS: core request/reply with a queue group per subject for RPC, JetStream
 * streams with durable pull consumers and explicit acks for everything that must survive a restart.
 * Invariants: every wire name goes through the bus namespace; both RPC directions are validated
 * (rpc-codec.ts); every durable delivery is settled by delivery-runner.ts + settlement.ts, so a
 * message is acked only after its handler returned and terminated only after its dead letter is
 * stored.
 */
import { jetstream, JetStreamApiError, jetstreamManager, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import { errors, headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import type { z } from 'zod';
import { runDelivery, type RawDelivery } from '../delivery-runner.js';
import { BusTimeoutError, BusUnavailableError, MessageValidationError } from '../errors.js';
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
import { EVENTS, Namespace, subjectMatches } from '../subjects.js';
import { openConnection, type TrackedConnection } from './connection.js';
import type { NatsAuth } from './nats-auth.js';
import { ensureConsumer, provisionStream, verifyStream } from './provisioning.js';
import { jetStreamDeadLetterLog } from './dead-letters.js';
import { DeadLetters } from '../dead-letters.js';
import { namespacedStream, streamConfigOf } from './stream-files.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, settleWithin } from '../request-defaults.js';

export interface JetStreamBusOptions {
  servers: string | readonly string[];
  name: string;
  namespace: string;
  logger: BusLogger;
  /** Default request deadline (ms) when `RequestOptions.timeoutMs` is absent. */
  requestTimeoutMs?: number;
  waitOnFirstConnect?: boolean;
  auth?: NatsAuth;
}


function toMsgHdrs(record: Record<string, string>): MsgHdrs | undefined {
  const entries = Object.entries(record);
  if (entries.length === 0) return undefined;
  const h = natsHeaders();
  for (const [k, v] of entries) h.set(k, v);
  return h;
}

function* headerEntries(h: MsgHdrs | undefined): Iterable<[string, string]> {
  if (!h) return;
  for (const [k, values] of h) if (values.length > 0) yield [k, values[0] as string];
}

/** JetStream API error codes of a refused store (nats-server errors.json). */
const STREAM_STORE_FAILED = 10077;
const CONSUMER_NOT_FOUND = 10014;
const INSUFFICIENT_RESOURCES = 10023;

/**
 * The stream refused the message for room: its byte (or message) limit with `discard: new`
 * ("maximum bytes exceeded", 10077), or the server's store is full (10023). Both pass once space is
 * freed, so the publisher hears `stream_full`, a retry-later (decision 0026).
 */
function isStreamFull(error: unknown): boolean {
  if (!(error instanceof JetStreamApiError)) return false;
  if (error.code === INSUFFICIENT_RESOURCES) return true;
  return error.code === STREAM_STORE_FAILED && /maximum (bytes|messages) exceeded/.test(error.message);
}

export class JetStreamBus implements MessageBus {
  readonly kind = 'jetstream' as const;
  private readonly subscriptions = new Set<Subscription>();
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly conn: TrackedConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly ns: Namespace,
    private readonly logger: BusLogger,
    private readonly requestTimeoutMs: number,
  ) {}

  static async connect(options: JetStreamBusOptions): Promise<JetStreamBus> {
    const ns = new Namespace(options.namespace);
    const conn = await openConnection(options);
    try {
      const jsm = await jetstreamManager(conn.nc);
      return new JetStreamBus(conn, jetstream(conn.nc), jsm, ns, options.logger, options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS);
    } catch (error) {
      await conn.close();
      throw error;
    }
  }

  async request<Req extends z.ZodType, Res extends z.ZodType>(
    rpc: RpcDefinition<Req, Res>,
    payload: z.input<Req>,
    options?: RequestOptions,
  ): Promise<z.output<Res>> {
    const data = encodeRequest(rpc, payload);
    const timeoutMs = options?.timeoutMs ?? this.requestTimeoutMs;
    // Disconnected (NATS down or restarting): fail now — the caller answers 503 with Retry-After —
    // instead of buffering the request until its deadline (docs/reliability.md).
    if (!this.conn.isHealthy()) throw new BusUnavailableError(rpc.subject, 'connection_closed');
    let reply;
    try {
      reply = await this.conn.nc.request(this.ns.subject(rpc.subject), data, {
        timeout: timeoutMs,
        headers: toMsgHdrs(toWireHeaders(outgoingHeaders(options?.headers))),
      });
    } catch (error) {
      throw this.mapRequestError(rpc.subject, timeoutMs, error);
    }
    return decodeReply(rpc, reply.data);
  }

  private mapRequestError(subject: string, timeoutMs: number, error: unknown): Error {
    if (error instanceof errors.TimeoutError) return new BusTimeoutError(subject, timeoutMs);
    if (error instanceof errors.RequestError && error.isNoResponders()) return new BusUnavailableError(subject, 'no_responders', { cause: error });
    if (error instanceof errors.ClosedConnectionError || error instanceof errors.DrainingConnectionError) {
      return new BusUnavailableError(subject, 'connection_closed', { cause: error });
    }
    if (error instanceof errors.RequestError) return new BusUnavailableError(subject, 'connection_error', { cause: error });
    return error instanceof Error ? error : new Error(String(error));
  }

  serve<Req extends z.ZodType, Res extends z.ZodType>(rpc: RpcDefinition<Req, Res>, handler: RpcHandler<Req, Res>): Subscription {
    const subject = this.ns.subject(rpc.subject);
    const inFlight = new Set<Promise<void>>();
    const sub = this.conn.nc.subscribe(subject, {
      // One queue group per subject: each request goes to exactly one of the serving processes.
      queue: subject,
      callback: (err, msg) => {
        if (err) {
          this.logger.error({ subject: rpc.subject, ...describeError(err) }, 'rpc subscription error');
          return;
        }
        const work = answerRequest(rpc, handler, msg.data, fromWireHeaders(headerEntries(msg.headers)), this.logger)
          .then((body) => {
            if (msg.reply) msg.respond(body);
          })
          .catch((error: unknown) => this.logger.error({ subject: rpc.subject, ...describeError(error) }, 'rpc reply failed'))
          .finally(() => inFlight.delete(work));
        inFlight.add(work);
      },
    });
    const subscription: Subscription = {
      drain: async (options?: DrainOptions) => {
        this.subscriptions.delete(subscription);
        if (!sub.isClosed() && !this.conn.nc.isClosed()) await sub.drain();
        await settleWithin([...inFlight], options?.deadlineMs ?? this.requestTimeoutMs);
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  deadLetters(): DeadLetters {
    return new DeadLetters(jetStreamDeadLetterLog(this.js, this.jsm, this.ns));
  }

  async ensureStreams(streams: readonly StreamDefinition[]): Promise<void> {
    for (const def of streams) await provisionStream(this.jsm, namespacedStream(streamConfigOf(def), this.ns), this.logger);
  }

  async verifyStreams(streams: readonly StreamDefinition[]): Promise<void> {
    for (const def of streams) await verifyStream(this.jsm, namespacedStream(streamConfigOf(def), this.ns));
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
    if (!subjectMatches(event.subject, subject)) throw new TypeError(`subject ${subject} does not match ${event.subject}`);
    const parsed = event.schema.safeParse(payload);
    if (!parsed.success) throw new MessageValidationError(subject, describeIssues(parsed.error));
    const wire = toWireHeaders(outgoingHeaders(headers), { ...owned, [HEADERS.msgVersion]: String(event.version) });
    try {
      const ack = await this.js.publish(this.ns.subject(subject), encodeJson(parsed.data), { msgID: msgId, headers: toMsgHdrs(wire) });
      return { seq: ack.seq, duplicate: ack.duplicate };
    } catch (error) {
      // No stream listens on the subject: the client reports the no-responders reply as
      // JetStreamNotEnabled (a class it does not export), with the RequestError as cause.
      const cause = error instanceof Error ? error.cause : undefined;
      if (cause instanceof errors.RequestError && cause.isNoResponders()) throw new BusUnavailableError(subject, 'no_stream', { cause: error });
      if (isStreamFull(error)) throw new BusUnavailableError(subject, 'stream_full', { cause: error });
      if (error instanceof errors.TimeoutError) throw new BusTimeoutError(subject, this.js.getOptions().timeout ?? 0);
      throw error;
    }
  }

  async consume<P extends z.ZodType>(consumer: ConsumerDefinition<P>, handler: DeliveryHandler<z.output<P>>, options?: ConsumeOptions): Promise<Subscription> {
    const { stream, durable } = await ensureConsumer(this.jsm, this.ns, consumer, this.logger);
    const pull = await this.js.consumers.get(stream, durable);
    // The client buffer holds at most maxAckPending messages, so buffered messages never sit
    // unprocessed past their ack wait while the handler works through a long queue.
    const messages = await pull.consume({ max_messages: consumer.maxAckPending });
    const inFlight = new Set<Promise<unknown>>();
    let stopped = false;
    let abandoned = false;

    const handle = (m: JsMsg): Promise<unknown> => {
      const raw: RawDelivery = {
        subject: this.ns.strip(m.subject),
        data: m.data,
        msgId: m.headers?.get(HEADERS.msgId) || undefined,
        headers: fromWireHeaders(headerEntries(m.headers)),
        deliveryCount: m.info.deliveryCount,
        streamSequence: m.seq,
      };
      return runDelivery({
        consumer,
        handler,
        message: raw,
        logger: this.logger,
        isAbandoned: () => abandoned,
        observer: options?.observer,
        port: {
          ack: () => m.ack(),
          nak: (delayMs) => m.nak(delayMs),
          // No reason string: `+TERM <reason>` needs nats-server 2.11; the reason is in the DLQ.
          term: () => m.term(),
          working: () => m.working(),
          publishDeadLetter: async (subject, envelope, msgId, headers, owned) => {
            await this.publishOwned(EVENTS.deadLetter, subject, envelope, msgId, headers, owned);
          },
        },
      }).catch((error: unknown) => this.logger.error({ durable: consumer.durable, ...describeError(error) }, 'delivery failed'));
    };

    const loop = (async () => {
      for await (const m of messages) {
        if (stopped) break; // left unacked: redelivered after ackWait to another member
        const work = handle(m).finally(() => inFlight.delete(work));
        inFlight.add(work);
        while (inFlight.size >= consumer.maxAckPending) await Promise.race(inFlight);
      }
    })().catch((error: unknown) => this.logger.error({ durable: consumer.durable, ...describeError(error) }, 'consumer loop ended'));

    const subscription: Subscription = {
      drain: async (options?: DrainOptions) => {
        this.subscriptions.delete(subscription);
        stopped = true;
        await messages.close();
        if (!(await settleWithin([...inFlight, loop], options?.deadlineMs ?? consumer.ackWaitMs))) abandoned = true;
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  async consumerState(consumer: ConsumerDefinition): Promise<ConsumerState | undefined> {
    // `info()` asks the server (`info(true)` would answer the client's cached copy; notes/stack.md).
    const info = await this.jsm.consumers.info(this.ns.stream(consumer.event.stream), this.ns.durable(consumer.durable)).catch((error: unknown) => {
      if (error instanceof JetStreamApiError && error.code === CONSUMER_NOT_FOUND) return undefined;
      throw error;
    });
    return info && { pending: info.num_pending, ackPending: info.num_ack_pending, redelivered: info.num_redelivered };
  }

  isHealthy(): boolean {
    return this.conn.isHealthy();
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled([...this.subscriptions].map((s) => s.drain()));
      await this.conn.close();
    })();
    return this.closing;
  }
}
