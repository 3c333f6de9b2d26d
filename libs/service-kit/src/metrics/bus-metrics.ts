/**
 * The bus as one service uses it, measured (decision 0041): a MessageBus that passes every call to
 * the process's bus and records, in this service's registry,
 * - request/reply on both ends: requests sent and answered by subject and outcome, and durations;
 * - every durable delivery of the service's consumers (through the bus's DeliveryObserver):
 *   delivered, redelivered, acked, naked, dead-lettered by reason, ack-wait expiries, handling time;
 * - each consumer's backlog on the server (pending, ack pending), read when Prometheus scrapes.
 * startService wraps the bus it is given once, so handlers, clients and the transport all go
 * through it; the bus itself stays the caller's (one launcher process shares one bus among six
 * services, each with its own registry). Cost per request: two clock reads and two Map lookups.
 */
import {
  BusTimeoutError,
  BusUnavailableError,
  RpcError,
  type ConsumeOptions,
  type ConsumerDefinition,
  type ConsumerState,
  type DeliveryHandler,
  type DeliveryObserver,
  type EventDefinition,
  type MessageBus,
  type PublishAck,
  type PublishOptions,
  type RequestOptions,
  type RpcDefinition,
  type RpcHandler,
  type StreamDefinition,
  type Subscription,
} from '@switchyard/messaging';
import type { z } from 'zod';
import type { ServiceMetrics } from './service-metrics.js';

/** How a request ended, as the `outcome` label: ok, the RpcError code, timeout, or the bus's unavailable reason. */
export function rpcOutcome(error: unknown): string {
  if (error instanceof RpcError) return error.code;
  if (error instanceof BusTimeoutError) return 'timeout';
  if (error instanceof BusUnavailableError) return error.reason;
  return 'internal_error';
}

/** The observer of one durable's deliveries, recording into `metrics`. */
export function deliveryMetrics(metrics: ServiceMetrics, durable: string): DeliveryObserver {
  const delivered = metrics.child('consumerDelivered', durable);
  const redelivered = metrics.child('consumerRedelivered', durable);
  const acked = metrics.child('consumerAcked', durable);
  const naks = metrics.child('consumerNaks', durable);
  const expiries = metrics.child('consumerAckWaitExpiries', durable);
  const handling = metrics.child('consumerHandlingDuration', durable);
  return {
    delivered(count) {
      delivered.inc();
      if (count > 1) redelivered.inc();
    },
    settled(outcome, { elapsedMs, reason, ackWaitExpired }) {
      handling.observe(elapsedMs / 1000);
      if (ackWaitExpired) expiries.inc();
      if (outcome === 'ack') acked.inc();
      else if (outcome === 'nak') naks.inc();
      else metrics.child('deadLetters', durable, reason ?? 'unknown').inc();
    },
    abandoned() {
      expiries.inc();
    },
  };
}

export class MeasuredBus implements MessageBus {
  /** Durables this service consumes, by name: their backlog is read at scrape. */
  private readonly consumed = new Map<string, ConsumerDefinition>();

  constructor(
    private readonly bus: MessageBus,
    private readonly metrics: ServiceMetrics,
    /** How long one read of the consumers' backlog serves scrapes (one JetStream API call per durable per read). */
    options: { consumerStateTtlMs?: number } = {},
  ) {
    metrics.addSource({
      name: 'consumer_state',
      families: ['consumerPending', 'consumerAckPending'],
      ttlMs: options.consumerStateTtlMs ?? 5_000,
      read: () => this.consumerFigures(),
    });
  }

  get kind(): MessageBus['kind'] {
    return this.bus.kind;
  }

  async request<Req extends z.ZodType, Res extends z.ZodType>(rpc: RpcDefinition<Req, Res>, payload: z.input<Req>, options?: RequestOptions): Promise<z.output<Res>> {
    const started = performance.now();
    let outcome = 'ok';
    try {
      return await this.bus.request(rpc, payload, options);
    } catch (error) {
      outcome = rpcOutcome(error);
      throw error;
    } finally {
      this.metrics.child('rpcClientDuration', rpc.subject).observe((performance.now() - started) / 1000);
      this.metrics.child('rpcClientRequests', rpc.subject, outcome).inc();
    }
  }

  serve<Req extends z.ZodType, Res extends z.ZodType>(rpc: RpcDefinition<Req, Res>, handler: RpcHandler<Req, Res>): Subscription {
    const duration = this.metrics.child('rpcServerDuration', rpc.subject);
    const ok = this.metrics.child('rpcServerRequests', rpc.subject, 'ok');
    return this.bus.serve(rpc, async (request, headers) => {
      const started = performance.now();
      try {
        const reply = await handler(request, headers);
        ok.inc();
        return reply;
      } catch (error) {
        this.metrics.child('rpcServerRequests', rpc.subject, rpcOutcome(error)).inc();
        throw error;
      } finally {
        duration.observe((performance.now() - started) / 1000);
      }
    });
  }

  ensureStreams(streams: readonly StreamDefinition[]): Promise<void> {
    return this.bus.ensureStreams(streams);
  }

  verifyStreams(streams: readonly StreamDefinition[]): Promise<void> {
    return this.bus.verifyStreams(streams);
  }

  publish<P extends z.ZodType>(event: EventDefinition<P>, subject: string, payload: z.input<P>, options: PublishOptions): Promise<PublishAck> {
    return this.bus.publish(event, subject, payload, options);
  }

  consume<P extends z.ZodType>(consumer: ConsumerDefinition<P>, handler: DeliveryHandler<z.output<P>>, options?: ConsumeOptions): Promise<Subscription> {
    this.consumed.set(consumer.durable, consumer);
    const mine = deliveryMetrics(this.metrics, consumer.durable);
    const theirs = options?.observer;
    // A caller's own observer (traces) is told too, after the metrics.
    const observer: DeliveryObserver = theirs
      ? {
          delivered: (count) => (mine.delivered?.(count), theirs.delivered?.(count)),
          settled: (outcome, detail) => (mine.settled?.(outcome, detail), theirs.settled?.(outcome, detail)),
          abandoned: () => (mine.abandoned?.(), theirs.abandoned?.()),
        }
      : mine;
    return this.bus.consume(consumer, handler, { ...options, observer });
  }

  consumerState(consumer: ConsumerDefinition): Promise<ConsumerState | undefined> {
    return this.bus.consumerState(consumer);
  }

  deadLetters(): ReturnType<MessageBus['deadLetters']> {
    return this.bus.deadLetters();
  }

  isHealthy(): boolean {
    return this.bus.isHealthy();
  }

  /** The caller closes the bus it passed (startService never closes it); this view has nothing of its own to close. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  private async consumerFigures() {
    const figures = await Promise.all(
      [...this.consumed.values()].map(async (consumer) => {
        const state = await this.bus.consumerState(consumer);
        if (!state) return [];
        const labels = { durable: consumer.durable };
        return [
          { family: 'consumerPending' as const, labels, value: state.pending },
          { family: 'consumerAckPending' as const, labels, value: state.ackPending },
        ];
      }),
    );
    return figures.flat();
  }
}
