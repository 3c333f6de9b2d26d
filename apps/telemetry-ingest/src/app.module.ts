/** The telemetry-ingest module graph: the shared context kit and the ingest consumer. */
import { Module } from '@nestjs/common';
import { RPCS } from '@switchyard/messaging';
import { ContextKitModule } from '@switchyard/service-kit';
import { IngestTelemetryConsumer } from './handlers/ingest-telemetry.consumer.js';

@Module({
  imports: [ContextKitModule.forContext({ ping: RPCS.ping.telemetryIngest, connectionConfig: true })],
  providers: [IngestTelemetryConsumer],
})
export class TelemetryIngestModule {}
