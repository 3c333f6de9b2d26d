/** The fault-feed module graph: the shared context kit, the ingest consumer (the visibility projection is the kit's), the fault reads, the transition outbox relay and the feed's retention. */
import { Module } from '@nestjs/common';
import { ContextKitModule } from '@switchyard/service-kit';
import { FaultsReadHandler } from './handlers/faults-read.handler.js';
import { IngestFaultsHandler } from './handlers/ingest-faults.handler.js';
import { FaultOutboxRelay } from './services/fault-outbox-relay.service.js';
import { FaultRetention } from './services/fault-retention.service.js';

@Module({
  imports: [ContextKitModule.forContext({ connectionConfig: true, vehicleVisibility: true })],
  controllers: [IngestFaultsHandler, FaultsReadHandler],
  providers: [FaultOutboxRelay, FaultRetention],
})
export class FaultFeedModule {}
