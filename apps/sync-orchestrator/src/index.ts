/**
 * The sync-orchestrator context. Sync lifecycle and scheduled collection: plans and leases units, fetches from providers, publishes normalized batches, counts receipts.
 * Exports its service definition and start function for main.ts (one service per process) and the
 * sandbox launcher (every service in one process).
 */
import { startService, type RunningService, type ServiceDefinition, type StartOptions } from '@switchyard/service-kit';
import { SyncOrchestratorModule } from './app.module.js';
import { syncOrchestratorEntities } from './db/entities/index.js';
import { syncOrchestratorMigrations } from './db/migrations/index.js';

export const syncOrchestratorService: ServiceDefinition = {
  service: 'sync-orchestrator',
  entities: syncOrchestratorEntities,
  migrations: syncOrchestratorMigrations,
  module: SyncOrchestratorModule,
};

export function startSyncOrchestrator(options: StartOptions): Promise<RunningService> {
  return startService(syncOrchestratorService, options);
}

export { SyncOrchestratorModule } from './app.module.js';
export { UnitReceiptService, DEFAULT_LEASE_MS, type ReceiptResult } from './services/unit-receipts.service.js';
export { SyncLifecycleService } from './services/sync-lifecycle.service.js';
export type { LeasedUnit, ReceiptEvidence, ReceiptOutcome } from './db/repositories/unit-lease.repository.js';
export { planSync, PURPOSE_REQUIREMENTS, SYNC_PURPOSES, TRIP_SLICE_MS, type PlannedUnit, type SyncPurpose } from './domain/sync-planner.js';
export { CANCELLED_FAILURE_REASON, nextStatus, progressOf, type SyncStatus } from './domain/sync-state.js';
