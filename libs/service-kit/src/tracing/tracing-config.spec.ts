/**
 * Which OTEL_* variables turn tracing on and how they are read (decision 0040): off without an
 * endpoint or when disabled; the signal's endpoint before the base one (which gains /v1/traces);
 * http/protobuf by default; grpc and unknown protocols refused at boot with the variable named.
 */
import { describe, expect, it } from '@jest/globals';
import { baseEnvSchema, ConfigError, loadConfig } from '../config.js';
import { tracingConfigFrom, tracingEnvSchema } from './tracing-config.js';

const from = (env: Record<string, string>) => tracingConfigFrom(loadConfig(tracingEnvSchema, env));

describe('tracingConfigFrom', () => {
  it('is off without an endpoint, with OTEL_SDK_DISABLED=true and with OTEL_TRACES_EXPORTER=none', () => {
    expect(from({})).toBeUndefined();
    expect(from({ OTEL_SERVICE_NAME: 'gateway' })).toBeUndefined();
    expect(from({ OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_PROTOCOL: '' })).toBeUndefined();
    expect(from({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(from({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
  });

  it('reads the endpoints, protocol, service name, resource attributes, sampler and batch settings', () => {
    expect(from({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      tracesUrl: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      resourceAttributes: {},
      sampler: { name: 'parentbased_always_on', ratio: 1 },
      batch: { scheduledDelayMillis: undefined, exportTimeoutMillis: undefined, maxQueueSize: undefined, maxExportBatchSize: undefined },
    });
    expect(
      from({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/ingest',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'switchyard-gateway',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=staging,team=fleet',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
        OTEL_BSP_SCHEDULE_DELAY: '200',
      }),
    ).toMatchObject({
      tracesUrl: 'https://traces.example/ingest',
      protocol: 'http/json',
      serviceName: 'switchyard-gateway',
      resourceAttributes: { 'deployment.environment.name': 'staging', team: 'fleet' },
      sampler: { name: 'parentbased_traceidratio', ratio: 0.25 },
      batch: { scheduledDelayMillis: 200 },
    });
  });

  it('refuses grpc, an unknown sampler and a non-http endpoint at boot, naming each variable', () => {
    const attempt = () => loadConfig(baseEnvSchema, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_TRACES_SAMPLER: 'sometimes', OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://collector' });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL: grpc is not built in: use http\/protobuf or http\/json/);
    expect(attempt).toThrow(/OTEL_TRACES_SAMPLER:/);
    expect(attempt).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT:/);
  });
});
