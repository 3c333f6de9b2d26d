/** The sync-orchestrator module graph: imports and wiring only. */
import { Module } from '@nestjs/common';
import { RPCS } from '@switchyard/messaging';
import { ContextKitModule } from '@switchyard/service-kit';
import { CollectorService } from './collectors/collector.service.js';
import { ConnectionHealthPublisher } from './collectors/connection-health.publisher.js';
import { ReceiptConsumer } from './collectors/receipt.consumer.js';
import { SyncApiHandler } from './handlers/sync-api.handler.js';
import { ApplicationGrantConsumer } from './projections/application-grant.consumer.js';
import { CollectionScheduler } from './scheduler/collection-scheduler.service.js';
import { SCHEDULED_RUN_CREATOR } from './scheduler/scheduled-run.port.js';
import { ProviderAdapterFactory } from './providers/adapter-factory.js';
import { SyncLifecycleService } from './services/sync-lifecycle.service.js';
import { UnitReceiptService } from './services/unit-receipts.service.js';

@Module({
  imports: [ContextKitModule.forContext({ ping: RPCS.ping.syncOrchestrator, connectionConfig: true })],
  providers: [
    SyncLifecycleService, UnitReceiptService, SyncApiHandler, ApplicationGrantConsumer, ProviderAdapterFactory, ConnectionHealthPublisher, CollectorService, ReceiptConsumer,
    // The scheduler creates its runs through a port; the lifecycle service implements it today.
    { provide: SCHEDULED_RUN_CREATOR, useExisting: SyncLifecycleService },
    CollectionScheduler,
  ],
  exports: [SyncLifecycleService, UnitReceiptService, ProviderAdapterFactory, CollectorService, ReceiptConsumer, CollectionScheduler],
})
export class SyncOrchestratorModule {}
