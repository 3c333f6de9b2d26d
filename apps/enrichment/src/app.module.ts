/** The enrichment module graph: the context kit with the vehicle-visibility projection, the VIN projection, the profile read, the background worker. */
import { Module } from '@nestjs/common';
import { ContextKitModule } from '@switchyard/service-kit';
import { ProfileReadHandler } from './handlers/profile-read.handler.js';
import { VehicleVinHandler } from './handlers/vehicle-vin.handler.js';
import { EnrichmentWorker } from './services/enrichment-worker.service.js';

@Module({
  imports: [ContextKitModule.forContext({ connectionConfig: false, vehicleVisibility: true })],
  controllers: [VehicleVinHandler, ProfileReadHandler],
  providers: [EnrichmentWorker],
})
export class EnrichmentModule {}
