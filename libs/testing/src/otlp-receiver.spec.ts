/**
 * The test OTLP receiver decodes what the OpenTelemetry SDK's own exporters send: the same two
 * spans (a parent with every attribute type, a child with an event and an error status) exported
 * over http/protobuf and http/json decode to the same spans, with ids, parent, kind, times,
 * attributes, events, status and the resource's service name.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SimpleSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import { ancestorsOf, OtlpReceiver } from './otlp-receiver.js';

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await OtlpReceiver.start();
});
afterAll(() => receiver.close());

async function exportTwoSpans(exporter: SpanExporter, service: string): Promise<{ traceId: string; parentId: string; childId: string }> {
  const provider = new TracerProvider({ resource: resourceFromAttributes({ 'service.name': service }), spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const tracer = provider.getTracer('receiver-spec');
  const parent = tracer.startSpan('parent', { kind: SpanKind.SERVER, attributes: { text: 'a', int: 42, double: 1.5, flag: true, list: ['x', 'y'] } }, ROOT_CONTEXT);
  const child = tracer.startSpan('child', { kind: SpanKind.PRODUCER }, trace.setSpan(ROOT_CONTEXT, parent));
  child.addEvent('happened', { why: 'because' });
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'boom' });
  child.end();
  parent.end();
  await provider.forceFlush();
  await provider.shutdown();
  return { traceId: parent.spanContext().traceId, parentId: parent.spanContext().spanId, childId: child.spanContext().spanId };
}

describe('OtlpReceiver', () => {
  it.each([
    ['http/protobuf', (url: string) => new ProtobufExporter({ url }), 'application/x-protobuf'],
    ['http/json', (url: string) => new JsonExporter({ url }), 'application/json'],
  ] as const)('decodes the SDK exporter over %s', async (_protocol, exporter, contentType) => {
    const service = `svc-${contentType}`;
    const ids = await exportTwoSpans(exporter(`${receiver.url}/v1/traces`), service);
    await receiver.waitFor((spans) => spans.filter((s) => s.traceId === ids.traceId).length === 2, 'both spans');
    const [child, parent] = receiver.trace(ids.traceId);
    expect(receiver.contentTypes).toContain(contentType);
    expect(parent).toMatchObject({ spanId: ids.parentId, parentSpanId: undefined, name: 'parent', kind: 'server', service, attributes: { text: 'a', int: 42, double: 1.5, flag: true, list: ['x', 'y'] } });
    expect(child).toMatchObject({ spanId: ids.childId, parentSpanId: ids.parentId, name: 'child', kind: 'producer', status: { code: 2, message: 'boom' }, events: [{ name: 'happened', attributes: { why: 'because' } }] });
    expect(child!.endNs).toBeGreaterThan(0n);
    expect(child!.startNs).toBeLessThanOrEqual(child!.endNs);
    expect(ancestorsOf(child!, receiver.spans).map((s) => s.name)).toEqual(['parent']);
  });
});
