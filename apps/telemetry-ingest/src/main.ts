/** Runs the telemetry-ingest context alone (as deployed): health on HEALTH_PORT (default 3103). */
import { runMain } from '@switchyard/service-kit';
import { telemetryIngestService } from './index.js';

await runMain(telemetryIngestService, { portVariable: 'HEALTH_PORT', defaultPort: 3103 });
