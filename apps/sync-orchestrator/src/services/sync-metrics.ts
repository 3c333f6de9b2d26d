/**
 * The orchestrator's sync figures for /metrics (decision 0041): `switchyard_syncs` by origin and
 * status and `switchyard_sync_units` of open syncs by state, read from its schema when Prometheus
 * scrapes (every replica reports the same figures: dashboards take max()), and
 * `switchyard_syncs_finished_total`, counted by the process whose transaction completed or failed
 * the sync, after the commit (sum() over replicas).
 */
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { RUNTIME, type GaugeSample, type ServiceRuntime } from '@switchyard/service-kit';
import { SyncMetricsRepository } from '../db/repositories/sync-metrics.repository.js';

@Injectable()
export class SyncMetrics implements OnModuleInit {
  private readonly repository = new SyncMetricsRepository();

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  onModuleInit(): void {
    this.runtime.metrics.addSource({
      name: 'sync_state',
      families: ['syncs', 'syncUnits'],
      ttlMs: 5_000,
      read: async (): Promise<GaugeSample[]> => {
        const em = this.runtime.orm.em.fork();
        const [syncs, units] = await Promise.all([this.repository.syncCounts(em), this.repository.openUnitCounts(em)]);
        return [
          ...syncs.map((r) => ({ family: 'syncs' as const, labels: { origin: r.origin, status: r.status }, value: r.count })),
          ...units.map((r) => ({ family: 'syncUnits' as const, labels: { state: r.state }, value: r.count })),
        ];
      },
    });
  }

  /** A sync reached `completed` or `failed` (its transaction committed); `reason` is the failure reason. */
  finished(origin: string | undefined, status: 'completed' | 'failed', reason?: string): void {
    this.runtime.metrics.child('syncsFinished', origin ?? 'unknown', status, reason ?? 'none').inc();
  }
}
