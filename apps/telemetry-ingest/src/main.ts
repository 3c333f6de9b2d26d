/** Runs the telemetry-ingest context alone (as deployed): health and /metrics on HEALTH_PORT (default 3103); INGEST_ACK_WAIT_MS and the freshness settings (config.ts). */
import { runMain } from '@switchyard/service-kit';
import { telemetryIngestEnvSchema, telemetryIngestService, startTelemetryIngest } from './index.js';

await runMain(telemetryIngestService, { portVariable: 'HEALTH_PORT', defaultPort: 3103, start: startTelemetryIngest, envSchema: telemetryIngestEnvSchema });
