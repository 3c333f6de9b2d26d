/**
 * Runs the sync-orchestrator context alone (as deployed): health on HEALTH_PORT (default 3101);
 * provider base URLs from SAMSARA_BASE_URL, MOTIVE_BASE_URL, GEOTAB_BASE_URL (config.ts).
 */
import { runMain } from '@switchyard/service-kit';
import { startSyncOrchestrator, syncOrchestratorService } from './index.js';

await runMain(syncOrchestratorService, { portVariable: 'HEALTH_PORT', defaultPort: 3101, start: startSyncOrchestrator });
