/**
 * The telemetry-ingest context. Observations, latest readings and reports: consumes telemetry batches and serves telemetry, locations, history and counters.
 * Exports its service definition and start function for main.ts (one service per process) and the
 * sandbox launcher (every service in one process).
 */
import { startIngestContext, type IngestContextStartOptions, type RunningService, type ServiceDefinition } from '@switchyard/service-kit';
import { TelemetryIngestModule } from './app.module.js';
import { telemetryIngestEntities } from './db/entities/index.js';
import { telemetryIngestMigrations } from './db/migrations/index.js';
import { FRESHNESS_SETTINGS, loadFreshnessSettings } from './config.js';
import { pruneObservations } from './services/observation-retention.js';

export const telemetryIngestService: ServiceDefinition = {
  service: 'telemetry-ingest',
  entities: telemetryIngestEntities,
  migrations: telemetryIngestMigrations,
  module: TelemetryIngestModule,
};

/**
 * Starts the context with INGEST_ACK_WAIT_MS and the freshness settings (config.ts) read from
 * `options.env` (default process.env), and the observation retention passes (decision 0025) beside
 * the ledger's (startIngestContext).
 */
export function startTelemetryIngest(options: IngestContextStartOptions): Promise<RunningService> {
  const freshness = loadFreshnessSettings(options.env ?? process.env);
  return startIngestContext(telemetryIngestService, { ...options, providers: [...(options.providers ?? []), { provide: FRESHNESS_SETTINGS, useValue: freshness }] }, [
    {
      what: 'observation history',
      pass: async (orm) => {
        const pruned = await pruneObservations(orm);
        return pruned.months.length + pruned.slots + pruned.excludedIntervals;
      },
    },
  ]);
}

/** The history row mapping and COPY text encoding (the ingest benchmark COPYs the very rows the consumer writes). */
export { numericValue } from './services/telemetry-ingest.service.js';
export { copyLine } from './db/repositories/observation.repository.js';
/** The usage rollups' rebuild (the usage benchmarks build the rollups of the observations they seed with it). */
export { UsageRollupRepository } from './db/repositories/usage-rollup.repository.js';
export { telemetryIngestEnvSchema, loadFreshnessSettings, type FreshnessSettings } from './config.js';
