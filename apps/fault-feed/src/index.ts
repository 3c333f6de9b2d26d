/**
 * The fault-feed context. Fault occurrences and the durable transition feed: derives opened/cleared transitions and publishes them on fleet.faults.*.
 * Exports its service definition and start function for main.ts (one service per process) and the
 * sandbox launcher (every service in one process).
 */
import { startIngestContext, type IngestContextStartOptions, type RunningService, type ServiceDefinition } from '@switchyard/service-kit';
import { FaultFeedModule } from './app.module.js';
import { faultFeedEntities } from './db/entities/index.js';
import { faultFeedMigrations } from './db/migrations/index.js';

export const faultFeedService: ServiceDefinition = {
  service: 'fault-feed',
  entities: faultFeedEntities,
  migrations: faultFeedMigrations,
  module: FaultFeedModule,
};

/** Starts the context with INGEST_ACK_WAIT_MS read from `options.env` (default process.env). */
export function startFaultFeed(options: IngestContextStartOptions): Promise<RunningService> {
  return startIngestContext(faultFeedService, options);
}
