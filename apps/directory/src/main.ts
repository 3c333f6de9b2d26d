/** Runs the directory context alone (as deployed): health on HEALTH_PORT (default 3102); INGEST_ACK_WAIT_MS (service-kit ingest-settings.ts). */
import { ingestEnvSchema, runMain } from '@switchyard/service-kit';
import { directoryService, startDirectory } from './index.js';

await runMain(directoryService, { portVariable: 'HEALTH_PORT', defaultPort: 3102, start: startDirectory, envSchema: ingestEnvSchema });
