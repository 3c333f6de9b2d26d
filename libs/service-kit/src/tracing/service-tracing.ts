/**
 * One service's tracer: its own TracerProvider (resource `service.name` = OTEL_SERVICE_NAME or the
 * service's name), a batch span processor and the OTLP/HTTP exporter of the configured protocol.
 * One provider per service and none registered globally, because one process may host all six
 * (`npm start`): each service's spans must carry its own name, so every span is made through the
 * tracer of the service that makes it (runtime.tracing), never through the global API's tracer.
 *
 * What is process-wide is registered once, by the first service that traces: the AsyncLocalStorage
 * context manager (the active span follows async work, like our correlation context does), the
 * W3C trace-context propagator (@fastify/otel reads an incoming `traceparent` through it) and a
 * diagnostic logger, so a collector that refuses spans is a warning in the log, not silence.
 * Nothing here runs when tracing is off.
 */
import { context, diag, DiagLogLevel, propagation, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider, type Sampler } from '@opentelemetry/sdk-trace';
import { maskUrl } from '@switchyard/persistence';
import type { Logger } from '../logger.js';
import type { TracingConfig } from './tracing-config.js';

export interface ServiceTracing {
  /** The service's tracer: every span this service makes. */
  readonly tracer: Tracer;
  /** The service's provider (the HTTP instrumentation is given it). */
  readonly provider: TracerProvider;
  /** Exports what is buffered (tests; shutdown). */
  forceFlush(): Promise<void>;
  /** Exports what is buffered and stops, within SHUTDOWN_FLUSH_MS: a collector that hangs does not hold a shutdown. */
  shutdown(): Promise<void>;
}

/** Longest wait for the last spans at shutdown. */
export const SHUTDOWN_FLUSH_MS = 5_000;

let globalsRegistered = false;

function registerProcessGlobals(logger: Logger): void {
  if (globalsRegistered) return;
  globalsRegistered = true;
  // Returns false when something else registered first (a host application): theirs is kept.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const log = logger.child({ otel: true });
  diag.setLogger(
    {
      error: (message, ...args) => log.warn({ args: args.map(String) }, `opentelemetry: ${message}`),
      warn: (message, ...args) => log.warn({ args: args.map(String) }, `opentelemetry: ${message}`),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
}

function samplerOf({ name, ratio }: TracingConfig['sampler']): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}

export function startServiceTracing(service: string, config: TracingConfig, { instanceId, logger }: { instanceId: string; logger: Logger }): ServiceTracing {
  registerProcessGlobals(logger);
  const exporter = config.protocol === 'http/json' ? new OtlpJsonExporter({ url: config.tracesUrl }) : new OtlpProtobufExporter({ url: config.tracesUrl });
  const resource = defaultResource().merge(
    resourceFromAttributes({ ...config.resourceAttributes, 'service.name': config.serviceName ?? service, 'service.namespace': 'switchyard', 'service.instance.id': instanceId }),
  );
  const batch = Object.fromEntries(Object.entries(config.batch).filter(([, v]) => v !== undefined));
  const provider = new TracerProvider({ resource, sampler: samplerOf(config.sampler), spanProcessors: [new BatchSpanProcessor({ exporter, ...batch })] });
  logger.info({ tracesUrl: maskUrl(config.tracesUrl), protocol: config.protocol, serviceName: config.serviceName ?? service, sampler: config.sampler.name }, 'tracing on: spans exported over OTLP');
  return {
    tracer: provider.getTracer('@switchyard/service-kit'),
    provider,
    forceFlush: () => provider.forceFlush(),
    async shutdown() {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, SHUTDOWN_FLUSH_MS);
        timer.unref();
      });
      await Promise.race([provider.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'tracing shutdown failed')), deadline]);
      clearTimeout(timer);
    },
  };
}
