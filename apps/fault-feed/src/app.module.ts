/** The fault-feed module graph: the shared context kit, the ingest handler and the transition outbox relay. */
import { Module } from '@nestjs/common';
import { ContextKitModule } from '@switchyard/service-kit';
import { IngestFaultsHandler } from './handlers/ingest-faults.handler.js';
import { FaultOutboxRelay } from './services/fault-outbox-relay.service.js';

@Module({
  imports: [ContextKitModule.forContext({ connectionConfig: true })],
  controllers: [IngestFaultsHandler],
  providers: [FaultOutboxRelay],
})
export class FaultFeedModule {}
