/**
 * `npm start`: the whole system in one process with sandbox data — the six services sharing one
 * bus (NATS JetStream when there is one, else the in-process bus), each with its own ORM and
 * schema, the gateway listening on PORT. First start seeds the sandbox and writes the credentials
 * file; every start prints the "try it" block. SIGINT/SIGTERM stop everything in reverse order.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { startDirectory } from '@switchyard/directory';
import { startEnrichment } from '@switchyard/enrichment';
import { startFaultFeed } from '@switchyard/fault-feed';
import { loadKeyMaterial, startGateway } from '@switchyard/gateway';
import { createLogger, type RunningService } from '@switchyard/service-kit';
import { startSyncOrchestrator } from '@switchyard/sync-orchestrator';
import { startTelemetryIngest } from '@switchyard/telemetry-ingest';
import { chooseBus, chooseDatabase } from './infrastructure.js';
import { credentialsPath, ensureSandbox, tryItBlock } from './sandbox-seed.js';

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

export async function launch({ env = process.env, print = true }: LaunchOptions = {}): Promise<Launched> {
  const logger = createLogger({ service: 'launcher', level: env.LOG_LEVEL ?? 'info' });
  const dataDir = path.resolve(env.SWITCHYARD_DATA_DIR ?? '.switchyard');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const keys = loadKeyMaterial({ ...env, SWITCHYARD_DATA_DIR: dataDir }, { createIfMissing: true });
  const database = await chooseDatabase(env, dataDir, logger);
  const bus = await chooseBus(env, logger);
  const common = { databaseUrl: database.url, bus, environment: 'sandbox' as const, migrateOnStart: true, logLevel: env.LOG_LEVEL ?? 'info' };

  const contexts: RunningService[] = [];
  const started: RunningService[] = [];
  const stopAll = async () => {
    for (const service of started.reverse()) await service.close().catch((error: unknown) => logger.error({ err: error }, 'stop failed'));
    await bus.close();
    await database.stop();
  };
  try {
    for (const start of [startSyncOrchestrator, startDirectory, startTelemetryIngest, startFaultFeed, startEnrichment]) {
      const service = await start(common);
      contexts.push(service);
      started.push(service);
    }
    const port = Number(env.PORT ?? 3000);
    const gateway = await startGateway({ ...common, http: { port, host: env.HOST ?? '127.0.0.1' }, gatewaySettings: { masterKey: keys.masterKey, cursorSecret: keys.cursorSecret } });
    started.push(gateway);
    const baseUrl = gateway.url ?? `http://127.0.0.1:${port}`;
    const { credentials, created } = await ensureSandbox(gateway.runtime.orm, dataDir, baseUrl, keys.masterKey);
    logger.info({ credentialsFile: credentialsPath(dataDir), created }, created ? 'sandbox seeded' : 'sandbox credentials reused');
    if (print) process.stdout.write(`${tryItBlock(credentials, credentialsPath(dataDir))}\n`);
    return { baseUrl, credentialsFile: credentialsPath(dataDir), stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const launched = await launch().catch((error: unknown) => {
    console.error('npm start failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  });
  let stopping = false;
  const stop = () => {
    if (stopping) process.exit(1);
    stopping = true;
    void launched.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
