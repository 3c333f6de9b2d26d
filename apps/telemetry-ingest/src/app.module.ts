/** The telemetry-ingest module graph: the shared context kit, the ingest handler, the stored reads, the usage reports, data freshness (read and metrics) and the visibility and fault-observation projections. */
import { Module } from '@nestjs/common';
import { ContextKitModule } from '@switchyard/service-kit';
import { FaultsObservedHandler } from './handlers/faults-observed.handler.js';
import { FreshnessReadHandler } from './handlers/freshness-read.handler.js';
import { IngestTelemetryHandler } from './handlers/ingest-telemetry.handler.js';
import { TelemetryReadHandler } from './handlers/telemetry-read.handler.js';
import { UsageReportsHandler } from './handlers/usage-reports.handler.js';
import { FreshnessMetrics } from './services/freshness-metrics.js';

@Module({
  imports: [ContextKitModule.forContext({ connectionConfig: true, vehicleVisibility: true })],
  controllers: [IngestTelemetryHandler, TelemetryReadHandler, UsageReportsHandler, FaultsObservedHandler, FreshnessReadHandler],
  providers: [FreshnessMetrics],
})
export class TelemetryIngestModule {}
