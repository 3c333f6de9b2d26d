/** The telemetry-ingest module graph: the shared context kit, the ingest handler, the stored reads and the visibility projection. */
import { Module } from '@nestjs/common';
import { ContextKitModule } from '@switchyard/service-kit';
import { IngestTelemetryHandler } from './handlers/ingest-telemetry.handler.js';
import { TelemetryReadHandler } from './handlers/telemetry-read.handler.js';
import { VehicleVisibilityHandler } from './handlers/vehicle-visibility.handler.js';

@Module({
  imports: [ContextKitModule.forContext({ connectionConfig: true })],
  controllers: [IngestTelemetryHandler, TelemetryReadHandler, VehicleVisibilityHandler],
})
export class TelemetryIngestModule {}
