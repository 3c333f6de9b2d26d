/**
 * The enrichment context. Vehicle enrichment products (identity, images, specifications, build) from VIN events.
 * Exports its service definition and start function for main.ts (one service per process) and the
 * sandbox launcher (every service in one process).
 */
import { startService, type RunningService, type ServiceDefinition, type StartOptions } from '@switchyard/service-kit';
import { EnrichmentModule } from './app.module.js';
import { enrichmentEntities } from './db/entities/index.js';
import { enrichmentMigrations } from './db/migrations/index.js';

export const enrichmentService: ServiceDefinition = {
  service: 'enrichment',
  entities: enrichmentEntities,
  migrations: enrichmentMigrations,
  module: EnrichmentModule,
};

export function startEnrichment(options: StartOptions): Promise<RunningService> {
  return startService(enrichmentService, options);
}
