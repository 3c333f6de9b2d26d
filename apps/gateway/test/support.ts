/**
 * Test harness for the gateway: a real gateway on the machine's PostgreSQL (isolated schema) and
 * NATS (isolated namespace), an HTTP client whose every response is validated against the
 * committed OpenAPI document, captured log lines, and seeding through the same admin services the
 * operator CLI uses. With `syncOrchestrator: true` a real sync-orchestrator runs beside it (its own
 * isolated schema and bus connection, the same NATS namespace), so the sync routes work end to end;
 * with `directory: true` a real directory does, so the stored reads do.
 */
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { expect } from '@jest/globals';
import type { DynamicModule, Type } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { statusOf, type ErrorCode } from '@switchyard/contracts';
import { createBus, type MessageBus } from '@switchyard/messaging';
import { createLogger, startService, type RunningService } from '@switchyard/service-kit';
import { createResponseValidator, deleteNamespaceStreams, dropSchemas, fetchValidated, isolatedSchemas, loadOpenApi, resolveTestServices, uniqueNamespace, type ValidatedFetchInit, type ValidatedResponse } from '@switchyard/testing';
// The gateway never imports another app; this harness starts one beside it, as the launcher does.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startSyncOrchestrator } from '@switchyard/sync-orchestrator';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startDirectory } from '@switchyard/directory';
import { ConnectionsAdmin, CredentialsAdmin, GatewayModule, gatewayService, gatewayStartOptions, OutboxRelay, SecretBox } from '../src/index.js';
import type { GatewaySettings } from '../src/config.js';

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
  /** The sync-orchestrator started beside the gateway (`syncOrchestrator: true`). */
  orchestrator?: RunningService;
  /** The directory started beside the gateway (`directory: true`). */
  directory?: RunningService;
  /** Publishes the gateway outbox now instead of waiting for the relay's next poll. */
  flushOutbox(): Promise<number>;
  /** Every log line written so far, raw. */
  logText(): string;
  /** fetch + OpenAPI validation of the response (documented path, method, status and body). */
  call(method: string, path: string, init?: ValidatedFetchInit): Promise<ValidatedResponse>;
  close(): Promise<void>;
}

const validator = createResponseValidator(loadOpenApi());

export async function startTestGateway(
  options: { extraModules?: (Type | DynamicModule)[]; rpcTimeoutMs?: number; bodyLimit?: number; syncOrchestrator?: boolean; directory?: boolean; responseByteLimit?: number; collectors?: { providerBaseUrls: Record<string, string> }; groupDirectoryLimits?: GatewaySettings['groupDirectoryLimits'] } = {},
): Promise<TestGateway> {
  const { databaseUrl, natsUrl } = await resolveTestServices();
  const schemas = isolatedSchemas(['gateway', 'sync-orchestrator', 'directory', 'telemetry-ingest', 'fault-feed', 'enrichment']);
  const namespace = uniqueNamespace('gw');
  const bus = await createBus({ kind: 'jetstream', servers: natsUrl, name: 'gateway-test', namespace });
  const sink = new PassThrough();
  const lines: string[] = [];
  sink.on('data', (chunk: Buffer) => lines.push(chunk.toString('utf8')));
  const logger = createLogger({ service: 'gateway', level: 'debug', destination: sink });
  const masterKey = SecretBox.generateKey();

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
        cursorSecret: randomBytes(32).toString('base64url'),
        rpcTimeoutMs: options.rpcTimeoutMs ?? 1000,
        ...(options.responseByteLimit ? { responseByteLimit: options.responseByteLimit } : {}),
        ...(options.groupDirectoryLimits ? { groupDirectoryLimits: options.groupDirectoryLimits } : {}),
      },
    }),
  ).catch(async (error: unknown) => {
    await bus.close();
    await dropSchemas(databaseUrl, Object.values(schemas));
    await deleteNamespaceStreams(natsUrl, namespace);
    throw error;
  });
  const beside: { bus: MessageBus; service?: RunningService }[] = [];
  /** Starts another app on its own bus connection in the same namespace (as the launcher runs them). */
  const startBeside = async <O extends object>(name: 'sync-orchestrator' | 'directory', start: (o: Parameters<typeof startDirectory>[0] & O) => Promise<RunningService>, extra: O): Promise<RunningService> => {
    const entry: { bus: MessageBus; service?: RunningService } = { bus: await createBus({ kind: 'jetstream', servers: natsUrl, name: `${name}-test`, namespace }) };
    beside.push(entry);
    entry.service = await start({
      databaseUrl,
      bus: entry.bus,
      environment: 'sandbox',
      schema: schemas[name],
      allServiceSchemas: Object.values(schemas),
      logger: createLogger({ service: name, level: 'debug', destination: sink }),
      ...extra,
    });
    return entry.service;
  };
  const closeBeside = async () => {
    for (const entry of beside.reverse()) {
      await entry.service?.close();
      await entry.bus.close();
    }
  };
  let orchestrator: RunningService | undefined;
  let directory: RunningService | undefined;
  try {
    // With `collectors`, the orchestrator also collects (from the given provider base URLs, e.g. a simulator).
    const collect = options.collectors ? { collectors: true, providerBaseUrls: options.collectors.providerBaseUrls, env: { ...process.env, POLL_MS: '100', LEASE_MS: '10000' } } : {};
    if (options.syncOrchestrator) orchestrator = await startBeside('sync-orchestrator', startSyncOrchestrator, collect);
    if (options.directory) directory = await startBeside('directory', startDirectory, {});
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
    orchestrator,
    directory,
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
}

/** Parsed log lines (one JSON object each). */
export function logLines(gw: TestGateway): Record<string, unknown>[] {
  return gw
    .logText()
    .split('\n')
    .filter((l) => l.trim().startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
