/**
 * The traced bus over the in-process bus (the same decorator wraps JetStream; the system suite
 * traces.int-spec.ts runs it there): a request and a publish are CLIENT / PRODUCER spans whose
 * `traceparent` the message carries, served and consumed messages are SERVER / CONSUMER spans
 * under them, and runTraced's handler span is the active span and the correlation's traceparent
 * inside the handler. A failed request's span carries the reason code, not the message.
 * Mutations tried: `send` passing the caller's headers instead of the span's traceparent → the
 * served and consumed spans lose the sending span as parent: "request → serve" and "publish →
 * consume" fail; `receive` parented on the active context instead of the message's traceparent →
 * both fail too (the in-process bus delivers under the sender's async context).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { ALL_STREAMS, createBus, currentCorrelation, RpcError, subjectFor, type EventDefinition, type MessageBus, type RpcDefinition } from '@switchyard/messaging';
import { z } from 'zod';
import type { ServiceTracing } from './service-tracing.js';
import { runTraced, traceparentOf } from './trace-context.js';
import { tracedBus } from './traced-bus.js';

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const tracing: ServiceTracing = { tracer: provider.getTracer('traced-bus-spec'), provider, forceFlush: () => provider.forceFlush(), shutdown: () => provider.shutdown() };

const echo: RpcDefinition<z.ZodObject<{ text: z.ZodString }>, z.ZodObject<{ traceparent: z.ZodString }>> = {
  subject: 'tracing.spec.echo',
  request: z.object({ text: z.string() }),
  response: z.object({ traceparent: z.string() }),
};
const item: EventDefinition<z.ZodObject<{ n: z.ZodNumber }>> = { subject: 'events.tracing.*', stream: 'EVENTS', schema: z.object({ n: z.number() }), version: 1 };

let raw: MessageBus;
let bus: MessageBus;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  raw = await createBus({ kind: 'in-process', namespace: `traced-${process.pid}` });
  await raw.ensureStreams(ALL_STREAMS);
  bus = tracedBus(raw, tracing);
});
afterAll(async () => {
  await bus.close();
  context.disable();
});

const span = (name: string): ReadableSpan => {
  const found = exporter.getFinishedSpans().find((s) => s.name === name);
  if (!found) throw new Error(`no span ${name}: ${exporter.getFinishedSpans().map((s) => s.name).join(', ')}`);
  return found;
};

describe('tracedBus', () => {
  it('request → serve: the served span is the request span’s child, and the handler span is active with the correlation naming it', async () => {
    exporter.reset();
    const sub = bus.serve(echo, (_request, headers) =>
      runTraced(tracing, 'handle tracing.spec.echo', { correlationId: headers.correlationId ?? 'none', traceparent: headers.traceparent }, {}, async () => {
        expect(currentCorrelation()?.traceparent).toBe(traceparentOf(trace.getActiveSpan()!));
        return { traceparent: headers.traceparent ?? '' };
      }),
    );
    const reply = await tracing.tracer.startActiveSpan('caller', async (caller) => {
      try {
        return await bus.request(echo, { text: 'hi' }, { headers: { correlationId: 'corr-1' } });
      } finally {
        caller.end();
      }
    });
    await sub.drain();
    const request = span('request tracing.spec.echo');
    const served = span('process tracing.spec.echo');
    const handled = span('handle tracing.spec.echo');
    expect(request.kind).toBe(SpanKind.CLIENT);
    expect(request.parentSpanContext?.spanId).toBe(span('caller').spanContext().spanId);
    expect(reply.traceparent).toBe(`00-${request.spanContext().traceId}-${request.spanContext().spanId}-01`);
    expect([served.kind, served.parentSpanContext?.spanId]).toEqual([SpanKind.SERVER, request.spanContext().spanId]);
    expect(handled.parentSpanContext?.spanId).toBe(served.spanContext().spanId);
    expect(served.attributes).toMatchObject({ 'messaging.system': 'nats', 'messaging.destination.name': 'tracing.spec.echo', 'messaging.message.conversation_id': 'corr-1' });
  });

  it('publish → consume: the consumer span is the publish span’s child, not the context the bus delivers in', async () => {
    exporter.reset();
    const received: string[] = [];
    const sub = await bus.consume({ durable: 'tracing_spec', event: item, filterSubject: subjectFor(item.subject, 'a'), ackWaitMs: 1000, maxDeliver: 3, maxAckPending: 1 }, async (delivery) => {
      received.push(delivery.headers.traceparent ?? '');
    });
    await tracing.tracer.startActiveSpan('publisher', async (publisher) => {
      await bus.publish(item, subjectFor(item.subject, 'a'), { n: 1 }, { msgId: 'traced-1' });
      publisher.end();
    });
    for (let i = 0; i < 100 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    await sub.drain();
    const publish = span('publish events.tracing.*');
    const consumed = span('process events.tracing.*');
    expect(publish.kind).toBe(SpanKind.PRODUCER);
    expect(publish.attributes).toMatchObject({ 'messaging.message.id': 'traced-1', 'messaging.destination.name': 'events.tracing.a', 'messaging.destination.template': 'events.tracing.*' });
    expect([consumed.kind, consumed.parentSpanContext?.spanId]).toEqual([SpanKind.CONSUMER, publish.spanContext().spanId]);
    expect(consumed.attributes).toMatchObject({ 'messaging.consumer.group.name': 'tracing_spec', 'switchyard.delivery_count': 1 });
    expect(received).toEqual([traceparentOf({ spanContext: () => publish.spanContext() } as never)]);
  });

  it('marks a failed request with its reason code only', async () => {
    exporter.reset();
    const sub = bus.serve(echo, async () => {
      throw new RpcError('not_found', 'vehicle 7 of customer Jane Roe');
    });
    await expect(context.with(ROOT_CONTEXT, () => bus.request(echo, { text: 'x' }))).rejects.toMatchObject({ code: 'not_found' });
    await sub.drain();
    const request = span('request tracing.spec.echo');
    expect([request.status.code, request.status.message, request.attributes['error.type']]).toEqual([SpanStatusCode.ERROR, 'not_found', 'not_found']);
    expect(JSON.stringify([request.attributes, request.events, span('process tracing.spec.echo').attributes])).not.toContain('Jane');
  });
});
