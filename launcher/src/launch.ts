/**
 * The whole system in one process with sandbox data — the five contexts, the gateway and its webhook
 * delivery and dead-letter roles sharing one bus (NATS JetStream when there is one, else the in-process bus), each with its own ORM, schema and
 * metrics registry, the gateway listening on PORT (its /metrics on METRICS_PORT), every context's
 * /metrics (with /healthz and /readyz) on its own internal port — the five ports after
 * METRICS_PORT, in CONTEXT_METRICS_ORDER (decision 0041) — and the sync-orchestrator pointed at the
 * provider simulators.
 * First start seeds the sandbox and writes the credentials file; every start logs one line naming
 * the database and the bus, and prints the "try it" block.
 * Invariant: stop() closes everything in reverse start order, then the bus, then the database,
 * and a failed start stops whatever had already started.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { startDirectory } from '@switchyard/directory';
import { startEnrichment } from '@switchyard/enrichment';
import { startFaultFeed } from '@switchyard/fault-feed';
import { CredentialsAdmin, GATEWAY_METRICS_PORT, loadKeyMaterial, startDeadLetters, startGateway, startWebhookDelivery } from '@switchyard/gateway';
import { createLogger, loadConfig, tracingConfigFrom, tracingEnvSchema, writeLocalStack, type Logger, type RunningService, type TracingConfig } from '@switchyard/service-kit';
import { startSyncOrchestrator } from '@switchyard/sync-orchestrator';
import { startTelemetryIngest } from '@switchyard/telemetry-ingest';
import { ALL_STREAMS } from '@switchyard/messaging';
import { chooseBus, chooseDatabase, embeddedSwitch } from './infrastructure.js';
import { bindSandboxGeotab, credentialsPath, ensureSandbox, exampleVehicleId, extendedTelemetryOn, tryItBlock, type SandboxCredentials } from './sandbox-seed.js';
import { SANDBOX_OAUTH_CLIENT, startVendorSimulator, type RunningVendorSimulator } from '@switchyard/sandbox';
import { startSandboxSimulators } from './simulators.js';

/**
 * The contexts' metrics ports in `npm start`: METRICS_PORT + 1 … + 5 in this order (9465-9469 by
 * default), each a listener of its own as a deployed context's HEALTH_PORT is; none when
 * METRICS_PORT is 0. One process, six registries: each port serves its own service's figures.
 */
export const CONTEXT_METRICS_ORDER = ['sync-orchestrator', 'directory', 'telemetry-ingest', 'fault-feed', 'enrichment'] as const;

/** The sandbox's key for its enrichment vendor simulator (not a secret: the simulator is local). */
const SANDBOX_VENDOR_KEY = 'sandbox-autospec-key';

export interface LaunchOptions {
  env?: NodeJS.ProcessEnv;
  /** Print the try-it block (default true). */
  print?: boolean;
}

export interface Launched {
  baseUrl: string;
  credentialsFile: string;
  stop(): Promise<void>;
}

/**
 * Traces of the six services in this one process, from the same OTEL_* variables as a deployment
 * (decision 0040); each service keeps its own name (OTEL_SERVICE_NAME names one service, not six).
 */
function launcherTracing(env: NodeJS.ProcessEnv): TracingConfig | null {
  const config = tracingConfigFrom(loadConfig(tracingEnvSchema, env));
  if (!config) return null;
  const { serviceName: _oneName, ...perService } = config;
  return perService;
}

export async function launch({ env = process.env, print = true }: LaunchOptions = {}): Promise<Launched> {
  const logger = createLogger({ service: 'launcher', level: env.LOG_LEVEL ?? 'info' });
  const embedded = embeddedSwitch(env);
  const dataDir = path.resolve(env.SWITCHYARD_DATA_DIR ?? '.switchyard');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const keys = loadKeyMaterial({ ...env, SWITCHYARD_DATA_DIR: dataDir }, { createIfMissing: true });
  const database = await chooseDatabase(env, dataDir, logger, embedded);
  const { bus, description, natsUrl } = await chooseBus(env, logger, embedded).catch(async (error: unknown) => {
    await database.stop();
    throw error;
  });
  logger.info({ database: database.description, bus: description }, `using database: ${database.description}; bus: ${description}`);
  // The operator and dlq CLIs read this when DATABASE_URL / NATS_URL are unset (docs/configuration.md).
  writeLocalStack(dataDir, { databaseUrl: database.url, embeddedDatabase: database.embedded, natsUrl, natsNamespace: env.NATS_NAMESPACE ?? '', pid: process.pid, startedAt: new Date().toISOString() });
  // The provisioning step of a deployment (npm run nats:provision, decision 0033), here before any
  // service starts: the services only verify the streams.
  try {
    await bus.ensureStreams(ALL_STREAMS);
  } catch (error) {
    await bus.close();
    await database.stop();
    throw error;
  }
  const common = { databaseUrl: database.url, bus, environment: 'sandbox' as const, migrateOnStart: true, logLevel: env.LOG_LEVEL ?? 'info', tracing: launcherTracing(env) };
  const host = env.HOST ?? '127.0.0.1';
  // As the deployed gateway: /metrics only on its internal port (0 = none), never on PORT.
  const metricsPort = Number(env.METRICS_PORT ?? GATEWAY_METRICS_PORT);
  /** A context's internal listener (/healthz, /readyz, /metrics), as its HEALTH_PORT when deployed. */
  const internal = (service: (typeof CONTEXT_METRICS_ORDER)[number]) => (metricsPort === 0 ? {} : { http: { port: metricsPort + 1 + CONTEXT_METRICS_ORDER.indexOf(service), host } });

  const started: RunningService[] = [];
  let simulators: Awaited<ReturnType<typeof startSandboxSimulators>> | undefined;
  let vendor: RunningVendorSimulator | undefined;
  const stopAll = async () => {
    for (const service of started.reverse()) await service.close().catch((error: unknown) => logger.error({ err: error }, 'stop failed'));
    await simulators?.close().catch((error: unknown) => logger.error({ err: error }, 'stopping the simulators failed'));
    await vendor?.close().catch((error: unknown) => logger.error({ err: error }, 'stopping the enrichment vendor simulator failed'));
    await bus.close();
    await database.stop();
  };
  try {
    simulators = await startSandboxSimulators(env, dataDir);
    logger.info(
      Object.fromEntries(Object.entries(simulators.credentials).map(([provider, c]) => [provider, c.baseUrl])),
      'provider simulators started',
    );
    // The orchestrator's collectors call the simulators exactly as they would call the providers;
    // its scheduler collects every connection each SCHEDULE_WINDOW_MS (default 5 min) unless SCHEDULER_ENABLED=false.
    const { samsara, motive, geotab } = simulators.credentials;
    const scheduler = env.SCHEDULER_ENABLED !== 'false';
    started.push(await startSyncOrchestrator({ ...common, ...internal('sync-orchestrator'), env, collectors: true, scheduler, providerBaseUrls: { samsara: samsara?.baseUrl, motive: motive?.baseUrl, geotab: geotab?.baseUrl } }));
    // The ingest contexts read INGEST_ACK_WAIT_MS from `env`.
    for (const [service, start] of [['directory', startDirectory], ['telemetry-ingest', startTelemetryIngest], ['fault-feed', startFaultFeed]] as const) {
      started.push(await start({ ...common, ...internal(service), env }));
    }
    // The enrichment vendor: its simulator unless ENRICHMENT_VENDOR_BASE_URL names a real one (docs/enrichment.md).
    if (!env.ENRICHMENT_VENDOR_BASE_URL) {
      vendor = await startVendorSimulator({ apiKey: SANDBOX_VENDOR_KEY, port: Number(env.ENRICHMENT_SIM_PORT ?? 0), host: env.HOST ?? '127.0.0.1' });
      logger.info({ enrichmentVendor: vendor.url }, 'enrichment vendor simulator started');
    }
    started.push(await startEnrichment({ ...common, ...internal('enrichment'), env: vendor ? { ...env, ENRICHMENT_VENDOR_API_KEY: SANDBOX_VENDOR_KEY } : env, ...(vendor ? { vendorBaseUrl: vendor.url } : {}) }));
    const port = Number(env.PORT ?? 3000);
    const gateway = await startGateway({
      ...common,
      env,
      http: { port, host },
      metrics: metricsPort === 0 ? 'none' : { port: metricsPort, host },
      gatewaySettings: {
        masterKey: keys.masterKey,
        cursorSecret: keys.cursorSecret,
        // The connect page verifies credentials against the simulators and offers their OAuth (decision 0022).
        providerBaseUrls: { ...(samsara ? { samsara: samsara.baseUrl } : {}), ...(motive ? { motive: motive.baseUrl } : {}), ...(geotab ? { geotab: geotab.baseUrl } : {}) },
        oauth: {
          ...(samsara ? { samsara: { ...SANDBOX_OAUTH_CLIENT, authorizeUrl: `${samsara.baseUrl}/oauth2/authorize`, tokenUrl: `${samsara.baseUrl}/oauth2/token` } } : {}),
          ...(motive ? { motive: { ...SANDBOX_OAUTH_CLIENT, authorizeUrl: `${motive.baseUrl}/oauth/authorize`, tokenUrl: `${motive.baseUrl}/oauth/token` } } : {}),
        },
      },
    });
    started.push(gateway);
    // The webhook delivery role (decision 0042): its own process when deployed, here beside the gateway on its schema.
    started.push(await startWebhookDelivery({ ...common, env, gatewaySettings: { masterKey: keys.masterKey, cursorSecret: keys.cursorSecret } }));
    // The dead-letter role (decision 0046): the console's dead-letter page asks it; deployed, its own process and NATS user.
    started.push(await startDeadLetters(common));
    const baseUrl = gateway.url ?? `http://127.0.0.1:${port}`;
    const { credentials, created } = await ensureSandbox(gateway.runtime.orm, dataDir, baseUrl, keys.masterKey, simulators.credentials);
    logger.info({ credentialsFile: credentialsPath(dataDir), created }, created ? 'sandbox seeded' : 'sandbox credentials reused');
    await bindSandboxGeotab(gateway.runtime.orm, keys.masterKey, credentials);
    // Grant snapshots are idempotent (version-ordered): re-announcing them on every start heals a
    // data dir seeded before the orchestrator kept its grant projection, or before the projection
    // held the Connection-Tokens (decision 0008, "Grant recheck").
    if (!created) await new CredentialsAdmin(gateway.runtime.orm).republishApplicationSnapshots();
    await untilSyncApiAnswers(credentials, logger);
    if (print) {
      const [vehicle, extended] = [await exampleVehicleId(credentials).catch(() => undefined), await extendedTelemetryOn(gateway.runtime.orm, keys.masterKey, credentials)];
      // Every service's /metrics: the gateway's internal listener, then each context's (its only listener).
      const metricsUrls = started.flatMap((s) => (s === gateway ? (s.internalUrl ? [{ service: 'gateway', url: `${s.internalUrl}/metrics` }] : []) : s.url ? [{ service: s.runtime.service, url: `${s.url}/metrics` }] : []));
      const ordered = [...metricsUrls.filter((m) => m.service === 'gateway'), ...metricsUrls.filter((m) => m.service !== 'gateway')];
      process.stdout.write(`${tryItBlock(credentials, credentialsPath(dataDir), ordered, vehicle, extended)}\n`);
    }
    return { baseUrl, credentialsFile: credentialsPath(dataDir), stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/**
 * Grants reach the orchestrator through the gateway's outbox (~0.5 s); until they have, sync routes
 * answer 503. Wait (bounded) so every printed curl line works the moment it is shown.
 */
async function untilSyncApiAnswers(credentials: SandboxCredentials, logger: Logger): Promise<void> {
  const first = credentials.connections[0];
  if (!first) return;
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const res = await fetch(`${credentials.baseUrl}/v1/syncs`, {
      headers: { authorization: `Bearer ${credentials.applicationSecret}`, 'connection-token': first.connectionToken },
    }).catch(() => undefined);
    if (res && res.status !== 503) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  logger.warn('sync routes still answer 503 (grants not yet at the orchestrator); they will catch up');
}
