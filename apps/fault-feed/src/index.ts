/**
 * The fault-feed context. Fault occurrences and the durable transition feed: derives opened/cleared transitions and publishes them on fleet.faults.*.
 * Exports its service definition and start function for main.ts (one service per process) and the
 * sandbox launcher (every service in one process).
 */
import { startService, type RunningService, type ServiceDefinition, type StartOptions } from '@switchyard/service-kit';
import { FaultFeedModule } from './app.module.js';
import { faultFeedEntities } from './db/entities/index.js';
import { faultFeedMigrations } from './db/migrations/index.js';

export const faultFeedService: ServiceDefinition = {
  service: 'fault-feed',
  entities: faultFeedEntities,
  migrations: faultFeedMigrations,
  module: FaultFeedModule,
};

export function startFaultFeed(options: StartOptions): Promise<RunningService> {
  return startService(faultFeedService, options);
}
