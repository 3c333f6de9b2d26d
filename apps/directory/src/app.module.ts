/** The directory module graph: the shared context kit, the ingest and health consumers, and the read handlers. */
import { Module } from '@nestjs/common';
import { RPCS } from '@switchyard/messaging';
import { ContextKitModule } from '@switchyard/service-kit';
import { ConnectionHealthConsumer } from './handlers/connection-health.consumer.js';
import { DriversReadHandler } from './handlers/drivers-read.handler.js';
import { GroupsReadHandler } from './handlers/groups-read.handler.js';
import { IngestDirectoryConsumer } from './handlers/ingest-directory.consumer.js';
import { TripsReadHandler } from './handlers/trips-read.handler.js';
import { VehicleVisibilityConsumer } from './handlers/vehicle-visibility.consumer.js';
import { VehiclesReadHandler } from './handlers/vehicles-read.handler.js';
import { VehicleVisibilityRelay } from './services/vehicle-visibility-relay.service.js';

@Module({
  imports: [ContextKitModule.forContext({ ping: RPCS.ping.directory, connectionConfig: true })],
  providers: [IngestDirectoryConsumer, ConnectionHealthConsumer, TripsReadHandler, DriversReadHandler, GroupsReadHandler, VehiclesReadHandler, VehicleVisibilityRelay, VehicleVisibilityConsumer],
})
export class DirectoryModule {}
