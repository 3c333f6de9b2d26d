/**
 * The service's PostgreSQL pool as gauges (in use, idle, waiting, size), read from node-postgres's
 * own counters at each scrape — no statement is sent, so a scrape never takes a connection. The
 * pool is the one MikroORM creates (createOrm's `onPool`, before its first connection).
 */
import type { GaugeSample, GaugeSource } from './service-metrics.js';

/** pg 8's Pool counters. */
interface PgPoolCounters {
  readonly totalCount?: number;
  readonly idleCount?: number;
  readonly waitingCount?: number;
  readonly options?: { readonly max?: number };
}

export function poolSource(pool: object): GaugeSource {
  const counters = pool as PgPoolCounters;
  return {
    name: 'db_pool',
    families: ['dbPoolConnections', 'dbPoolWaiting', 'dbPoolMax'],
    ttlMs: 0,
    read(): GaugeSample[] {
      const { totalCount, idleCount, waitingCount } = counters;
      // A driver without pg's counters has no figures: absent, not zero.
      if (typeof totalCount !== 'number' || typeof idleCount !== 'number' || typeof waitingCount !== 'number') return [];
      return [
        { family: 'dbPoolConnections', labels: { state: 'in_use' }, value: totalCount - idleCount },
        { family: 'dbPoolConnections', labels: { state: 'idle' }, value: idleCount },
        { family: 'dbPoolWaiting', value: waitingCount },
        ...(counters.options?.max !== undefined ? [{ family: 'dbPoolMax' as const, value: counters.options.max }] : []),
      ];
    },
  };
}
