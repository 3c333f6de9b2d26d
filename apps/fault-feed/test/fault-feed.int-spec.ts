/**
 * The fault-feed context on the real PostgreSQL and NATS (isolated schema and namespace): migrations
 * without drift, health over HTTP, ping over the bus, readiness and a draining close — the shared
 * context suite from @switchyard/testing, run against this app's own start function.
 */
import { RPCS } from '@switchyard/messaging';
import { runContextServiceSuite } from '@switchyard/testing/jest';
import { faultFeedService, startFaultFeed } from '../src/index.js';

runContextServiceSuite({ definition: faultFeedService, start: startFaultFeed, ping: RPCS.ping.faultFeed, tables: ['connection_config', 'connection_publication', 'fault_occurrence', 'fault_retention', 'fault_sequence', 'fault_transition', 'fault_watch', 'ingest_batch', 'provider_cursor', 'vehicle_visibility'] });
