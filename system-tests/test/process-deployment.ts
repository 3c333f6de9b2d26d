/**
 * One isolated Switchyard deployment whose contexts run as real processes (the built
 * `apps/<app>/dist/main.js`), for the crash and scale-out tests: its own schemas and NATS
 * namespace, an in-process gateway (HTTP API, operator admin, provider-access RPC), and any number
 * of sync-orchestrator / directory / telemetry-ingest / fault-feed processes the test spawns, kills
 * and restarts. Several deployments share one simulator and one connection id (SharedFleet), so
 * their canonical dumps are comparable byte for byte (public ids are minted from the connection id).
 *
 * Decisions: the gateway stays in the test process (it is not under test here and gives direct
 * access to the admin services); orchestrator processes run without the collection scheduler
 * (SCHEDULER_ENABLED=false, which main.ts would otherwise turn on; a deployment's orchestrator environment may turn it back on, as the scheduler crash does); contexts log at debug so a test can attribute committed batches
 * to the process that committed them ("ingest batch handled" lines); teardown SIGKILLs whatever is
 * left (SIGCONT first, so a stopped process can die) and drops the schemas and streams it created.
 * Internal runs (telemetry, faults) are created the way the scheduler does, through
 * SyncLifecycleService.createInternal, on the test's own ORM over the orchestrator's schema: no
 * in-process orchestrator competes with the processes for units or receipts.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { SecretBox, startGateway } from '@switchyard/gateway';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { ALL_STREAMS, createBus, DeadLetterStore, Namespace, silentLogger, subjectMatches, type DeadLetterV1, type MessageBus, type StreamDefinition } from '@switchyard/messaging';
import { createOrm, type Orm } from '@switchyard/persistence';
import { createLogger, type RunningService } from '@switchyard/service-kit';
import { canonicalDump, deleteNamespaceStreams, dropSchemas, isolatedSchemas, pollUntil, serviceStarted, spawnService, uniqueNamespace, type ContextApp, type NodeProcess } from '@switchyard/testing';
import { SCHEDULED_ORIGIN, SyncLifecycleService, syncOrchestratorService, type InternalRun, type InternalSyncPurpose } from '@switchyard/sync-orchestrator';
import { awaitProjected, COLLECTING_CONFIG, createConnection, execute, grantApplication, SyncApi, type PublicSync } from './gateway-client.js';

/** What every deployment of one test shares: the servers, the simulator account and the connection. */
export interface SharedFleet {
  readonly databaseUrl: string;
  readonly natsUrl: string;
  readonly simulatorUrl: string;
  readonly apiToken: string;
  readonly masterKey: string;
  readonly connectionId: string;
  readonly approvedVehicleIds: readonly string[];
  /** The fixed start of every sync's interval (before the simulator's frozen clock). */
  readonly startFrom: string;
  /** The fixed window of every internal run (telemetry history, faults): inside the simulated past. */
  readonly internalWindow: { readonly startFrom: string; readonly intervalEnd: string };
}

const HOUR = 3_600_000;

/**
 * The fleet of a Samsara simulator frozen at `simStart`: its vehicles (all approved), a new
 * connection id and master key, public syncs from 36 h before the frozen clock (at least two trip
 * slices per vehicle) and internal runs over the last simulated day (the simulator serves no
 * history after its "now").
 */
export async function frozenSamsaraFleet(servers: { databaseUrl: string; natsUrl: string }, simulatorUrl: string, apiToken: string, simStart: number): Promise<SharedFleet> {
  const listed = await fetch(`${simulatorUrl}/fleet/vehicles`, { headers: { authorization: `Bearer ${apiToken}` } });
  const vehicles = ((await listed.json()) as { data: { id: string }[] }).data.map((v) => v.id).sort();
  return {
    ...servers,
    simulatorUrl,
    apiToken,
    masterKey: SecretBox.generateKey(),
    connectionId: randomUUID(),
    approvedVehicleIds: vehicles,
    startFrom: new Date(simStart - 36 * HOUR).toISOString(),
    internalWindow: { startFrom: new Date(simStart - 24 * HOUR).toISOString(), intervalEnd: new Date(simStart).toISOString() },
  };
}

/** What every internal run collects: the selected signals' history and latest readings, and faults. */
export const INTERNAL_PURPOSES: readonly InternalSyncPurpose[] = ['telemetryLatest', 'telemetryHistory', 'faults'];

const APPS = ['gateway', 'sync-orchestrator', 'directory', 'telemetry-ingest', 'fault-feed', 'enrichment'] as const;
/** The contexts whose stored data the dump compares; one more context = one more entry. */
export const DUMPED = { directory: 'directory', telemetry: 'telemetry-ingest', faults: 'fault-feed' } as const;
export const INGEST_APPS = ['directory', 'telemetry-ingest', 'fault-feed'] as const satisfies readonly ContextApp[];

export class ProcessDeployment {
  readonly schemas = isolatedSchemas(APPS);
  readonly namespace: string;
  /** Every process ever spawned here, in order. */
  readonly processes: { app: ContextApp; process: NodeProcess }[] = [];
  private gateway: RunningService | undefined;
  private bus: MessageBus | undefined;
  private api: SyncApi | undefined;
  private orchestratorOrm: Orm | undefined;

  constructor(
    readonly fleet: SharedFleet,
    name: string,
    /** Extra environment of every orchestrator process (lease, poll, concurrency). */
    private readonly orchestratorEnv: Record<string, string> = {},
    /** Extra environment of every directory, telemetry-ingest and fault-feed process (INGEST_ACK_WAIT_MS). */
    private readonly ingestEnv: Record<string, string> = {},
  ) {
    this.namespace = uniqueNamespace(name);
  }

  /** `streams`: what the provisioning step applies (e.g. with replicas on a cluster). */
  async startGateway(streams: readonly StreamDefinition[] = ALL_STREAMS): Promise<void> {
    this.bus = await createBus({ kind: 'jetstream', servers: this.fleet.natsUrl, name: `${this.namespace}-gateway`, namespace: this.namespace });
    // The provisioning step (decision 0033), before the gateway and every spawned context: services only verify the streams.
    await this.bus.ensureStreams(streams);
    this.gateway = await startGateway({
      databaseUrl: this.fleet.databaseUrl,
      environment: 'sandbox',
      allServiceSchemas: Object.values(this.schemas),
      bus: this.bus,
      schema: this.schemas.gateway,
      logger: createLogger({ service: 'gateway', level: 'warn' }),
      http: { port: 0 },
      gatewaySettings: { masterKey: this.fleet.masterKey, cursorSecret: randomBytes(32).toString('base64url'), rpcTimeoutMs: 10_000 },
    });
  }

  /** Starts a context process (not waiting for it); `extra` adds e.g. SWITCHYARD_CRASH_AT. */
  spawn(app: ContextApp, extra: Record<string, string> = {}): NodeProcess {
    const child = spawnService(app, {
      DATABASE_URL: this.fleet.databaseUrl,
      NATS_URL: this.fleet.natsUrl,
      NATS_NAMESPACE: this.namespace,
      DB_SCHEMA: this.schemas[app],
      HEALTH_PORT: '0',
      HOST: '127.0.0.1',
      SWITCHYARD_ENV: 'sandbox',
      LOG_LEVEL: 'debug',
      SAMSARA_BASE_URL: this.fleet.simulatorUrl,
      // No scheduler: its runs (drivers, groups, telemetry…) would land at their own time and make
      // the dumps of two deployments differ; these tests compare what one public sync stores.
      ...(app === 'sync-orchestrator' ? { SCHEDULER_ENABLED: 'false', ...this.orchestratorEnv } : {}),
      ...((INGEST_APPS as readonly ContextApp[]).includes(app) ? this.ingestEnv : {}),
      ...extra,
    });
    this.processes.push({ app, process: child });
    return child;
  }

  /** Waits until every spawned process that is still alive has logged `<app> started`. */
  async started(): Promise<void> {
    await Promise.all(this.processes.filter((p) => p.process.child.exitCode === null && p.process.child.signalCode === null).map((p) => serviceStarted(p.app, p.process)));
  }

  /** PostgreSQL as the test sees it (through the gateway's pool; every name schema-qualified). */
  async sql<T>(text: string, params: unknown[] = []): Promise<T[]> {
    return execute<T>(this.running(), text, params);
  }

  /**
   * Runs `text` (e.g. a `select … for key share`) in a transaction of its own that stays open —
   * holding whatever row locks the statement took — until the returned function is called (it
   * resolves once the transaction ended). No idle-in-transaction deadline inside it: the hold lasts
   * as long as the test needs, however slowly the processes it waits on start.
   */
  async hold(text: string, params: unknown[] = []): Promise<() => Promise<void>> {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let taken!: () => void;
    let failed!: (error: unknown) => void;
    const held = new Promise<void>((resolve, reject) => ((taken = resolve), (failed = reject)));
    const transaction = this.running()
      .runtime.orm.em.fork()
      .transactional(async (tx) => {
        await tx.execute('set local idle_in_transaction_session_timeout = 0');
        await tx.execute(text, params);
        taken();
        await released;
      })
      .catch((error: unknown) => failed(error));
    await held;
    return async () => {
      release();
      await transaction;
    };
  }

  /**
   * Creates the shared connection (same id in every deployment), active with vehicles, group
   * memberships and trips for the approved vehicles, and an application allowed to create syncs
   * over history; waits until every context process projected the configuration and the grant.
   */
  async connect(projections: readonly ContextApp[] = ['sync-orchestrator', ...INGEST_APPS]): Promise<void> {
    const gateway = this.running();
    const { connectionId, revision } = await createConnection(gateway, this.fleet.masterKey, {
      id: this.fleet.connectionId,
      customerId: 'fleet-crash',
      provider: 'samsara',
      providerCredentials: { apiToken: this.fleet.apiToken },
      config: {
        ...COLLECTING_CONFIG,
        approvedVehicleIds: [...this.fleet.approvedVehicleIds],
        // Odometer and faults: what the internal runs collect (telemetry-ingest, fault-feed).
        selectedSignals: ['odometer', 'faults'],
      },
    });
    const { applicationId, headers } = await grantApplication(gateway, connectionId, 'crash test', ['sync.create', 'sync.read']);
    this.api = new SyncApi(gateway.url!, headers);
    await awaitProjected(gateway, this.schemas, { connectionId, revision, projections, applicationId, timeoutMs: 120_000 });
  }

  async createSync(): Promise<string> {
    return (await this.syncApi().createSync({ startFrom: this.fleet.startFrom })).id;
  }

  /** Polls GET /v1/syncs/{id} until completed or failed (503 while no orchestrator answers is waited out). */
  async settled(id: string, timeoutMs: number): Promise<PublicSync> {
    return this.syncApi().settled(id, timeoutMs);
  }

  /** Creates the internal run of INTERNAL_PURPOSES over the fleet's internal window (as the scheduler would); returns its id. */
  async createInternalRun(): Promise<string> {
    const { startFrom, intervalEnd } = this.fleet.internalWindow;
    const result = await (await this.lifecycle()).createInternal({
      connectionId: this.fleet.connectionId,
      purposes: [...INTERNAL_PURPOSES],
      startFrom: new Date(startFrom),
      intervalEnd: new Date(intervalEnd),
      origin: SCHEDULED_ORIGIN,
    });
    if (!result.created) throw new Error(`internal run not created: ${result.reason} ${result.detail}`);
    return result.run.id;
  }

  /** Polls the internal run until completed or failed. */
  async settledInternal(id: string, timeoutMs: number): Promise<InternalRun> {
    const lifecycle = await this.lifecycle();
    return pollUntil(
      async () => {
        const run = await lifecycle.getInternal(id);
        return run?.status === 'completed' || run?.status === 'failed' ? run : undefined;
      },
      { timeoutMs, intervalMs: 250, description: `internal run ${id} completed or failed` },
    );
  }

  /** The canonical dump of every ingesting context's data for the shared connection. */
  dump(): Promise<string> {
    return canonicalDump({
      clientUrl: this.fleet.databaseUrl,
      schemas: Object.fromEntries(Object.entries(DUMPED).map(([context, app]) => [context, this.schemas[app]])),
      connectionIds: [this.fleet.connectionId],
    });
  }

  /**
   * Messages `stream` (logical name) holds on subjects matching `filter` (logical, e.g.
   * `fleet.faults.<connectionId>.>`), or all of them; 0 when the stream does not exist. Own NATS
   * connection, closed before returning.
   */
  async streamMessages(stream: string, filter?: string): Promise<number> {
    const ns = new Namespace(this.namespace);
    const nc = await connect({ servers: this.fleet.natsUrl, name: `${this.namespace}-inspect` });
    try {
      const jsm = await jetstreamManager(nc);
      const info = await jsm.streams.info(ns.stream(stream), filter === undefined ? undefined : { subjects_filter: ns.subject(filter) }).catch(() => undefined);
      if (info === undefined) return 0;
      if (filter === undefined) return info.state.messages;
      return Object.values(info.state.subjects ?? {}).reduce((sum, n) => sum + n, 0);
    } finally {
      await nc.close();
    }
  }

  /**
   * Every message `stream` holds on subjects matching `filter` (logical), as its `Nats-Msg-Id` and
   * the time JetStream stored it, in stream order. Own NATS connection, closed before returning.
   */
  async streamMsgIds(stream: string, filter: string): Promise<{ msgId: string | undefined; storedAt: number }[]> {
    const ns = new Namespace(this.namespace);
    const nc = await connect({ servers: this.fleet.natsUrl, name: `${this.namespace}-inspect` });
    try {
      const jsm = await jetstreamManager(nc);
      const name = ns.stream(stream);
      const info = await jsm.streams.info(name);
      const pattern = ns.subject(filter);
      const found: { msgId: string | undefined; storedAt: number }[] = [];
      for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
        const m = await jsm.streams.getMessage(name, { seq }).catch(() => undefined);
        if (m && subjectMatches(pattern, m.subject)) found.push({ msgId: m.header?.get('Nats-Msg-Id') || undefined, storedAt: m.time.getTime() });
      }
      return found;
    } finally {
      await nc.close();
    }
  }

  /** The dead letters of the deployment's namespace, without their payloads (what a failing test prints). */
  async deadLetters(): Promise<Omit<DeadLetterV1, 'payload'>[]> {
    const store = await DeadLetterStore.open({ servers: this.fleet.natsUrl, namespace: this.namespace, logger: silentLogger });
    try {
      return (await store.list()).map(({ envelope: { payload: _payload, ...rest } }) => rest);
    } finally {
      await store.close();
    }
  }

  /** SIGTERM to every live process (each must drain and exit 0), then the gateway. */
  async stop(): Promise<void> {
    const live = this.processes.filter((p) => p.process.child.exitCode === null && p.process.child.signalCode === null);
    for (const p of live) p.process.child.kill('SIGTERM');
    const exits = await Promise.all(live.map((p) => p.process.waitForExit(90_000)));
    const unclean = exits.map((exit, i) => ({ exit, app: live[i]!.app })).filter(({ exit }) => exit.code !== 0);
    if (unclean.length > 0) throw new Error(`processes did not stop cleanly: ${JSON.stringify(unclean)}`);
  }

  /** Teardown: kill what is left, close the gateway, drop the schemas and the namespace's streams. */
  async close(): Promise<void> {
    for (const p of this.processes) p.process.child.kill('SIGCONT');
    await Promise.all(this.processes.map((p) => p.process.kill()));
    await this.orchestratorOrm?.close(true).catch(() => undefined);
    await this.gateway?.close().catch(() => undefined);
    await this.bus?.close().catch(() => undefined);
    await dropSchemas(this.fleet.databaseUrl, Object.values(this.schemas));
    await deleteNamespaceStreams(this.fleet.natsUrl, this.namespace);
  }

  private async lifecycle(): Promise<SyncLifecycleService> {
    this.orchestratorOrm ??= await createOrm({
      clientUrl: this.fleet.databaseUrl,
      schema: this.schemas['sync-orchestrator'],
      entities: syncOrchestratorService.entities,
      migrations: syncOrchestratorService.migrations,
      allServiceSchemas: Object.values(this.schemas),
      poolMax: 2,
      logger: () => undefined,
    });
    return new SyncLifecycleService(this.orchestratorOrm);
  }

  private running(): RunningService {
    if (!this.gateway) throw new Error('startGateway() first');
    return this.gateway;
  }

  private syncApi(): SyncApi {
    if (!this.api) throw new Error('connect() first');
    return this.api;
  }
}

/** The process's stdout log lines (pino JSON) with the given message. */
export function logEntries(child: NodeProcess, msg: string): Record<string, unknown>[] {
  return child
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes(`"msg":"${msg}"`))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The owner string a collector leases under (`host:pid:random`, collector.service.ts) belongs to `child`. */
export function ownedBy(owner: string | null, child: NodeProcess): boolean {
  return owner !== null && owner.split(':').at(-2) === String(child.child.pid);
}
