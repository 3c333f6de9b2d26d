/**
 * The sync-orchestrator context on the real PostgreSQL and NATS (isolated schema and namespace): migrations
 * without drift, health over HTTP, ping over the bus, readiness and a draining close — the shared
 * context suite from @switchyard/testing, run against this app's own start function.
 */
import { RPCS } from '@switchyard/messaging';
import { runContextServiceSuite } from '@switchyard/testing/jest';
import { syncOrchestratorService, startSyncOrchestrator } from '../src/index.js';

runContextServiceSuite({ definition: syncOrchestratorService, start: startSyncOrchestrator, ping: RPCS.ping.syncOrchestrator, tables: ['application_credential', 'connection_config', 'provider_budget', 'refresh_slot', 'sync', 'sync_receipt', 'sync_schedule', 'sync_unit', 'sync_unit_batch', 'outbox'] });
