/**
 * Runs the sync-orchestrator context alone (as deployed): health on HEALTH_PORT (default 3101);
 * provider base URLs from SAMSARA_BASE_URL, MOTIVE_BASE_URL, GEOTAB_BASE_URL; collectors on unless
 * COLLECTOR_ENABLED=false, the collection scheduler on unless SCHEDULER_ENABLED=false (config.ts).
 */
import { runMain } from '@switchyard/service-kit';
import { startSyncOrchestrator, syncOrchestratorEnvSchema, syncOrchestratorService } from './index.js';

// Deployed alone, the orchestrator collects and schedules unless COLLECTOR_ENABLED / SCHEDULER_ENABLED=false say otherwise.
const collectors = process.env.COLLECTOR_ENABLED !== 'false';
const scheduler = process.env.SCHEDULER_ENABLED !== 'false';
await runMain(syncOrchestratorService, { portVariable: 'HEALTH_PORT', defaultPort: 3101, start: (options) => startSyncOrchestrator({ ...options, collectors, scheduler }), envSchema: syncOrchestratorEnvSchema });
