/** Runs the fault-feed context alone (as deployed): health on HEALTH_PORT (default 3104); INGEST_ACK_WAIT_MS (service-kit ingest-settings.ts). */
import { ingestEnvSchema, runMain } from '@switchyard/service-kit';
import { faultFeedService, startFaultFeed } from './index.js';

await runMain(faultFeedService, { portVariable: 'HEALTH_PORT', defaultPort: 3104, start: startFaultFeed, envSchema: ingestEnvSchema });
