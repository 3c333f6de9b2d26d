/** The directory module graph: the shared context kit and the ingest consumer. */
import { Module } from '@nestjs/common';
import { RPCS } from '@switchyard/messaging';
import { ContextKitModule } from '@switchyard/service-kit';
import { IngestDirectoryConsumer } from './handlers/ingest-directory.consumer.js';

@Module({
  imports: [ContextKitModule.forContext({ ping: RPCS.ping.directory, connectionConfig: true })],
  providers: [IngestDirectoryConsumer],
})
export class DirectoryModule {}
