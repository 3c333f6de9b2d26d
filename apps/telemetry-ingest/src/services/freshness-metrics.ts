/**
 * Data freshness as metrics (issue 27 item 3; decision 0041), read when Prometheus scrapes — at
 * most once a minute (the source's ttl), nothing between scrapes:
 * - over every connection (one statement, data age only): `switchyard_freshness_signals_over_bound`
 *   by signal (connections whose data age p95 is over interval + 60 s: what the alert reads) and
 *   `switchyard_freshness_connections`;
 * - for the first FRESHNESS_METRICS_MAX_CONNECTIONS connections by id (default 50; one statement
 *   with the window figures), per connection and signal: data age p50/p95, provider and pipeline
 *   lag p95, the median sample interval, coverage — at most 50 × 10 signals × 6 = 3,000 series;
 * - at every commit of a telemetry batch, `switchyard_telemetry_provider_lag_seconds` by signal
 *   (fetchedAt − observedAt of each observation committed), fleet-wide.
 * Unknown figures have no series (never a zero). Unlike the read, the metrics count every approved
 * vehicle, hidden ones included: the operator's figures of what is collected, not an integrator's read.
 */
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { ObservationV1 } from '@switchyard/messaging';
import { ConnectionConfigStore, RUNTIME, type GaugeSample, type ServiceMetrics, type ServiceRuntime } from '@switchyard/service-kit';
import { dataAgeBoundMs, FRESHNESS_SETTINGS, type FreshnessSettings } from '../config.js';
import { FreshnessService, signalFreshness } from './freshness.service.js';

/** Records the provider lag of a committed batch's observations (one histogram observation each). */
export function recordProviderLag(metrics: ServiceMetrics, records: readonly ObservationV1[]): void {
  for (const o of records) {
    const lagMs = Date.parse(o.fetchedAt) - Date.parse(o.observedAt);
    if (Number.isFinite(lagMs)) metrics.child('telemetryProviderLag', o.metric).observe(Math.max(0, lagMs) / 1000);
  }
}

@Injectable()
export class FreshnessMetrics implements OnModuleInit {
  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(FRESHNESS_SETTINGS) private readonly settings: FreshnessSettings,
  ) {}

  onModuleInit(): void {
    const { metrics, orm } = this.runtime;
    metrics.declare('telemetryProviderLag');
    const service = new FreshnessService(orm, this.settings);
    const configs = new ConnectionConfigStore(orm);
    const bound = dataAgeBoundMs(this.settings) / 1000;
    metrics.addSource({
      name: 'freshness',
      families: ['freshnessOverBound', 'freshnessConnections', 'freshnessDataAge', 'freshnessProviderLag', 'freshnessPipelineLag', 'freshnessSampleInterval', 'freshnessCoverage'],
      ttlMs: 60_000,
      timeoutMs: 8_000,
      read: async (): Promise<GaugeSample[]> => {
        const all = await configs.all();
        const now = Date.now();
        const em = orm.em.fork();
        const exported = all.slice(0, this.settings.maxMetricConnections);
        const [everyone, detailed] = await Promise.all([service.figures(em, all, now, { window: false }), service.figures(orm.em.fork(), exported, now)]);
        const samples: GaugeSample[] = [];
        const over = new Map<string, number>();
        for (const row of everyone) {
          const figure = signalFreshness(row, bound);
          over.set(row.signal, (over.get(row.signal) ?? 0) + (figure.status === 'stale' ? 1 : 0));
        }
        for (const [signal, value] of over) samples.push({ family: 'freshnessOverBound', labels: { signal }, value });
        samples.push({ family: 'freshnessConnections', labels: { series: 'exported' }, value: exported.length }, { family: 'freshnessConnections', labels: { series: 'not_exported' }, value: all.length - exported.length });
        const providers = new Map(exported.map((c) => [c.connectionId, c.provider]));
        for (const row of detailed) {
          const f = signalFreshness(row, bound);
          const labels = { connection_id: row.connection_id, provider: providers.get(row.connection_id) ?? 'unknown', signal: row.signal };
          if (f.dataAge.status === 'available') samples.push({ family: 'freshnessDataAge', labels: { ...labels, quantile: '0.5' }, value: f.dataAge.p50Seconds }, { family: 'freshnessDataAge', labels: { ...labels, quantile: '0.95' }, value: f.dataAge.p95Seconds });
          if (f.providerLag.status === 'available') samples.push({ family: 'freshnessProviderLag', labels: { ...labels, quantile: '0.95' }, value: f.providerLag.p95Seconds });
          if (f.pipelineLag.status === 'available') samples.push({ family: 'freshnessPipelineLag', labels: { ...labels, quantile: '0.95' }, value: f.pipelineLag.p95Seconds });
          if (f.sampleInterval.status === 'available') samples.push({ family: 'freshnessSampleInterval', labels, value: f.sampleInterval.medianSeconds });
          if (f.coverage.status === 'available') samples.push({ family: 'freshnessCoverage', labels, value: f.coverage.ratio });
        }
        return samples;
      },
    });
  }
}
