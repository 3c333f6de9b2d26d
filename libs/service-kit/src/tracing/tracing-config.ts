/**
 * Tracing is configured by the standard OpenTelemetry variables only (docs/configuration.md,
 * decision 0040), parsed once with the rest of a service's environment: off unless an OTLP
 * endpoint is set — and then nothing of it runs (no context manager, no wrapped bus, pool or HTTP
 * hooks). Only the OTLP/HTTP protocols are built in (`http/protobuf`, the specification's default,
 * and `http/json`); `grpc` is refused at start with the variable named, not ignored.
 * Invariant: `tracingConfigFrom` returns undefined exactly when tracing is off (no endpoint,
 * OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none); a bad value is a ConfigError at boot.
 * OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION and the certificate variables are read by the
 * OTLP exporter itself, from the process environment.
 */
import { parseKeyPairsIntoRecord } from '@opentelemetry/core';
import { z } from 'zod';

const PROTOCOLS = ['http/protobuf', 'http/json'] as const;
const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;

const httpUrl = z
  .string()
  .url()
  .refine((u) => /^https?:$/.test(new URL(u).protocol), 'an http(s) URL of the OTLP/HTTP receiver (e.g. http://otel-collector:4318)')
  .optional();

const protocol = z
  .string()
  .superRefine((p, ctx) => {
    if (!(PROTOCOLS as readonly string[]).includes(p)) ctx.addIssue({ code: 'custom', message: `${p === 'grpc' ? 'grpc is not built in' : 'unknown protocol'}: use ${PROTOCOLS.join(' or ')}` });
  })
  .optional();

const millis = z.coerce.number().int().min(1).max(600_000).optional();
const count = z.coerce.number().int().min(1).max(1_000_000).optional();

/** The specification's rule: an empty value is unset (compose passes `${VAR:-}` through as ""). */
const unsetWhenEmpty = <S extends z.ZodType>(schema: S) => z.preprocess((value) => (value === '' ? undefined : value), schema);

/** The OTEL_* variables every service reads (a part of baseEnvSchema). */
export const tracingEnvFields = {
  OTEL_SDK_DISABLED: unsetWhenEmpty(z.enum(['true', 'false']).optional()),
  OTEL_TRACES_EXPORTER: unsetWhenEmpty(z.enum(['otlp', 'none']).optional()),
  OTEL_EXPORTER_OTLP_ENDPOINT: unsetWhenEmpty(httpUrl),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: unsetWhenEmpty(httpUrl),
  OTEL_EXPORTER_OTLP_PROTOCOL: unsetWhenEmpty(protocol),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: unsetWhenEmpty(protocol),
  OTEL_SERVICE_NAME: unsetWhenEmpty(z.string().min(1).max(255).optional()),
  OTEL_RESOURCE_ATTRIBUTES: unsetWhenEmpty(z.string().max(4096).optional()),
  OTEL_TRACES_SAMPLER: unsetWhenEmpty(z.enum(SAMPLERS).optional()),
  OTEL_TRACES_SAMPLER_ARG: unsetWhenEmpty(z.coerce.number().min(0).max(1).optional()),
  OTEL_BSP_SCHEDULE_DELAY: unsetWhenEmpty(millis),
  OTEL_BSP_EXPORT_TIMEOUT: unsetWhenEmpty(millis),
  OTEL_BSP_MAX_QUEUE_SIZE: unsetWhenEmpty(count),
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: unsetWhenEmpty(count),
};

export const tracingEnvSchema = z.object(tracingEnvFields);
export type TracingEnv = z.output<typeof tracingEnvSchema>;

export interface TracingConfig {
  /** Where spans are POSTed: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, or OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`. */
  readonly tracesUrl: string;
  readonly protocol: (typeof PROTOCOLS)[number];
  /** OTEL_SERVICE_NAME; absent: each service is named by itself (`gateway`, `directory`, …). */
  readonly serviceName?: string;
  /** OTEL_RESOURCE_ATTRIBUTES, parsed. */
  readonly resourceAttributes: Readonly<Record<string, string>>;
  readonly sampler: { readonly name: (typeof SAMPLERS)[number]; readonly ratio: number };
  readonly batch: { readonly scheduledDelayMillis?: number; readonly exportTimeoutMillis?: number; readonly maxQueueSize?: number; readonly maxExportBatchSize?: number };
}

/** The tracing of an environment already parsed with tracingEnvFields; undefined when it is off. */
export function tracingConfigFrom(env: TracingEnv): TracingConfig | undefined {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return undefined;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const tracesUrl = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base === undefined ? undefined : `${base.replace(/\/+$/, '')}/v1/traces`);
  if (tracesUrl === undefined) return undefined;
  return {
    tracesUrl,
    protocol: (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf') as TracingConfig['protocol'],
    ...(env.OTEL_SERVICE_NAME ? { serviceName: env.OTEL_SERVICE_NAME } : {}),
    resourceAttributes: env.OTEL_RESOURCE_ATTRIBUTES ? parseKeyPairsIntoRecord(env.OTEL_RESOURCE_ATTRIBUTES) : {},
    // The specification's defaults: parent-based always-on, ratio 1.
    sampler: { name: env.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on', ratio: env.OTEL_TRACES_SAMPLER_ARG ?? 1 },
    batch: {
      scheduledDelayMillis: env.OTEL_BSP_SCHEDULE_DELAY,
      exportTimeoutMillis: env.OTEL_BSP_EXPORT_TIMEOUT,
      maxQueueSize: env.OTEL_BSP_MAX_QUEUE_SIZE,
      maxExportBatchSize: env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE,
    },
  };
}
