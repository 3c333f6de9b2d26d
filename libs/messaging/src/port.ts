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

  /** Creates or updates streams idempotently (safe to call from every process at start). */
  ensureStreams(streams: readonly StreamDefinition[]): Promise<void>;

  /** Durable publish to a concrete subject (tokens of the event pattern filled in). */
  publish<P extends z.ZodType>(event: EventDefinition<P>, subject: string, payload: z.input<P>, options: PublishOptions): Promise<PublishAck>;

  /** Creates or updates the durable consumer and starts handling its messages. */
  consume<P extends z.ZodType>(consumer: ConsumerDefinition<P>, handler: DeliveryHandler<z.output<P>>): Promise<Subscription>;

  /** True while the underlying connection is usable (readiness). */
  isHealthy(): boolean;

  close(): Promise<void>;
}

/** What a handler of `rpc` receives (after validation). */
export type RpcRequestOf<R extends RpcDefinition> = z.output<R['request']>;
/** What a handler of `rpc` returns (validated before it is sent). */
export type RpcReplyOf<R extends RpcDefinition> = z.input<R['response']>;
