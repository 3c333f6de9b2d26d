/** Runs the directory context alone (as deployed): health on HEALTH_PORT (default 3102). */
import { runMain } from '@switchyard/service-kit';
import { directoryService } from './index.js';

await runMain(directoryService, { portVariable: 'HEALTH_PORT', defaultPort: 3102 });
