/**
 * Test harness for the gateway: a real gateway on the machine's PostgreSQL (isolated schema) and
 * NATS (isolated namespace), an HTTP client whose every response is validated against the
 * committed OpenAPI document, captured log lines, and seeding through the same admin services the
 * operator CLI uses. `beside` starts other services next to it (each on its own isolated schema and
 * bus connection, in the same NATS namespace, as the launcher runs them); the gateway never imports
 * another app, so the caller passes their start functions (system-tests does, for the cross-app suites).
 */
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { expect } from '@jest/globals';
import type { DynamicModule, Type } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { statusOf, type ErrorCode } from '@switchyard/contracts';
import { ALL_STREAMS, createBus, type MessageBus } from '@switchyard/messaging';
import type { ServiceName } from '@switchyard/persistence';
import { createLogger, startService, type RunningService, type StartOptions } from '@switchyard/service-kit';
import { createResponseValidator, deleteNamespaceStreams, dropSchemas, fetchValidated, isolatedSchemas, loadOpenApi, resolveTestServices, uniqueNamespace, type ValidatedFetchInit, type ValidatedResponse } from '@switchyard/testing';
import { ConnectionsAdmin, CredentialsAdmin, GatewayModule, gatewayService, gatewayStartOptions, OutboxRelay, SecretBox, startWebhookDelivery } from '../src/index.js';
import type { GatewaySettings, WebhookSettings } from '../src/config.js';

export interface TestGateway {
  url: string;
  /** The internal listener (/healthz, /readyz, /metrics), as main.ts opens on METRICS_PORT. */
  internalUrl: string;
  service: RunningService;
  bus: MessageBus;
  namespace: string;
  databaseUrl: string;
  natsUrl: string;
  schemas: Record<string, string>;
  credentials: CredentialsAdmin;
  connections: ConnectionsAdmin;
  /** The services started beside the gateway (`beside`), by name. */
  beside: Partial<Record<ServiceName, RunningService>>;
  /** The webhook delivery role on the gateway's schema (`webhookDelivery`), in its own bus connection. */
  webhookDelivery?: RunningService;
  /** The master key the gateway (and its delivery role) seal with. */
  masterKey: string;
  /** Publishes the gateway outbox now instead of waiting for the relay's next poll. */
  flushOutbox(): Promise<number>;
  /** Every log line written so far, raw. */
  logText(): string;
  /** fetch + OpenAPI validation of the response (documented path, method, status and body). */
  call(method: string, path: string, init?: ValidatedFetchInit): Promise<ValidatedResponse>;
  close(): Promise<void>;
}

/** A service to start beside the gateway: its name (which isolated schema it gets) and start function. */
export interface BesideService {
  name: Exclude<ServiceName, 'gateway'>;
  start: (options: StartOptions) => Promise<RunningService>;
}

export interface TestGatewayOptions {
  extraModules?: (Type | DynamicModule)[];
  rpcTimeoutMs?: number;
  bodyLimit?: number;
  responseByteLimit?: number;
  groupDirectoryLimits?: GatewaySettings['groupDirectoryLimits'];
  /** Provider base URLs the connect page verifies credentials against (the suite's simulators). */
  providerBaseUrls?: GatewaySettings['providerBaseUrls'];
  /** Registered OAuth applications (the simulators' sandbox client). */
  oauth?: GatewaySettings['oauth'];
  /** Started in order after the gateway, closed in reverse before it. */
  beside?: BesideService[];
  /** Request-rate buckets (default REQUEST_RATE); the limits test lowers them. */
  requestRate?: GatewaySettings['requestRate'];
  /** How long verified credentials stay cached (default PRINCIPAL_CACHE_TTL_MS); the two-process test raises it to prove the push invalidation alone. */
  principalCacheTtlMs?: number;
  /** Start the webhook delivery role beside the gateway (after `beside`), with these settings (compressed schedules, an injected network). */
  webhookDelivery?: Partial<WebhookSettings>;
}

const validator = createResponseValidator(loadOpenApi());

export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const { databaseUrl, natsUrl } = await resolveTestServices();
  const schemas = isolatedSchemas(['gateway', 'sync-orchestrator', 'directory', 'telemetry-ingest', 'fault-feed', 'enrichment']);
  const namespace = uniqueNamespace('gw');
  const bus = await createBus({ kind: 'jetstream', servers: natsUrl, name: 'gateway-test', namespace });
  // The provisioning step (decision 0033): services only verify the streams.
  await bus.ensureStreams(ALL_STREAMS);
  const sink = new PassThrough();
  const lines: string[] = [];
  sink.on('data', (chunk: Buffer) => lines.push(chunk.toString('utf8')));
  const logger = createLogger({ service: 'gateway', level: 'debug', destination: sink });
  const masterKey = SecretBox.generateKey();
  const cursorSecret = randomBytes(32).toString('base64url');

  @Module({ imports: [GatewayModule, ...(options.extraModules ?? [])] })
  class TestGatewayModule {}

  const service = await startService(
    { ...gatewayService, module: options.extraModules ? TestGatewayModule : GatewayModule },
    gatewayStartOptions({
      databaseUrl,
      bus,
      environment: 'sandbox',
      schema: schemas.gateway,
      allServiceSchemas: Object.values(schemas),
      logger,
      http: { port: 0, ...(options.bodyLimit ? { bodyLimit: options.bodyLimit } : {}) },
      metrics: { port: 0 },
      gatewaySettings: {
        masterKey,
        cursorSecret,
        rpcTimeoutMs: options.rpcTimeoutMs ?? 1000,
        ...(options.responseByteLimit ? { responseByteLimit: options.responseByteLimit } : {}),
        ...(options.groupDirectoryLimits ? { groupDirectoryLimits: options.groupDirectoryLimits } : {}),
        ...(options.providerBaseUrls ? { providerBaseUrls: options.providerBaseUrls } : {}),
        ...(options.oauth ? { oauth: options.oauth } : {}),
        ...(options.requestRate ? { requestRate: options.requestRate } : {}),
        ...(options.principalCacheTtlMs !== undefined ? { principalCacheTtlMs: options.principalCacheTtlMs } : {}),
      },
    }),
  ).catch(async (error: unknown) => {
    await bus.close();
    await dropSchemas(databaseUrl, Object.values(schemas));
    await deleteNamespaceStreams(natsUrl, namespace);
    throw error;
  });
  const opened: { bus: MessageBus; service?: RunningService }[] = [];
  const beside: Partial<Record<ServiceName, RunningService>> = {};
  let webhookDelivery: RunningService | undefined;
  const closeBeside = async () => {
    for (const entry of opened.reverse()) {
      await entry.service?.close();
      await entry.bus.close();
    }
  };
  try {
    for (const { name, start } of options.beside ?? []) {
      const entry: { bus: MessageBus; service?: RunningService } = { bus: await createBus({ kind: 'jetstream', servers: natsUrl, name: `${name}-test`, namespace }) };
      opened.push(entry);
      entry.service = await start({
        databaseUrl,
        bus: entry.bus,
        environment: 'sandbox',
        schema: schemas[name],
        allServiceSchemas: Object.values(schemas),
        logger: createLogger({ service: name, level: 'debug', destination: sink }),
      });
      beside[name] = entry.service;
    }
    if (options.webhookDelivery) {
      const entry: { bus: MessageBus; service?: RunningService } = { bus: await createBus({ kind: 'jetstream', servers: natsUrl, name: 'webhook-delivery-test', namespace }) };
      opened.push(entry);
      entry.service = await startWebhookDelivery({
        databaseUrl,
        bus: entry.bus,
        environment: 'sandbox',
        schema: schemas.gateway,
        allServiceSchemas: Object.values(schemas),
        logger: createLogger({ service: 'gateway', role: 'webhook-delivery', level: 'debug', destination: sink }),
        gatewaySettings: { masterKey, cursorSecret, webhooks: options.webhookDelivery },
      });
      webhookDelivery = entry.service;
    }
  } catch (error) {
    await closeBeside().catch(() => undefined);
    await service.close();
    await bus.close();
    await dropSchemas(databaseUrl, Object.values(schemas));
    await deleteNamespaceStreams(natsUrl, namespace);
    throw error;
  }
  const url = service.url!;
  const orm = service.runtime.orm;
  return {
    url,
    internalUrl: service.internalUrl!,
    service,
    bus,
    namespace,
    databaseUrl,
    natsUrl,
    schemas,
    credentials: new CredentialsAdmin(orm),
    connections: new ConnectionsAdmin(orm, new SecretBox(masterKey)),
    beside,
    ...(webhookDelivery ? { webhookDelivery } : {}),
    masterKey,
    flushOutbox: () => service.app.get(OutboxRelay).flush(),
    logText: () => lines.join(''),
    call: (method, path, init = {}) => fetchValidated(validator, url, method, path, init),
    async close() {
      await closeBeside();
      await service.close();
      await bus.close();
      await dropSchemas(databaseUrl, Object.values(schemas));
      await deleteNamespaceStreams(natsUrl, namespace);
    },
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * The one error shape (spec 7): exactly `{"error":"<code>"}`, JSON, the status the contracts table
 * gives the code, and an `x-request-id` header. Used for probe routes and unknown paths, which the
 * OpenAPI document does not describe and `call` therefore cannot validate.
 */
export function expectError(res: { status: number; headers: Headers; text: string }, status: number, code: ErrorCode): void {
  expect({ status: res.status, text: res.text }).toEqual({ status, text: JSON.stringify({ error: code }) });
  expect(statusOf(code)).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  // Every 503 says when to retry (delay-seconds).
  if (status === 503) expect(res.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
}

/** Parsed log lines (one JSON object each). */
export function logLines(gw: TestGateway): Record<string, unknown>[] {
  return gw
    .logText()
    .split('\n')
    .filter((l) => l.trim().startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
