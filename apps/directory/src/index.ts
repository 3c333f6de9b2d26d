/**
 * The directory context. Vehicles, vehicle profiles and metadata, drivers, groups and trips: consumes directory batches and serves the stored reads.
 * Exports its service definition and start function for main.ts (one service per process) and the
 * sandbox launcher (every service in one process).
 */
import { startIngestContext, type IngestContextStartOptions, type RunningService, type ServiceDefinition } from '@switchyard/service-kit';
import { DirectoryModule } from './app.module.js';
import { directoryEntities } from './db/entities/index.js';
import { directoryMigrations } from './db/migrations/index.js';

export const directoryService: ServiceDefinition = {
  service: 'directory',
  entities: directoryEntities,
  migrations: directoryMigrations,
  module: DirectoryModule,
};

/** Starts the context with INGEST_ACK_WAIT_MS read from `options.env` (default process.env). */
export function startDirectory(options: IngestContextStartOptions): Promise<RunningService> {
  return startIngestContext(directoryService, options);
}

// For bench/ (stored-read baselines run the directory's own statements — the trip page and the
// vehicle rendered by PostgreSQL — so a benchmark compares transport and framework cost, not two
// renderings of a trip or vehicle).
export { TripsReadRepository } from './db/repositories/trips-read.repository.js';
export { VehiclesReadRepository } from './db/repositories/vehicles-read.repository.js';
export { deriveDatasetStatus } from './services/dataset-status.service.js';
