/**
 * An OTLP/HTTP trace receiver on loopback for tests: `POST /v1/traces` in `application/x-protobuf`
 * (http/protobuf) or `application/json` (http/json), gzip or not, decoded into spans
 * (otlp-protobuf.ts) that a test asserts on — what an OpenTelemetry collector would receive from
 * our services. `tracing(protocol)` is the StartOptions `tracing` that points a service at it, with
 * a short batch delay so spans arrive while a test waits.
 * Invariant: it answers every export (200 with an empty response of the request's encoding; 415
 * for another media type), so an exporter never retries into a test's next step.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import type { TracingConfig } from '@switchyard/service-kit';
import { decodeJsonTraces, decodeProtobufTraces, type ReceivedSpan } from './otlp-protobuf.js';
import { pollUntil } from './poll.js';

export type { AttributeValue, ReceivedSpan, SpanKindName } from './otlp-protobuf.js';

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  return req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
}

export class OtlpReceiver {
  private constructor(
    private readonly server: Server,
    /** e.g. http://127.0.0.1:43817 */
    readonly url: string,
    /** Every span received, in arrival order. */
    readonly spans: ReceivedSpan[],
    /** The media type of each export request received. */
    readonly contentTypes: string[],
  ) {}

  static async start(): Promise<OtlpReceiver> {
    const spans: ReceivedSpan[] = [];
    const contentTypes: string[] = [];
    const server = createServer((req, res) => {
      void (async () => {
        const type = (req.headers['content-type'] ?? '').split(';', 1)[0]?.trim() ?? '';
        if (req.method !== 'POST' || req.url !== '/v1/traces') return res.writeHead(404).end();
        const body = await bodyOf(req);
        contentTypes.push(type);
        if (type === 'application/x-protobuf') spans.push(...decodeProtobufTraces(body));
        else if (type === 'application/json') spans.push(...decodeJsonTraces(body.toString('utf8')));
        else return res.writeHead(415).end();
        res.writeHead(200, { 'content-type': type }).end(type === 'application/json' ? '{}' : undefined);
      })().catch(() => res.writeHead(400).end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new OtlpReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, contentTypes);
  }

  /** StartOptions `tracing` that exports to this receiver (a 100 ms batch delay; each service named by itself). */
  tracing(protocol: TracingConfig['protocol'] = 'http/protobuf'): TracingConfig {
    return { tracesUrl: `${this.url}/v1/traces`, protocol, resourceAttributes: {}, sampler: { name: 'parentbased_always_on', ratio: 1 }, batch: { scheduledDelayMillis: 100 } };
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  /** Waits until `predicate` holds for the spans received (default 20 s). */
  async waitFor(predicate: (spans: readonly ReceivedSpan[]) => boolean, description: string, timeoutMs = 20_000): Promise<void> {
    await pollUntil(() => predicate(this.spans), { timeoutMs, intervalMs: 100, description });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The ancestors of `span` in `spans`, nearest first (stops at a parent that is not there). */
export function ancestorsOf(span: ReceivedSpan, spans: readonly ReceivedSpan[]): ReceivedSpan[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const chain: ReceivedSpan[] = [];
  let parent = span.parentSpanId === undefined ? undefined : byId.get(span.parentSpanId);
  while (parent && !chain.includes(parent)) {
    chain.push(parent);
    parent = parent.parentSpanId === undefined ? undefined : byId.get(parent.parentSpanId);
  }
  return chain;
}
