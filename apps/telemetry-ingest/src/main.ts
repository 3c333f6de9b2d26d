/** Runs the telemetry-ingest context alone (as deployed): health on HEALTH_PORT (default 3103); INGEST_ACK_WAIT_MS (service-kit ingest-settings.ts). */
import { ingestEnvSchema, runMain } from '@switchyard/service-kit';
import { telemetryIngestService, startTelemetryIngest } from './index.js';

await runMain(telemetryIngestService, { portVariable: 'HEALTH_PORT', defaultPort: 3103, start: startTelemetryIngest, envSchema: ingestEnvSchema });
