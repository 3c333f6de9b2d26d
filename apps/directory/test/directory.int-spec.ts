/**
 * The directory context on the real PostgreSQL and NATS (isolated schema and namespace): migrations
 * without drift, health over HTTP, ping over the bus, readiness and a draining close — the shared
 * context suite from @switchyard/testing, run against this app's own start function.
 */
import { RPCS } from '@switchyard/messaging';
import { runContextServiceSuite } from '@switchyard/testing/jest';
import { directoryService, startDirectory } from '../src/index.js';

runContextServiceSuite({ definition: directoryService, start: startDirectory, ping: RPCS.ping.directory, tables: ['connection_config', 'connection_publication', 'dataset_health', 'driver', 'driver_pass', 'driver_pass_unit', 'driver_roster', 'driver_sighting', 'group', 'ingest_batch', 'provider_cursor', 'trip', 'vehicle', 'vehicle_pass', 'vehicle_pass_unit', 'vehicle_roster', 'vehicle_sighting', 'vehicle_vin', 'vehicle_visibility'] });
