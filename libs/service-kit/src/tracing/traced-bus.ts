/**
 * The MessageBus of a service that traces: the shared bus (JetStream or in-process alike) with a
 * span around every request, publish, served request and consumed message (OpenTelemetry
 * messaging conventions), made with the service's own tracer — in `npm start` the six services
 * share one bus, and each wraps it with its own. startService wraps `runtime.bus` only when
 * tracing is on; otherwise services get the bus itself.
 *
 * Invariants:
 * - the `traceparent` a message carries is the span that sent it (request: CLIENT, publish:
 *   PRODUCER), so the receiving span (SERVER, CONSUMER) is its child across processes, whatever
 *   the caller put there;
 * - a receiving span's parent is the message's `traceparent` (a remote parent), never whatever span
 *   happened to be active where the bus delivers;
 * - attributes hold names and ids only — subject, pattern, durable, message id, correlation id,
 *   delivery count — never a payload, and a failure is its reason code (BusUnavailableError,
 *   RpcError), never its message.
 */
import { SpanKind, trace, type Attributes, type Span } from '@opentelemetry/api';
import type { ConsumerDefinition, DeliveryHandler, EventDefinition, MessageBus, MessageHeaders, PublishOptions, RequestOptions, RpcDefinition, RpcHandler } from '@switchyard/messaging';
import type { z } from 'zod';
import type { ServiceTracing } from './service-tracing.js';
import { inSpan, parentFor, remoteParent, traceparentOf } from './trace-context.js';

/** `messaging.system`: no semantic-convention value names NATS; this is the client's own name. */
export const MESSAGING_SYSTEM = 'nats';

function messagingAttributes(operation: 'send' | 'process', name: string, destination: string, template: string, headers: MessageHeaders | undefined): Attributes {
  const attributes: Attributes = {
    'messaging.system': MESSAGING_SYSTEM,
    'messaging.operation.type': operation,
    'messaging.operation.name': name,
    'messaging.destination.name': destination,
    'messaging.destination.template': template,
  };
  if (headers?.correlationId) attributes['messaging.message.conversation_id'] = headers.correlationId;
  return attributes;
}

export function tracedBus(bus: MessageBus, tracing: ServiceTracing): MessageBus {
  const { tracer } = tracing;

  /** A sending span, child of the active one (or the correlation's trace), whose traceparent the message carries. */
  function send<T>(name: string, attributes: Attributes, kind: SpanKind, headers: MessageHeaders | undefined, fn: (headers: MessageHeaders) => Promise<T>): Promise<T> {
    const parent = parentFor(headers?.traceparent);
    const span = tracer.startSpan(name, { kind, attributes }, parent);
    return inSpan(span, parent, () => fn({ ...headers, traceparent: traceparentOf(span) }));
  }

  /** A receiving span, child of the message's traceparent, active while the handler runs. */
  function receive<T>(name: string, attributes: Attributes, kind: SpanKind, headers: MessageHeaders, fn: (span: Span) => Promise<T>): Promise<T> {
    // The deliverer's context (a subscription callback, a pull loop) is not the message's cause.
    const parent = remoteParent(headers.traceparent);
    const span = tracer.startSpan(name, { kind, attributes }, parent);
    return inSpan(span, parent, () => fn(span));
  }

  const traced: Pick<MessageBus, 'request' | 'serve' | 'publish' | 'consume'> = {
    request<Req extends z.ZodType, Res extends z.ZodType>(rpc: RpcDefinition<Req, Res>, payload: z.input<Req>, options?: RequestOptions): Promise<z.output<Res>> {
      const attributes = messagingAttributes('send', 'request', rpc.subject, rpc.subject, options?.headers);
      return send(`request ${rpc.subject}`, attributes, SpanKind.CLIENT, options?.headers, (headers) => bus.request(rpc, payload, { ...options, headers }));
    },
    serve<Req extends z.ZodType, Res extends z.ZodType>(rpc: RpcDefinition<Req, Res>, handler: RpcHandler<Req, Res>) {
      return bus.serve(rpc, (request, headers) => {
        const attributes = { ...messagingAttributes('process', 'process', rpc.subject, rpc.subject, headers), 'messaging.consumer.group.name': rpc.subject };
        return receive(`process ${rpc.subject}`, attributes, SpanKind.SERVER, headers, () => handler(request, headers));
      });
    },
    publish<P extends z.ZodType>(event: EventDefinition<P>, subject: string, payload: z.input<P>, options: PublishOptions) {
      const attributes = { ...messagingAttributes('send', 'publish', subject, event.subject, options.headers), 'messaging.message.id': options.msgId };
      return send(`publish ${event.subject}`, attributes, SpanKind.PRODUCER, options.headers, async (headers) => {
        const ack = await bus.publish(event, subject, payload, { ...options, headers });
        // A retry inside the duplicate window: JetStream kept the first copy (and its traceparent).
        if (ack.duplicate) trace.getActiveSpan()?.setAttribute('switchyard.duplicate', true);
        return ack;
      });
    },
    consume<P extends z.ZodType>(consumer: ConsumerDefinition<P>, handler: DeliveryHandler<z.output<P>>) {
      return bus.consume(consumer, (delivery) => {
        const attributes: Attributes = {
          ...messagingAttributes('process', 'process', delivery.subject, consumer.event.subject, delivery.headers),
          'messaging.consumer.group.name': consumer.durable,
          'switchyard.delivery_count': delivery.deliveryCount,
        };
        if (delivery.msgId) attributes['messaging.message.id'] = delivery.msgId;
        return receive(`process ${consumer.event.subject}`, attributes, SpanKind.CONSUMER, delivery.headers, () => handler(delivery));
      });
    },
  };
  // Everything else (kind, provisioning, health, dead letters, close, whatever the port gains later)
  // is the bus's own, untraced.
  return new Proxy(bus, {
    get(target, property, receiver) {
      if (Object.hasOwn(traced, property)) return traced[property as keyof typeof traced];
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

