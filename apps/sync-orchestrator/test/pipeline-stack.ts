/**
 * The collection pipeline of the orchestrator's pipeline tests (pipeline-*.int-spec.ts), on the real
 * PostgreSQL and NATS: gateway (HTTP, credentials, connection health), directory, and a
 * sync-orchestrator with its collectors and receipt consumer, in isolated schemas and one NATS
 * namespace, pointed at simulators the test spawned. `connect` creates a collecting connection the
 * way an operator does (ConnectionsAdmin + CredentialsAdmin) and waits until the orchestrator and
 * directory projected its configuration and the application's grants; the returned handle drives
 * `/v1/syncs` over HTTP with every response validated against the OpenAPI document.
 *
 * Decisions: the directory can be stopped and started again on its schema (`stopDirectory` /
 * `startDirectory`: a context slower than the lease); `wipeDirectory` empties the directory's data
 * tables of one connection so a later run must write every row again (the canonical dump then
 * compares what that run alone stored, with the same connection id).
 */
import { expect } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
// The orchestrator never imports other apps; its pipeline tests start them beside it, as the launcher does.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startDirectory } from '@switchyard/directory';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ConnectionsAdmin, CredentialsAdmin, OutboxRelay, SecretBox, startGateway } from '@switchyard/gateway';
import type { Provider } from '@switchyard/domain';
import { createBus, type MessageBus } from '@switchyard/messaging';
import { createLogger, type RunningService } from '@switchyard/service-kit';
import {
  canonicalDump,
  createResponseValidator,
  deleteNamespaceStreams,
  dropSchemas,
  expectValidResponse,
  isolatedSchemas,
  loadOpenApi,
  pollUntil,
  resolveTestServices,
  uniqueNamespace,
} from '@switchyard/testing';
import { startSyncOrchestrator } from '../src/index.js';

export interface PipelineSync {
  id: string;
  status: string;
  requestedAt: string;
  startFrom: string;
  progress: number;
  failureReason?: string;
  completedAt?: string;
}

export interface ConnectionHealth {
  last_success_at?: string | null;
  last_error_code?: string | null;
}

const openApi = createResponseValidator(loadOpenApi());

/** One HTTP exchange with the gateway, its response validated against the OpenAPI document. */
async function call(url: string, path: string, init: RequestInit & { headers: Record<string, string> }): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${url}${path}`, init);
  const text = await res.text();
  const body: unknown = text ? JSON.parse(text) : undefined;
  expectValidResponse(openApi, { method: init.method ?? 'GET', path, status: res.status, body, contentType: res.headers.get('content-type') ?? '' });
  return { status: res.status, body };
}

export class PipelineConnection {
  constructor(
    private readonly stack: PipelineStack,
    readonly connectionId: string,
    private readonly headers: Record<string, string>,
    private readonly readerKey: string,
  ) {}

  async createSync(body: unknown): Promise<PipelineSync> {
    const res = await call(this.stack.gatewayUrl, '/v1/syncs', { method: 'POST', headers: { ...this.headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(201);
    return res.body as PipelineSync;
  }

  async readSync(id: string): Promise<PipelineSync> {
    const res = await call(this.stack.gatewayUrl, `/v1/syncs/${id}`, { headers: this.headers });
    expect(res.status).toBe(200);
    return res.body as PipelineSync;
  }

  /** `POST /v1/syncs/{id}/{action}` with an empty body. */
  async act(id: string, action: 'cancel' | 'retry'): Promise<{ status: number; body: unknown }> {
    return call(this.stack.gatewayUrl, `/v1/syncs/${id}/${action}`, { method: 'POST', headers: this.headers });
  }

  async listSyncs(status: string): Promise<PipelineSync[]> {
    const res = await call(this.stack.gatewayUrl, `/v1/syncs?status=${status}&limit=100`, { headers: this.headers });
    expect(res.status).toBe(200);
    return (res.body as { syncs: PipelineSync[] }).syncs;
  }

  /** Polls until the sync is `completed`, `failed` or `cancelled`. */
  async settled(id: string, timeoutMs = 120_000): Promise<PipelineSync> {
    let last: PipelineSync | undefined;
    await pollUntil(
      async () => {
        last = await this.readSync(id);
        return ['completed', 'failed', 'cancelled'].includes(last.status);
      },
      { timeoutMs, intervalMs: 250, description: `sync ${id} settled` },
    );
    return last!;
  }

  async health(): Promise<ConnectionHealth> {
    const res = await call(this.stack.gatewayUrl, `/v1/connections/${this.connectionId}`, { headers: { authorization: `Bearer ${this.readerKey}` } });
    expect(res.status).toBe(200);
    return res.body as ConnectionHealth;
  }

  /** The canonical dump of the directory's data of this connection. */
  dump(): Promise<string> {
    return canonicalDump({ clientUrl: this.stack.databaseUrl, schemas: { directory: this.stack.schemas.directory }, connectionIds: [this.connectionId] });
  }

  /** The orchestrator's units of a sync, in plan order. */
  units(syncId: string) {
    return this.stack.sql<{
      id: string;
      purpose: string;
      state: string;
      fencing_token: string;
      lease_owner: string | null;
      lease_expires_at: string | null;
      leased: boolean;
      error_attempts: number;
      throttle_requeues: number;
      last_error_code: string | null;
      awaiting: boolean;
    }>(
      `select id::text as id, purpose, state, fencing_token::text as fencing_token, lease_owner, lease_expires_at::text as lease_expires_at,
              lease_expires_at > now() as leased, error_attempts, throttle_requeues, last_error_code,
              coalesce(awaiting_token = fencing_token and awaiting_receipts_until > now(), false) as awaiting
         from $orchestrator.sync_unit where sync_id = ? order by seq`,
      [syncId],
    );
  }
}

export interface PipelineStackOptions {
  /** Simulator base URL per provider the test uses. */
  providerBaseUrls: Partial<Record<Provider, string>>;
  /** Extra orchestrator environment (LEASE_MS, COLLECTOR_CONCURRENCY, …). */
  orchestratorEnv?: Record<string, string>;
}

export class PipelineStack {
  readonly schemas = isolatedSchemas(['gateway', 'sync-orchestrator', 'directory', 'telemetry-ingest', 'fault-feed', 'enrichment']);
  readonly namespace = uniqueNamespace('pipeline');
  readonly logLines: string[] = [];
  readonly masterKey = SecretBox.generateKey();
  databaseUrl = '';
  natsUrl = '';
  gateway!: RunningService;
  orchestrator!: RunningService;
  directory: RunningService | undefined;
  private readonly buses: MessageBus[] = [];
  private readonly services: RunningService[] = [];
  private readonly sink = new PassThrough();

  get gatewayUrl(): string {
    if (!this.gateway.url) throw new Error('the gateway serves no HTTP');
    return this.gateway.url;
  }

  private constructor(private readonly options: PipelineStackOptions) {
    this.sink.on('data', (chunk: Buffer) => this.logLines.push(chunk.toString('utf8')));
  }

  static async start(options: PipelineStackOptions): Promise<PipelineStack> {
    const stack = new PipelineStack(options);
    await stack.boot();
    return stack;
  }

  private common() {
    return { databaseUrl: this.databaseUrl, environment: 'sandbox' as const, allServiceSchemas: Object.values(this.schemas) };
  }

  private logger(service: string) {
    return createLogger({ service, level: 'debug', destination: this.sink });
  }

  async bus(name: string): Promise<MessageBus> {
    const created = await createBus({ kind: 'jetstream', servers: this.natsUrl, name, namespace: this.namespace });
    this.buses.push(created);
    return created;
  }

  private async boot(): Promise<void> {
    ({ databaseUrl: this.databaseUrl, natsUrl: this.natsUrl } = await resolveTestServices());
    this.gateway = await startGateway({
      ...this.common(),
      bus: await this.bus('gateway-test'),
      schema: this.schemas.gateway,
      logger: this.logger('gateway'),
      http: { port: 0 },
      // A generous RPC deadline: the test machine is shared and often loaded.
      gatewaySettings: { masterKey: this.masterKey, cursorSecret: randomBytes(32).toString('base64url'), rpcTimeoutMs: 30_000 },
    });
    this.services.push(this.gateway);
    await this.startDirectory();
    this.orchestrator = await startSyncOrchestrator({
      ...this.common(),
      bus: await this.bus('sync-orchestrator-test'),
      schema: this.schemas['sync-orchestrator'],
      logger: this.logger('sync-orchestrator'),
      providerBaseUrls: this.options.providerBaseUrls,
      collectors: true,
      env: { ...process.env, POLL_MS: '100', LEASE_MS: '10000', ...this.options.orchestratorEnv },
    });
    this.services.push(this.orchestrator);
  }

  async startDirectory(): Promise<void> {
    if (this.directory) return;
    this.directory = await startDirectory({ ...this.common(), bus: await this.bus('directory-test'), schema: this.schemas.directory, logger: this.logger('directory') });
  }

  async stopDirectory(): Promise<void> {
    await this.directory?.close();
    this.directory = undefined;
  }

  /** SQL on the shared database; `$orchestrator` / `$directory` / `$gateway` name the isolated schemas. */
  async sql<T>(text: string, params: unknown[] = []): Promise<T[]> {
    const resolved = text
      .replaceAll('$orchestrator', `"${this.schemas['sync-orchestrator']}"`)
      .replaceAll('$directory', `"${this.schemas.directory}"`)
      .replaceAll('$gateway', `"${this.schemas.gateway}"`);
    return this.orchestrator.runtime.orm.em.fork().execute<T[]>(resolved, params);
  }

  /** Empties the directory's data tables of `connectionId` (see the header). */
  async wipeDirectory(connectionId: string): Promise<void> {
    for (const table of ['vehicle', 'driver', '"group"', 'trip']) await this.sql(`delete from $directory.${table} where connection_id = ?::uuid`, [connectionId]);
  }

  /** A collecting connection on `provider` with the given purposes (default: all three) and approved vehicles, granted to a fresh application. */
  async connect(input: {
    provider: Provider;
    credentials: Record<string, string>;
    approvedVehicleIds: readonly string[];
    purposes?: { vehicles: boolean; groupMemberships: boolean; trips: boolean };
    customerId?: string;
  }): Promise<PipelineConnection> {
    const connections = new ConnectionsAdmin(this.gateway.runtime.orm, new SecretBox(this.masterKey));
    const connectionId = (await connections.create({ customerId: input.customerId ?? `fleet-${input.provider}`, provider: input.provider, environment: 'sandbox', providerCredentials: input.credentials }))
      .connectionId;
    const config = await connections.configure(connectionId, {
      status: 'active',
      unifiedCollection: true,
      purposes: input.purposes ?? { vehicles: true, groupMemberships: true, trips: true },
      approvedVehicleIds: [...input.approvedVehicleIds],
    });
    const credentials = new CredentialsAdmin(this.gateway.runtime.orm);
    const app = await credentials.createApplication(`pipeline ${input.provider}`, 'sandbox');
    await credentials.grantApplication(app.id, connectionId, ['sync.create', 'sync.read', 'sync.retry', 'sync.cancel'], true);
    const token = (await credentials.issueConnectionToken(app.id, connectionId)).token;
    const reader = await credentials.createConsumerKey(`health reader ${input.provider}`);
    await credentials.grantConsumer(reader.id, connectionId, ['read']);
    await this.gateway.app.get(OutboxRelay).flush();
    for (const schema of ['$orchestrator', '$directory']) {
      await pollUntil(async () => (await this.sql<{ revision: number }>(`select revision from ${schema}.connection_config where connection_id = ?::uuid`, [connectionId]))[0]?.revision === config.revision, {
        timeoutMs: 20_000,
        description: `config revision ${config.revision} in ${schema}`,
      });
    }
    // The orchestrator must hold the application's CURRENT credential version (the gateway
    // authenticates with it; an older projected one answers 503 service_unavailable).
    const [gatewayApp] = await this.sql<{ v: number }>('select credential_version as v from $gateway.application where id = ?::uuid', [app.id]);
    await pollUntil(async () => (await this.sql<{ v: number }>('select credential_version as v from $orchestrator.application_credential where application_id = ?::uuid', [app.id]))[0]?.v === gatewayApp!.v, {
      timeoutMs: 30_000,
      description: 'the application grant version in the orchestrator',
    });
    return new PipelineConnection(this, connectionId, { authorization: `Bearer ${app.token}`, 'connection-token': token }, reader.token);
  }

  async close(): Promise<void> {
    await this.stopDirectory().catch(() => undefined);
    for (const service of this.services.reverse()) await service.close().catch(() => undefined);
    await Promise.allSettled(this.buses.map((b) => b.close()));
    if (this.databaseUrl) await dropSchemas(this.databaseUrl, Object.values(this.schemas));
    if (this.natsUrl) await deleteNamespaceStreams(this.natsUrl, this.namespace);
  }
}
