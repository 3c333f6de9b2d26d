/**
 * The messaging port: the one interface every service uses to talk to every other.
 * Two implementations keep it: JetStream over NATS (production, tests) and an in-process bus
 * (the embedded `npm start` fallback). Both pass the same contract suite (test/bus.contract.ts).
 *
 * Invariants the port promises:
 * - request/reply is at-most-once with a deadline: a missing responder or a timeout rejects with
 *   `BusUnavailableError` / `BusTimeoutError`, never hangs;
 * - durable messages (`publish` + `consume`) are at-least-once: a handler that throws `RetryLater`
 *   (or any non-poison error) sees the message again; a handler that throws `PoisonMessage`, or a
 *   payload that fails its schema, or a message past `maxDeliver` goes to the dead-letter subject
 *   with a reason and is never retried again;
 * - publishing with the same `msgId` inside the duplicate window stores the message once;
 * - delivery order is preserved per subject for a consumer with `maxAckPending: 1`.
 */
import type { z } from 'zod';
import type { DeadLetters } from './dead-letters.js';

/** Headers carried on every message; see the header table in libs/messaging/README.md (src/headers.ts). */
export interface MessageHeaders {
  /** Correlation id of the originating request (x-request-id at the gateway). */
  correlationId?: string;
  /** W3C trace context. */
  traceparent?: string;
  [name: string]: string | undefined;
}

/** A request/reply endpoint: subject plus the zod schemas of both directions. */
export interface RpcDefinition<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  readonly subject: string;
  readonly request: Req;
  readonly response: Res;
}

/** A durable event/command subject carried by a JetStream stream. */
export interface EventDefinition<Payload extends z.ZodType = z.ZodType> {
  /** Subject pattern; `*` tokens are filled by `subjectFor`. */
  readonly subject: string;
  readonly stream: string;
  readonly schema: Payload;
  readonly version: number;
}

/** A stream and the subjects it captures. */
export interface StreamDefinition {
  readonly name: string;
  /** What the stream captures (JetStream `description`, shown by `nats stream info`). */
  readonly description?: string;
  readonly subjects: readonly string[];
  /** Duplicate window for msgId de-duplication, ms. */
  readonly duplicateWindowMs: number;
  readonly maxAgeMs?: number;
  /** Most bytes the stream stores (JetStream `max_bytes`); unlimited when absent. */
  readonly maxBytes?: number;
  /**
   * What a full stream does (decision 0026): `new` refuses the publish (`BusUnavailableError`
   * `stream_full`, a retry-later for every caller) and keeps what it stores; `old` drops its oldest
   * messages to make room. Absent: `old`, JetStream's default.
   */
  readonly discard?: 'new' | 'old';
  /**
   * Copies of the stream on a JetStream cluster (JetStream `num_replicas`, 1 to 5; absent: 1).
   * A deployment sets it (NATS_STREAM_REPLICAS[_<NAME>]); the provisioning step applies it and a
   * service refuses to start on a stream with fewer (decision 0034).
   */
  readonly replicas?: number;
}

/** A durable consumer (a consumer group: every process with the same durable shares the work). */
export interface ConsumerDefinition<Payload extends z.ZodType = z.ZodType> {
  readonly durable: string;
  readonly event: EventDefinition<Payload>;
  /** Narrower filter than the event's subject, e.g. one connection. Defaults to event.subject. */
  readonly filterSubject?: string;
  /** Redelivery after this long without an ack (also the lease of an in-flight message). */
  readonly ackWaitMs: number;
  /** After this many deliveries the message is dead-lettered with reason `max_deliveries`. */
  readonly maxDeliver: number;
  /** 1 keeps strict per-subject order; larger values trade order for throughput. */
  readonly maxAckPending: number;
  /**
   * Nak delay after a failed delivery: `initialMs * 2^(deliveryCount-1)`, capped at `maxMs`.
   * Default 1 s doubling to 60 s. A handler's `RetryLater(delayMs)` overrides it.
   */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
}

/** Context handed to a durable message handler. */
export interface Delivery<T> {
  readonly payload: T;
  readonly subject: string;
  readonly msgId: string | undefined;
  readonly headers: MessageHeaders;
  /** 1 on first delivery. */
  readonly deliveryCount: number;
  /** Extends the ack deadline for long work (JetStream `working()`). */
  inProgress(): void;
}

export interface RequestOptions {
  timeoutMs?: number;
  headers?: MessageHeaders;
}

export interface PublishOptions {
  /** Idempotency key: the same id inside the stream's duplicate window is stored once. */
  msgId: string;
  headers?: MessageHeaders;
}

export interface PublishAck {
  seq: number;
  duplicate: boolean;
}

export interface DrainOptions {
  /**
   * How long to wait for in-flight handlers. Durable consumers: default the consumer's ackWaitMs;
   * handlers still running after it are abandoned — their outcome is never settled, so the message
   * is redelivered after ackWait, exactly as after a crash. RPC: default the bus request timeout;
   * a reply after it is still sent but nobody waits for it.
   */
  deadlineMs?: number;
}

export interface Subscription {
  /** Stops taking new work and waits for in-flight handlers to settle. */
  drain(options?: DrainOptions): Promise<void>;
}

/** Handler outcome for RPC: a typed error travels as `{ error: { code, detail } }` and is rethrown as `RpcError`. */
export type RpcHandler<Req extends z.ZodType, Res extends z.ZodType> = (
  request: z.output<Req>,
  headers: MessageHeaders,
) => Promise<z.input<Res>>;

export type DeliveryHandler<T> = (delivery: Delivery<T>) => Promise<void>;

/** How a durable delivery ended (delivery-runner.ts): what an observer is told. */
export type DeliveryOutcome = 'ack' | 'nak' | 'dead_letter';

/**
 * Told of each durable delivery of one consumer (service-kit's metrics; its traces may listen too).
 * Called synchronously by the delivery runner of either bus; it must not throw or block.
 */
export interface DeliveryObserver {
  /** A message arrived for the handler (before its payload is parsed); `deliveryCount` 1 on first delivery. */
  delivered?(deliveryCount: number): void;
  /**
   * The delivery was settled: `elapsedMs` since it arrived; `reason` of a dead letter; `ackWaitExpired`
   * when the consumer's ack wait passed since its arrival or last `inProgress()` before the settlement
   * (the server has redelivered it meanwhile, or will: an ack after the deadline does not stop that).
   */
  settled?(outcome: DeliveryOutcome, detail: { elapsedMs: number; reason?: string; ackWaitExpired: boolean }): void;
  /** The delivery was abandoned at a drain deadline: never settled, so the server redelivers it after its ack wait. */
  abandoned?(): void;
}

/** Options of `consume` beyond the consumer's definition. */
export interface ConsumeOptions {
  readonly observer?: DeliveryObserver;
}

/** A durable consumer's backlog as the server holds it (JetStream consumer info), for metrics. */
export interface ConsumerState {
  /** Messages matching the filter not yet delivered (`num_pending`). */
  readonly pending: number;
  /** Delivered and not yet acknowledged (`num_ack_pending`). */
  readonly ackPending: number;
  /** Of those, delivered more than once (`num_redelivered`). */
  readonly redelivered: number;
}

export interface MessageBus {
  /** Which implementation: for the start-up log line. */
  readonly kind: 'jetstream' | 'in-process';

  request<Req extends z.ZodType, Res extends z.ZodType>(
    rpc: RpcDefinition<Req, Res>,
    payload: z.input<Req>,
    options?: RequestOptions,
  ): Promise<z.output<Res>>;

  /** Serve an RPC; several processes serving the same subject form a queue group. */
  serve<Req extends z.ZodType, Res extends z.ZodType>(rpc: RpcDefinition<Req, Res>, handler: RpcHandler<Req, Res>): Subscription;

  /**
   * Provisioning: creates or updates the streams to exactly these definitions, idempotently and
   * safe to race. Only the provisioning step calls it (`npm run nats:provision`, the launcher, test
   * harnesses; decision 0033): a service's NATS user may not create or update a stream.
   */
  ensureStreams(streams: readonly StreamDefinition[]): Promise<void>;

  /**
   * What a service calls at start: every stream exists as defined, or StreamConfigMismatchError
   * names the stream and the differing field. Changes nothing.
   */
  verifyStreams(streams: readonly StreamDefinition[]): Promise<void>;

  /** Durable publish to a concrete subject (tokens of the event pattern filled in). */
  publish<P extends z.ZodType>(event: EventDefinition<P>, subject: string, payload: z.input<P>, options: PublishOptions): Promise<PublishAck>;

  /** Creates or updates the durable consumer and starts handling its messages. */
  consume<P extends z.ZodType>(consumer: ConsumerDefinition<P>, handler: DeliveryHandler<z.output<P>>, options?: ConsumeOptions): Promise<Subscription>;

  /** The durable's backlog on the server; undefined when the consumer does not exist (yet). Changes nothing. */
  consumerState(consumer: ConsumerDefinition): Promise<ConsumerState | undefined>;

  /**
   * The dead letters of this bus's DLQ stream, on this bus's connection (dead-letters.ts): list,
   * inspect, replay, discard. The gateway's dead-letter role serves it to the operator console
   * (decision 0046); the `npm run dlq` CLI opens its own connection (`DeadLetterStore`). On
   * JetStream it needs the NATS user's rights on the DLQ stream (the shipped `dead-letters` user).
   */
  deadLetters(): DeadLetters;

  /** True while the underlying connection is usable (readiness). */
  isHealthy(): boolean;

  close(): Promise<void>;
}

/** What a handler of `rpc` receives (after validation). */
export type RpcRequestOf<R extends RpcDefinition> = z.output<R['request']>;
/** What a handler of `rpc` returns (validated before it is sent). */
export type RpcReplyOf<R extends RpcDefinition> = z.input<R['response']>;
