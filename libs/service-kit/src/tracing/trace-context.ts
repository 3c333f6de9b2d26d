/**
 * Where our correlation context (libs/messaging correlation.ts: correlation id and `traceparent`
 * on every log line and message) meets OpenTelemetry's active span. With tracing on, the
 * correlation's `traceparent` is always the active span's, so a log line's `traceId`, the header
 * a message carries and the span that sent it name the same trace and the same parent; with it
 * off, nothing here runs beyond one check of `runtime.tracing`.
 *
 * `runTraced` is the one way code starts a span of its own work (a bus handler, a collector job):
 * the span is a child of the given `traceparent` (a sync's stored one, as a remote parent) or of
 * the active span, runs `fn` as the active span and in the correlation context that names it, and
 * ends with `fn` — status ERROR with the error's name or reason code, never its message (messages
 * can quote input).
 */
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Context, type Span, type SpanContext } from '@opentelemetry/api';
import { runWithCorrelation, traceparentFrom, type CorrelationContext } from '@switchyard/messaging';
import type { ServiceTracing } from './service-tracing.js';

/** The W3C `traceparent` of a span. */
export function traceparentOf(span: Span): string {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${traceFlags & TraceFlags.SAMPLED ? '01' : '00'}`;
}

/** A context whose (remote) parent is `traceparent`; the root context for none or a malformed one. */
export function remoteParent(traceparent: string | undefined): Context {
  const valid = traceparentFrom(traceparent);
  if (!valid) return ROOT_CONTEXT;
  const [, traceId, spanId, flags] = valid.split('-') as [string, string, string, string];
  const spanContext: SpanContext = { traceId, spanId, traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED, isRemote: true };
  return trace.setSpanContext(ROOT_CONTEXT, spanContext);
}

/**
 * The parent of a span started now: the active span when there is one (an HTTP request, a
 * handler, a job), else `traceparent` (a message's header, a sync's stored context), else none.
 */
export function parentFor(traceparent: string | undefined): Context {
  const active = context.active();
  return trace.getSpan(active) ? active : remoteParent(traceparent);
}

/** The active span's `traceparent`; undefined without one (tracing off, or outside any span). */
export function activeTraceparent(): string | undefined {
  const span = trace.getActiveSpan();
  return span ? traceparentOf(span) : undefined;
}

/** A span's status for a failure: the error's reason code (RpcError, ProviderError) or class name. */
export function markFailed(span: Span, error: unknown): void {
  const code = (error as { code?: unknown } | null)?.code;
  const type = typeof code === 'string' ? code : error instanceof Error ? error.name : 'error';
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

/** Runs `fn` in `span` (active), ending it when `fn` settles; a throw marks it failed. */
export async function inSpan<T>(span: Span, parent: Context, fn: () => Promise<T>): Promise<T> {
  try {
    return await context.with(trace.setSpan(parent, span), fn);
  } catch (error) {
    markFailed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

export interface TracedWork {
  /** The span's parent when there is no active span (see parentFor); with `remote: true`, even when there is one. */
  readonly traceparent?: string;
  /** Parent from `traceparent` even inside an active span: work that continues another trace (a sync's). */
  readonly remote?: boolean;
  readonly kind?: SpanKind;
  readonly attributes?: Attributes;
}

/**
 * Runs `fn` under `correlation`, in a span `name` when `tracing` is on (see the header); without
 * tracing, exactly `runWithCorrelation(correlation, fn)`.
 */
export function runTraced<T>(tracing: ServiceTracing | undefined, name: string, correlation: CorrelationContext, work: TracedWork, fn: () => Promise<T>): Promise<T> {
  if (!tracing) return runWithCorrelation(correlation, fn);
  const parent = work.remote ? remoteParent(work.traceparent ?? correlation.traceparent) : parentFor(work.traceparent ?? correlation.traceparent);
  const span = tracing.tracer.startSpan(name, { kind: work.kind ?? SpanKind.INTERNAL, attributes: work.attributes }, parent);
  return inSpan(span, parent, () => runWithCorrelation({ correlationId: correlation.correlationId, traceparent: traceparentOf(span) }, fn));
}
