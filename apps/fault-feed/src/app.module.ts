/** The fault-feed module graph: the shared context kit, the ingest consumer and the transition outbox relay. */
import { Module } from '@nestjs/common';
import { RPCS } from '@switchyard/messaging';
import { ContextKitModule } from '@switchyard/service-kit';
import { IngestFaultsConsumer } from './handlers/ingest-faults.consumer.js';
import { FaultOutboxRelay } from './services/fault-outbox-relay.service.js';

@Module({
  imports: [ContextKitModule.forContext({ ping: RPCS.ping.faultFeed, connectionConfig: true })],
  providers: [FaultOutboxRelay, IngestFaultsConsumer],
})
export class FaultFeedModule {}
