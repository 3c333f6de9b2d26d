/** The directory module graph: imports only. */
import { Module } from '@nestjs/common';
import { RPCS } from '@switchyard/messaging';
import { ContextKitModule } from '@switchyard/service-kit';

@Module({
  imports: [ContextKitModule.forContext({ ping: RPCS.ping.directory, connectionConfig: true })],
})
export class DirectoryModule {}
