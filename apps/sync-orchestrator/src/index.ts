/**
 * The sync-orchestrator context. Sync lifecycle and scheduled collection: plans and leases units, fetches from providers, publishes normalized batches, counts receipts.
 * Exports its service definition and start function for main.ts (one service per process) and the
 * sandbox launcher (every service in one process).
 */
import type { Provider } from '@switchyard/domain';
import { CONSUMERS } from '@switchyard/messaging';
import { startService, type RunningService, type ServiceDefinition, type StartOptions } from '@switchyard/service-kit';
import { SyncOrchestratorModule } from './app.module.js';
import { loadSyncOrchestratorSettings, SYNC_ORCHESTRATOR_SETTINGS } from './config.js';
import { syncOrchestratorEntities } from './db/entities/index.js';
import { syncOrchestratorMigrations } from './db/migrations/index.js';

export const syncOrchestratorService: ServiceDefinition = {
  service: 'sync-orchestrator',
  entities: syncOrchestratorEntities,
  migrations: syncOrchestratorMigrations,
  module: SyncOrchestratorModule,
};

export interface StartSyncOrchestratorOptions extends StartOptions {
  /** Provider API base URLs (the launcher passes its simulators'); each wins over SAMSARA_/MOTIVE_/GEOTAB_BASE_URL. */
  providerBaseUrls?: Partial<Record<Provider, string>>;
  /** Environment to read the orchestrator's variables from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Run the collectors and the receipt consumer (wins over COLLECTOR_ENABLED; see config.ts). */
  collectors?: boolean;
  /** Run the collection scheduler (wins over SCHEDULER_ENABLED; see config.ts). */
  scheduler?: boolean;
}

export async function startSyncOrchestrator({ providerBaseUrls, env = process.env, collectors, scheduler, ...options }: StartSyncOrchestratorOptions): Promise<RunningService> {
  const settings = loadSyncOrchestratorSettings(env, { providerBaseUrls, collectors, scheduler });
  // Receipts are the collectors' feedback: an orchestrator without collectors leaves them to one that has.
  const transport = { ...options.transport, disabled: [...(options.transport?.disabled ?? []), ...(settings.collector.enabled ? [] : [CONSUMERS.receipts.durable])] };
  const running = await startService(syncOrchestratorService, { ...options, transport, providers: [...(options.providers ?? []), { provide: SYNC_ORCHESTRATOR_SETTINGS, useValue: settings }] });
  // What the orchestrator exports besides every service's families (metrics catalog, decision 0041).
  running.runtime.metrics.declare('providerRequests', 'providerRequestDuration', 'syncsFinished', 'rateLimited', 'syncs', 'syncUnits');
  return running;
}

export { SyncOrchestratorModule } from './app.module.js';
export { pruneSyncHistory, SyncRetention, SYNC_PRUNE_UNITS } from './services/sync-retention.service.js';
export { UnitReceiptService, DEFAULT_LEASE_MS, type ReceiptResult, type BatchReceiptResult, type BatchReceiptOutcome } from './services/unit-receipts.service.js';
export { SyncLifecycleService, type CreateInternalRunInput, type CreateInternalRunResult, type InternalRun } from './services/sync-lifecycle.service.js';
export { ProviderAdapterFactory, type ConnectionAdapter } from './providers/adapter-factory.js';
export { PgRequestBudget, type PgRequestBudgetOptions } from './providers/pg-request-budget.js';
export { budgetAccountKey, PROVIDER_RATES, type BudgetRate } from './providers/provider-rates.js';
export { loadSyncOrchestratorSettings, syncOrchestratorEnvSchema, SYNC_ORCHESTRATOR_SETTINGS, type CollectorSettings, type SchedulerSettings, type SyncOrchestratorSettings, type SyncRetentionSettings } from './config.js';
export type { LeasedUnit, ReceiptEvidence, ReceiptOutcome } from './db/repositories/unit-lease.repository.js';
export type { UnitBatch } from './db/repositories/unit-batch.repository.js';
export {
  ALL_SYNC_PURPOSES,
  INTERNAL_SYNC_PURPOSES,
  planSync,
  PURPOSE_REQUIREMENTS,
  SYNC_PURPOSES,
  TRIP_SLICE_MS,
  type InternalSyncPurpose,
  type PlannedUnit,
  type PublicSyncPurpose,
  type SyncPurpose,
} from './domain/sync-planner.js';
export { faultsSelected, internalPurposes, SCHEDULED_ORIGIN, telemetryMetricsFor, type CollectionConfig, type SignalSelection } from './domain/collection-scope.js';
export { CollectorService, publishIngestBatch } from './collectors/collector.service.js';
export { failureCode, RETRYABLE_CODES } from './collectors/failure-codes.js';
export { ConnectionHealthPublisher, type HealthObservation } from './collectors/connection-health.publisher.js';
export { ReceiptHandler, type ReceiptHandling } from './handlers/receipt.handler.js';
export { groupIntoJobs, pageBatches, sharedCursor, type CollectorJob } from './collectors/collector-jobs.js';
export { CANCELLED_FAILURE_REASON, nextStatus, progressOf, type SyncStatus } from './domain/sync-state.js';
export { CollectionScheduler, type TickReport } from './scheduler/collection-scheduler.service.js';
export { collectionStopReason, nextDueAt, runInterval, scheduleDecision, scheduledPurposes, type ScheduleDecision, type ScheduleSkipReason } from './scheduler/schedule-window.js';
export { SCHEDULED_RUN_CREATOR, type ScheduledRunCreator, type ScheduledRunRequest, type ScheduledRunResult } from './scheduler/scheduled-run.port.js';
