/**
 * The collection pipeline of the in-process system suites (collector-*,
 * pipeline-*, scheduler), on the real PostgreSQL and NATS, as the launcher runs it: a gateway
 * (HTTP on a free port, connection configs, credentials, connection health), the ingesting contexts
 * a suite asks for (directory by default; telemetry-ingest, fault-feed) and one or more
 * sync-orchestrator instances on ONE schema (several processes' worth of collectors, receipt
 * consumers and, when asked, schedulers), in isolated schemas and one NATS namespace. The
 * orchestrators collect from simulators the suite spawned (`providerBaseUrls`) or from a Samsara
 * simulator the stack spawns (`samsaraSimulator`, seeded with the stack's name; URL and token in
 * `samsara`). Every service logs into `logLines` (debug unless asked otherwise: suites assert on
 * what is, and is never, logged). `close()` stops the services newest first, closes the buses,
 * kills the simulator, drops the schemas and deletes the namespace's streams.
 *
 * `connect` creates a connection the way an operator does (ConnectionsAdmin + CredentialsAdmin) and
 * waits until the orchestrator and every started context projected its configuration and the
 * application's current grant; the returned handle drives `/v1/syncs` over HTTP with every response
 * validated against the OpenAPI document (the provisioning and `SyncApi` are gateway-client.ts,
 * shared with process-deployment.ts, whose contexts run as real processes).
 *
 * Decisions: a context can be stopped and started again on its schema (`stopContext` /
 * `startContext`: a context slower than the lease); `wipeDirectory` empties the directory's data
 * tables of one connection so a later run must write every row again (the canonical dump then
 * compares what that run alone stored, with the same connection id).
 */
import { expect } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { startDirectory } from '@switchyard/directory';
import { startFaultFeed } from '@switchyard/fault-feed';
import { ConnectionsAdmin, CredentialsAdmin, grantCredentials, requestToken, SecretBox, startDeadLetters, startGateway, type ConnectionConfigPatch, type OAuthClient } from '@switchyard/gateway';
import { startTelemetryIngest } from '@switchyard/telemetry-ingest';
import type { Provider } from '@switchyard/domain';
import { ALL_STREAMS, createBus, type MessageBus } from '@switchyard/messaging';
import { createLogger, type RunningService, type StartOptions, type TracingConfig } from '@switchyard/service-kit';
import { canonicalDump, deleteNamespaceStreams, dropSchemas, isolatedSchemas, resolveTestServices, SIMULATOR_OAUTH_CLIENT, SIMULATOR_OAUTH_PATHS, simulatorAuthorizationCode, spawnSimulator, uniqueNamespace, type NodeProcess } from '@switchyard/testing';
import { startSyncOrchestrator } from '@switchyard/sync-orchestrator';
import { awaitProjected, COLLECTING_CONFIG, createConnection, execute, grantApplication, SyncApi, validatedCall } from './gateway-client.js';

export type { PublicSync } from './gateway-client.js';

export type IngestContext = 'directory' | 'telemetry-ingest' | 'fault-feed';

const STARTERS: Record<IngestContext, (options: StartOptions) => Promise<RunningService>> = {
  directory: startDirectory,
  'telemetry-ingest': startTelemetryIngest,
  'fault-feed': startFaultFeed,
};

export interface ConnectionHealth {
  last_success_at?: string | null;
  last_error_code?: string | null;
  extended_last_success_at?: string | null;
  extended_last_error_code?: string | null;
}

export class PipelineConnection extends SyncApi {
  constructor(
    private readonly stack: PipelineStack,
    readonly connectionId: string,
    readonly applicationId: string,
    headers: Record<string, string>,
    private readonly readerKey: string,
  ) {
    super(stack.gatewayUrl, headers);
  }

  /** The connection's consumer key (read permission): tests that must find it nowhere (logs, spans). */
  get consumerKey(): string {
    return this.readerKey;
  }

  /** `GET /v1/connections/{id}` with the connection's consumer key (read permission). */
  async health(): Promise<ConnectionHealth> {
    const res = await validatedCall(this.gatewayUrl, 'GET', `/v1/connections/${this.connectionId}`, { authorization: `Bearer ${this.readerKey}` });
    expect(res.status).toBe(200);
    return res.body as ConnectionHealth;
  }

  /** `GET <path>` at the gateway with the connection's consumer key (read permission), validated against the OpenAPI document. */
  async read(path: string): Promise<{ status: number; body: unknown }> {
    const res = await validatedCall(this.gatewayUrl, 'GET', path, { authorization: `Bearer ${this.readerKey}` });
    return { status: res.status, body: res.body };
  }

  /** Applies a configuration change at the gateway and waits until the orchestrator and every started context hold it. */
  async configure(patch: ConnectionConfigPatch): Promise<void> {
    const { revision } = await new ConnectionsAdmin(this.stack.gateway.runtime.orm, new SecretBox(this.stack.masterKey)).configure(this.connectionId, patch);
    await this.stack.projected(this.connectionId, revision);
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
  /** Base URLs of simulators the suite spawned itself. */
  providerBaseUrls?: Partial<Record<Provider, string>>;
  /** Spawn a Samsara simulator seeded with `name`, with these extra variables (fleet size, clock); see `samsara`. */
  samsaraSimulator?: Record<string, string>;
  /** Register the spawned Samsara simulator's OAuth client with the gateway (it refreshes grants; see `samsaraGrant`). */
  samsaraOAuth?: boolean;
  /** Namespace prefix (and the Samsara simulator's seed); default `pipeline`. */
  name?: string;
  /** The ingesting contexts started beside the orchestrator; default directory only. */
  contexts?: readonly IngestContext[];
  /** Orchestrator instances on the one schema; default 1. */
  orchestrators?: number;
  /** Run every orchestrator's collection scheduler; default off. */
  scheduler?: boolean;
  /** Extra environment of every orchestrator (LEASE_MS, COLLECTOR_CONCURRENCY, SCHEDULE_WINDOW_MS, …) over POLL_MS=100, LEASE_MS=10000. */
  orchestratorEnv?: Record<string, string>;
  /** Level of every service's log into `logLines`; default debug. */
  logLevel?: 'debug' | 'info' | 'warn';
  /** Start the gateway's dead-letter role (decision 0046) beside the gateway, on its own bus connection (`deadLetters`). */
  deadLetters?: boolean;
  /** Traces of each service (e.g. to an OtlpReceiver); default none, whatever OTEL_* the test process has. */
  tracing?: (service: App) => TracingConfig;
}

const APPS = ['gateway', 'sync-orchestrator', 'directory', 'telemetry-ingest', 'fault-feed', 'enrichment'] as const;
export type App = (typeof APPS)[number];

/** `$orchestrator`, `$directory`, `$gateway`, `$telemetry`, `$faults` in `PipelineStack.sql` name these apps' isolated schemas. */
const SCHEMA_PLACEHOLDERS: Record<string, App> = { orchestrator: 'sync-orchestrator', directory: 'directory', gateway: 'gateway', telemetry: 'telemetry-ingest', faults: 'fault-feed' };

export class PipelineStack {
  readonly schemas = isolatedSchemas(APPS);
  readonly namespace: string;
  readonly logLines: string[] = [];
  readonly masterKey = SecretBox.generateKey();
  databaseUrl = '';
  natsUrl = '';
  gateway!: RunningService;
  /** The gateway's dead-letter role, when `deadLetters` asked for it. */
  deadLetters: RunningService | undefined;
  /** Every orchestrator instance, in start order. */
  readonly orchestrators: RunningService[] = [];
  /** The running ingesting contexts. */
  readonly contexts: Partial<Record<IngestContext, RunningService>> = {};
  private readonly buses: MessageBus[] = [];
  /** Every running service, in start order. */
  readonly services: RunningService[] = [];
  private readonly sink = new PassThrough();
  private simulator: { url: string; apiToken: string; process: NodeProcess } | undefined;

  /** The first orchestrator. */
  get orchestrator(): RunningService {
    return this.orchestrators[0]!;
  }

  /** The spawned Samsara simulator's URL and the token it serves (`samsaraSimulator`). */
  get samsara(): { url: string; apiToken: string } {
    if (!this.simulator) throw new Error('no samsaraSimulator in the options');
    return this.simulator;
  }

  get gatewayUrl(): string {
    if (!this.gateway.url) throw new Error('the gateway serves no HTTP');
    return this.gateway.url;
  }

  private constructor(private readonly options: PipelineStackOptions) {
    this.namespace = uniqueNamespace(options.name ?? 'pipeline');
    this.sink.on('data', (chunk: Buffer) => this.logLines.push(chunk.toString('utf8')));
  }

  static async start(options: PipelineStackOptions): Promise<PipelineStack> {
    const stack = new PipelineStack(options);
    try {
      await stack.boot();
    } catch (error) {
      await stack.close().catch(() => undefined);
      throw error;
    }
    return stack;
  }

  /** A bus in the stack's namespace (closed by `close`). */
  async bus(name: string): Promise<MessageBus> {
    const created = await createBus({ kind: 'jetstream', servers: this.natsUrl, name, namespace: this.namespace });
    this.buses.push(created);
    return created;
  }

  /** Starts an app on its own bus connection and schema; `extra` holds its own options (the gateway's settings, the orchestrator's collectors…). */
  private async startService(service: App, busName: string, starter: (options: StartOptions) => Promise<RunningService>, extra: Partial<StartOptions> & Record<string, unknown>): Promise<RunningService> {
    const running = await starter({
      databaseUrl: this.databaseUrl,
      environment: 'sandbox',
      allServiceSchemas: Object.values(this.schemas),
      bus: await this.bus(busName),
      schema: this.schemas[service],
      logger: createLogger({ service, level: this.options.logLevel ?? 'debug', destination: this.sink }),
      tracing: this.options.tracing?.(service) ?? null,
      ...extra,
    });
    this.services.push(running);
    return running;
  }

  private async boot(): Promise<void> {
    ({ databaseUrl: this.databaseUrl, natsUrl: this.natsUrl } = await resolveTestServices());
    if (this.options.samsaraSimulator) {
      const apiToken = `samsara_api_${randomBytes(20).toString('hex')}`;
      const spawned = await spawnSimulator('samsara', { SAMSARA_API_TOKENS: apiToken, SIM_SEED: this.options.name ?? 'pipeline', ...this.options.samsaraSimulator });
      this.simulator = { url: spawned.url, apiToken, process: spawned.process };
    }
    // The provisioning step (decision 0033): services only verify the streams.
    await (await this.bus('provision')).ensureStreams(ALL_STREAMS);
    this.gateway = await this.startService('gateway', 'gateway-test', startGateway, {
      http: { port: 0 },
      // A generous RPC deadline: the test machine is shared and often loaded.
      gatewaySettings: {
        masterKey: this.masterKey,
        cursorSecret: randomBytes(32).toString('base64url'),
        rpcTimeoutMs: 30_000,
        ...(this.options.samsaraOAuth ? { oauth: { samsara: this.samsaraOAuthClient } } : {}),
      },
    });
    if (this.options.deadLetters) {
      this.deadLetters = await this.startService('gateway', 'dead-letters-test', startDeadLetters, {
        // Never above info: its audit lines (one per replay or discard) are what a suite checks.
        logger: createLogger({ service: 'gateway', role: 'dead-letters', level: this.options.logLevel === 'warn' ? 'info' : (this.options.logLevel ?? 'debug'), destination: this.sink }),
      });
    }
    for (const context of this.options.contexts ?? ['directory']) await this.startContext(context);
    for (let i = 0; i < (this.options.orchestrators ?? 1); i++) {
      this.orchestrators.push(
        await this.startService('sync-orchestrator', `sync-orchestrator-test-${i}`, startSyncOrchestrator, {
          providerBaseUrls: { ...this.options.providerBaseUrls, ...(this.simulator ? { samsara: this.simulator.url } : {}) },
          collectors: true,
          scheduler: this.options.scheduler ?? false,
          env: { ...process.env, POLL_MS: '100', LEASE_MS: '10000', ...this.options.orchestratorEnv },
        }),
      );
    }
  }

  /** The spawned Samsara simulator's registered OAuth client, as the gateway is configured with it (`samsaraOAuth`). */
  get samsaraOAuthClient(): OAuthClient {
    const { url } = this.samsara;
    return { ...SIMULATOR_OAUTH_CLIENT, authorizeUrl: `${url}${SIMULATOR_OAUTH_PATHS.samsara.authorize}`, tokenUrl: `${url}${SIMULATOR_OAUTH_PATHS.samsara.token}` };
  }

  /**
   * An OAuth grant of the spawned Samsara simulator's first account, approved on its consent page
   * as the customer's browser would and exchanged with the gateway's own token request: exactly the
   * credentials a connect session seals (`apiToken`, `refreshToken`, `accessTokenExpiresAt`).
   */
  async samsaraGrant(): Promise<Record<string, string> & { apiToken: string; refreshToken: string }> {
    const redirectUri = 'http://127.0.0.1:9/oauth/callback';
    const code = await simulatorAuthorizationCode(this.samsara.url, 'samsara', SIMULATOR_OAUTH_CLIENT.clientId, redirectUri);
    const answer = await requestToken('samsara', this.samsaraOAuthClient, { grant_type: 'authorization_code', code, redirect_uri: redirectUri });
    if (!answer.ok || !answer.refreshToken) throw new Error(`the simulator's token endpoint gave no grant: ${answer.ok ? 'no refresh token' : answer.reason}`);
    return { ...grantCredentials('samsara', answer), apiToken: answer.accessToken, refreshToken: answer.refreshToken };
  }

  async startContext(context: IngestContext): Promise<void> {
    if (this.contexts[context]) return;
    this.contexts[context] = await this.startService(context, `${context}-test`, STARTERS[context], {});
  }

  async stopContext(context: IngestContext): Promise<void> {
    const running = this.contexts[context];
    if (!running) return;
    delete this.contexts[context];
    this.services.splice(this.services.indexOf(running), 1);
    await running.close();
  }

  /** SQL on the shared database; `$orchestrator` / `$directory` / `$gateway` / `$telemetry` / `$faults` name the isolated schemas. */
  async sql<T>(text: string, params: unknown[] = []): Promise<T[]> {
    const resolved = text.replace(/\$(orchestrator|directory|gateway|telemetry|faults)\b/g, (_, name: string) => `"${this.schemas[SCHEMA_PLACEHOLDERS[name]!]}"`);
    return execute<T>(this.gateway, resolved, params);
  }

  /** Empties the directory's data tables of `connectionId` (see the header). */
  async wipeDirectory(connectionId: string): Promise<void> {
    for (const table of ['vehicle', 'driver', '"group"', 'trip']) await this.sql(`delete from $directory.${table} where connection_id = ?::uuid`, [connectionId]);
  }

  /** Waits until the orchestrators (one schema) and every running context hold `revision` of the connection. */
  async projected(connectionId: string, revision: number, applicationId?: string): Promise<void> {
    // The orchestrators share one schema: one of them holding the revision is all of them.
    const projections = ['sync-orchestrator', ...Object.keys(this.contexts)];
    await awaitProjected(this.gateway, this.schemas, { connectionId, revision, projections, ...(applicationId ? { applicationId } : {}), timeoutMs: 30_000 });
  }

  /**
   * A connection on `provider` configured as `config` over a collecting one (active, unified
   * collection, every purpose), an application with every sync operation and history on it, and a
   * consumer key allowed to read it; waits until the orchestrator and every context projected both.
   */
  async connect(input: { provider: Provider; credentials: Record<string, string>; config: ConnectionConfigPatch; customerId?: string }): Promise<PipelineConnection> {
    const { connectionId, revision } = await createConnection(this.gateway, this.masterKey, {
      provider: input.provider,
      providerCredentials: input.credentials,
      customerId: input.customerId ?? `fleet-${input.provider}`,
      config: { ...COLLECTING_CONFIG, ...input.config },
    });
    const { applicationId, headers } = await grantApplication(this.gateway, connectionId, `pipeline ${input.provider}`);
    const credentials = new CredentialsAdmin(this.gateway.runtime.orm);
    const reader = await credentials.createConsumerKey(`health reader ${input.provider}`);
    await credentials.grantConsumer(reader.id, connectionId, ['read']);
    await this.projected(connectionId, revision, applicationId);
    return new PipelineConnection(this, connectionId, applicationId, headers, reader.token);
  }

  async close(): Promise<void> {
    for (const service of this.services.reverse()) await service.close().catch(() => undefined);
    await Promise.allSettled(this.buses.map((b) => b.close()));
    await this.simulator?.process.kill();
    if (this.databaseUrl) await dropSchemas(this.databaseUrl, Object.values(this.schemas));
    if (this.natsUrl) await deleteNamespaceStreams(this.natsUrl, this.namespace);
  }
}
