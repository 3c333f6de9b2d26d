/**
 * The telemetry-ingest context on the real PostgreSQL and NATS (isolated schema and namespace): migrations
 * without drift, health over HTTP, ping over the bus, readiness and a draining close — the shared
 * context suite from @switchyard/testing, run against this app's own start function.
 */
import { RPCS } from '@switchyard/messaging';
import { runContextServiceSuite } from '@switchyard/testing/jest';
import { telemetryIngestService, startTelemetryIngest } from '../src/index.js';

runContextServiceSuite({ definition: telemetryIngestService, start: startTelemetryIngest, ping: RPCS.ping.telemetryIngest, tables: ['connection_config', 'connection_publication', 'ingest_batch', 'latest_readings', 'observations', 'provider_cursor', 'usage_excluded_interval', 'usage_rollup_epoch', 'usage_slot', 'vehicle_fault_observation', 'vehicle_visibility'] });
