/** Runs the enrichment context alone (as deployed): health on HEALTH_PORT (default 3105). */
import { runMain } from '@switchyard/service-kit';
import { enrichmentService } from './index.js';

await runMain(enrichmentService, { portVariable: 'HEALTH_PORT', defaultPort: 3105 });
