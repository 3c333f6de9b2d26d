/** The enrichment module graph: imports only. */
import { Module } from '@nestjs/common';
import { ContextKitModule } from '@switchyard/service-kit';

@Module({
  imports: [ContextKitModule.forContext({ connectionConfig: false })],
})
export class EnrichmentModule {}
