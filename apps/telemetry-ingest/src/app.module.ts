/** The telemetry-ingest module graph: the shared context kit and the ingest handler. */
import { Module } from '@nestjs/common';
import { ContextKitModule } from '@switchyard/service-kit';
import { IngestTelemetryHandler } from './handlers/ingest-telemetry.handler.js';

@Module({
  imports: [ContextKitModule.forContext({ connectionConfig: true })],
  controllers: [IngestTelemetryHandler],
})
export class TelemetryIngestModule {}
