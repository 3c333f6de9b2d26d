/**
 * The enrichment context on the real PostgreSQL and NATS (isolated schema and namespace): migrations
 * without drift, health over HTTP, ping over the bus, readiness and a draining close — the shared
 * context suite from @switchyard/testing, run against this app's own start function.
 */
import { RPCS } from '@switchyard/messaging';
import { runContextServiceSuite } from '@switchyard/testing/jest';
import { enrichmentService, startEnrichment } from '../src/index.js';

runContextServiceSuite({ definition: enrichmentService, start: startEnrichment, ping: RPCS.ping.enrichment, tables: ['enrichment_product', 'enrichment_vehicle', 'vehicle_visibility', 'vendor_budget', 'vendor_cache'] });
