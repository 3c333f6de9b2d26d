/**
 * The one way a context binds to the bus: a Nest custom transport strategy over the MessageBus
 * port (JetStream or in-process alike), so handlers are Nest controllers declaring
 * `@MessagePattern(RPCS.….subject)` (request/reply) and `@EventPattern<Consumes<'…'>>(CONSUMERS.….durable)`
 * (durable consumers), with `@Payload()` and `@Ctx()` (a BusContext: headers, the durable delivery). Each pattern is resolved
 * against the name authority (libs/messaging subjects.ts); an undeclared one fails the start.
 *
 * The transport owns what every handler used to repeat:
 * - validation on both ends: the bus parses requests, replies and durable payloads with the
 *   declared zod schemas (a bad durable payload is dead-lettered before the handler runs);
 * - lifecycle: RPCs are served at once but answer `service_unavailable` while migrations are
 *   pending (unless the handler says `{ beforeMigrations: true }`, like ping); consumers start only
 *   once the schema is migrated (MIGRATE_ON_START=false and a release step still to run: the
 *   tables may not exist, and every delivery would end in the DLQ); `close()` drains every
 *   subscription (in-flight messages finish and settle) and is idempotent;
 * - correlation and trace: every handler runs in the correlation context of the message's headers,
 *   so its log lines and everything it publishes carry the originating request id and trace; with
 *   tracing on, in a span of its own (`handle <subject or durable>`, child of the bus's receiving span);
 * - outages: a handler failing because PostgreSQL or the bus is unreachable is held and run again
 *   (dependency-outage.ts) — no delivery spent, nothing dead-lettered — and an RPC handler failing
 *   so answers `service_unavailable`;
 * - settlement, exactly as the bus defines it: a handler that returns acks; one that throws naks
 *   with backoff (`RetryLater` sets the delay); `PoisonMessage` dead-letters with its reason; a
 *   message is terminated only after its dead letter is stored. Errors reach the bus unchanged
 *   (BusErrorPassThrough replaces Nest's RPC exception filter, which would flatten them).
 * Request/reply errors: a typed RpcError travels as it is; anything else is logged once (no
 * payload) and answered `internal_error`.
 */
import { Catch, type ArgumentsHost, type RpcExceptionFilter } from '@nestjs/common';
import { Server, type CustomTransportStrategy, type MessageHandler } from '@nestjs/microservices';
import {
  correlationIdFrom,
  resolveBinding,
  RpcError,
  traceparentFrom,
  type ConsumerDefinition,
  type MessageHeaders,
  type RpcDefinition,
  type Subscription,
} from '@switchyard/messaging';
import { lastValueFrom, throwError, type Observable } from 'rxjs';
import { whenMigrated } from '../health.js';
import type { ServiceRuntime } from '../runtime.js';
import { runTraced } from '../tracing/trace-context.js';
import { BusContext } from './bus-context.js';
import { answersUnavailable, holdThroughOutages } from './dependency-outage.js';

export interface BusTransportOptions {
  /** Patterns (as declared on the handler) this process leaves unbound, e.g. the receipt consumer of an API-only orchestrator. */
  readonly disabled?: readonly string[];
  /** Adjusts a consumer's declared definition from configuration (e.g. INGEST_ACK_WAIT_MS). */
  readonly tuneConsumer?: (consumer: ConsumerDefinition) => ConsumerDefinition;
}

/** Extras a handler may pass as `@MessagePattern(subject, { beforeMigrations: true })`. */
export interface BusPatternExtras {
  /** Answer even while migrations are pending (ping reports readiness itself). */
  readonly beforeMigrations?: boolean;
}

/** Hands a handler's error to the transport as it was thrown (Nest's default filter flattens it to `{status, message}`). */
@Catch()
export class BusErrorPassThrough implements RpcExceptionFilter {
  catch(exception: unknown, _host: ArgumentsHost): Observable<never> {
    return throwError(() => exception);
  }
}

interface Bound {
  pattern: string;
  handler: MessageHandler;
}

export class BusTransport extends Server implements CustomTransportStrategy {
  private readonly subscriptions: Subscription[] = [];
  private consumersStarting: Promise<void> | undefined;
  /** Set by close(): held deliveries stop waiting for their dependency and are given back. */
  private closing = false;

  constructor(
    private readonly runtime: ServiceRuntime,
    private readonly options: BusTransportOptions = {},
  ) {
    super();
  }

  async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      const rpcs: (Bound & { rpc: RpcDefinition })[] = [];
      const consumers: (Bound & { consumer: ConsumerDefinition })[] = [];
      for (const [pattern, handler] of this.messageHandlers) {
        if (this.options.disabled?.includes(pattern)) continue;
        const kind = handler.isEventHandler ? 'consumer' : 'rpc';
        const binding = resolveBinding(kind, pattern, this.runtime.service);
        if (!binding) throw new TypeError(`${this.runtime.service}: ${kind === 'rpc' ? '@MessagePattern' : '@EventPattern'}('${pattern}') is not declared in libs/messaging subjects.ts`);
        if (handler.next) throw new TypeError(`${this.runtime.service}: two handlers bind '${pattern}'; a durable or subject has one handler per service`);
        if (binding.kind === 'rpc') rpcs.push({ pattern, handler, rpc: binding.rpc });
        else consumers.push({ pattern, handler, consumer: this.options.tuneConsumer?.(binding.consumer) ?? binding.consumer });
      }
      for (const bound of rpcs) this.subscriptions.push(this.serve(bound));
      // Migrated already (the usual start): consumers are subscribed before start-up completes.
      // Otherwise they start once a release step has migrated, in the background.
      const starting = this.startConsumers(consumers);
      this.consumersStarting = starting.catch(() => undefined); // logged in startConsumers
      if (this.runtime.state.migrated) await starting;
      callback();
    } catch (error) {
      callback(error);
    }
  }

  /** Drains every subscription: no new work, in-flight handlers finish and settle. Idempotent. */
  async close(): Promise<void> {
    this.closing = true;
    await this.consumersStarting;
    const subscriptions = this.subscriptions.splice(0);
    await Promise.all(subscriptions.map((s) => s.drain()));
  }

  on(): never {
    throw new TypeError('the bus transport has no events to listen to');
  }

  unwrap<T>(): T {
    return this.runtime.bus as T;
  }

  private serve({ pattern, handler, rpc }: Bound & { rpc: RpcDefinition }): Subscription {
    const extras = (handler.extras ?? {}) as BusPatternExtras;
    const { logger } = this.runtime;
    logger.debug({ subject: rpc.subject, pattern }, 'serving request/reply');
    return this.runtime.bus.serve(rpc, (request, headers) =>
      this.inContext(headers, rpc.subject, async () => {
        if (!extras.beforeMigrations && !this.runtime.state.migrated) throw new RpcError('service_unavailable', 'migrations pending');
        try {
          return await this.invoke(handler, request, new BusContext([rpc.subject, headers, undefined]));
        } catch (error) {
          if (error instanceof RpcError) throw error;
          // PostgreSQL (or the bus) unreachable, or a statement past its statement or lock deadline:
          // the requester answers 503 with Retry-After, not 500.
          if (answersUnavailable(error)) {
            logger.warn({ err: error, subject: rpc.subject }, 'rpc handler: dependency unavailable');
            throw new RpcError('service_unavailable', 'dependency unavailable');
          }
          logger.error({ err: error, subject: rpc.subject }, 'rpc handler failed');
          throw new RpcError('internal_error');
        }
      }),
    );
  }

  private async startConsumers(consumers: readonly (Bound & { consumer: ConsumerDefinition })[]): Promise<void> {
    if (consumers.length === 0) return;
    try {
      if (!(await whenMigrated(this.runtime))) return; // shut down before the schema was migrated
      for (const { handler, consumer } of consumers) {
        this.runtime.logger.debug({ durable: consumer.durable, subject: consumer.filterSubject ?? consumer.event.subject }, 'consuming');
        const subscription = await this.runtime.bus.consume(consumer, async (delivery) => {
          await this.inContext(delivery.headers, consumer.durable, () =>
            // An outage of PostgreSQL or the bus holds the delivery (dependency-outage.ts): retried
            // without spending the message's delivery budget; only a bad message is dead-lettered.
            holdThroughOutages(() => this.invoke(handler, delivery.payload, new BusContext([delivery.subject, delivery.headers, delivery])), {
              inProgress: () => delivery.inProgress(),
              ackWaitMs: consumer.ackWaitMs,
              stopping: () => this.runtime.state.shuttingDown || this.closing,
              onHold: (error) => this.runtime.logger.warn({ err: error, durable: consumer.durable, msgId: delivery.msgId }, 'dependency unavailable: holding the message until it is back'),
              onRecovered: (heldMs, tries) => this.runtime.logger.info({ durable: consumer.durable, msgId: delivery.msgId, heldMs, tries }, 'dependency back: held message handled'),
            }),
          );
        });
        this.subscriptions.push(subscription);
      }
    } catch (error) {
      this.runtime.logger.error({ err: error }, 'durable consumers did not start');
      throw error;
    }
  }

  /** Runs the Nest handler (guards, interceptors, pipes included) and waits for its last value. */
  private async invoke(handler: MessageHandler, payload: unknown, context: BusContext): Promise<unknown> {
    const result: unknown = await handler(payload, context);
    return lastValueFrom(this.transformToObservable(result), { defaultValue: undefined });
  }

  /**
   * Runs a handler under the message's correlation (and, when tracing, in its span `handle <what>`:
   * the RPC's subject with any template filled, or the consumer's durable).
   */
  private inContext<T>(headers: MessageHeaders, what: string, fn: () => Promise<T>): Promise<T> {
    const correlation = { correlationId: correlationIdFrom(headers.correlationId), traceparent: traceparentFrom(headers.traceparent) };
    return runTraced(this.runtime.tracing, `handle ${what}`, correlation, { attributes: { 'switchyard.handler': what } }, fn);
  }
}
