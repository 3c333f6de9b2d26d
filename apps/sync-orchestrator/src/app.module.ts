/** The sync-orchestrator module graph: imports and wiring only. */
import { Module } from '@nestjs/common';
import { ContextKitModule } from '@switchyard/service-kit';
import { CollectorService } from './collectors/collector.service.js';
import { ConnectionHealthPublisher } from './collectors/connection-health.publisher.js';
import { ReceiptHandler } from './handlers/receipt.handler.js';
import { SyncApiHandler } from './handlers/sync-api.handler.js';
import { OperatorRunsHandler } from './handlers/operator-runs.handler.js';
import { ApplicationGrantHandler } from './projections/application-grant.handler.js';
import { CollectionScheduler } from './scheduler/collection-scheduler.service.js';
import { SCHEDULED_RUN_CREATOR } from './scheduler/scheduled-run.port.js';
import { ProviderAdapterFactory } from './providers/adapter-factory.js';
import { SyncLifecycleService } from './services/sync-lifecycle.service.js';
import { SyncOutboxRelay } from './services/sync-outcomes.js';
import { SyncMetrics } from './services/sync-metrics.js';
import { SyncRetention } from './services/sync-retention.service.js';
import { UnitReceiptService } from './services/unit-receipts.service.js';
import { VehicleRefreshService } from './services/vehicle-refresh.service.js';

@Module({
  imports: [ContextKitModule.forContext({ connectionConfig: true })],
  controllers: [SyncApiHandler, OperatorRunsHandler, ApplicationGrantHandler, ReceiptHandler, VehicleRefreshService],
  providers: [
    SyncMetrics, SyncLifecycleService, UnitReceiptService, ProviderAdapterFactory, ConnectionHealthPublisher, CollectorService,
    // The scheduler creates its runs through a port; the lifecycle service implements it today.
    { provide: SCHEDULED_RUN_CREATOR, useExisting: SyncLifecycleService },
    CollectionScheduler,
    SyncRetention,
    SyncOutboxRelay,
  ],
  exports: [SyncRetention, SyncLifecycleService, UnitReceiptService, ProviderAdapterFactory, CollectorService, CollectionScheduler],
})
export class SyncOrchestratorModule {}
