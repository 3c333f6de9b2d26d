/** Runs the enrichment context alone (as deployed): health on HEALTH_PORT (default 3105); the vendor and dataset variables of config.ts. */
import { runMain } from '@switchyard/service-kit';
import { enrichmentEnvSchema, enrichmentService, startEnrichment } from './index.js';

await runMain(enrichmentService, { portVariable: 'HEALTH_PORT', defaultPort: 3105, start: startEnrichment, envSchema: enrichmentEnvSchema });
