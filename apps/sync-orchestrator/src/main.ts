/** Runs the sync-orchestrator context alone (as deployed): health on HEALTH_PORT (default 3101). */
import { runMain } from '@switchyard/service-kit';
import { syncOrchestratorService } from './index.js';

await runMain(syncOrchestratorService, { portVariable: 'HEALTH_PORT', defaultPort: 3101 });
