/** The directory module graph: the shared context kit, the ingest, health and visibility handlers, and the read handlers. */
import { Module } from '@nestjs/common';
import { ContextKitModule } from '@switchyard/service-kit';
import { ConnectionHealthHandler } from './handlers/connection-health.handler.js';
import { DriversReadHandler } from './handlers/drivers-read.handler.js';
import { GroupsReadHandler } from './handlers/groups-read.handler.js';
import { IngestDirectoryHandler } from './handlers/ingest-directory.handler.js';
import { TripsReadHandler } from './handlers/trips-read.handler.js';
import { VehicleVisibilityHandler } from './handlers/vehicle-visibility.handler.js';
import { VehiclesReadHandler } from './handlers/vehicles-read.handler.js';
import { TripRetention } from './services/trip-retention.service.js';
import { VehicleVinRelay } from './services/vehicle-vin-relay.service.js';
import { VehicleVisibilityRelay } from './services/vehicle-visibility-relay.service.js';

@Module({
  imports: [ContextKitModule.forContext({ connectionConfig: true })],
  controllers: [IngestDirectoryHandler, ConnectionHealthHandler, VehicleVisibilityHandler, TripsReadHandler, DriversReadHandler, GroupsReadHandler, VehiclesReadHandler],
  providers: [VehicleVisibilityRelay, VehicleVinRelay, TripRetention],
})
export class DirectoryModule {}
