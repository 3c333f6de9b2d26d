import { describe, expect, it } from '@jest/globals';
import { METRIC_FAMILIES } from './catalog.js';
import { ServiceMetrics } from './service-metrics.js';

/** Samples of `name`, labels sorted (prom-client orders the default label differently per type). */
const sample = (text: string, name: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith(name))
    .map((line) => {
      const match = /^([^{ ]+)\{(.*)\} (.*)$/.exec(line);
      return match ? `${match[1]}{${(match[2] ?? '').split(',').sort().join(',')}} ${match[3]}` : line;
    });

describe('ServiceMetrics', () => {
  it('names every family by the Prometheus conventions: snake_case, a unit or _total suffix, the switchyard_ prefix but for the two HTTP families', () => {
    for (const [key, spec] of Object.entries(METRIC_FAMILIES)) {
      expect({ key, ok: /^[a-z][a-z0-9_]*$/.test(spec.name) }).toEqual({ key, ok: true });
      if (spec.type === 'counter') expect(spec.name).toMatch(/_total$/);
      else expect(spec.name).not.toMatch(/_total$/);
      if (!spec.name.startsWith('http_')) expect(spec.name).toMatch(/^switchyard_/);
      for (const label of spec.labelNames) expect(label).toMatch(/^[a-z][a-z_]*$/);
      // No id-like label but the freshness gauges' connection_id (bounded, see catalog.ts).
      for (const label of spec.labelNames.filter((l) => l.endsWith('_id'))) expect({ key, label }).toEqual({ key, label: key.startsWith('freshness') ? 'connection_id' : '(none)' });
    }
    const names = Object.values(METRIC_FAMILIES).map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('labels every series with the service and keeps one child per label set', async () => {
    const metrics = new ServiceMetrics('directory', { defaultMetrics: false });
    expect(metrics.child('ingestRecords', 'trips')).toBe(metrics.child('ingestRecords', 'trips'));
    metrics.child('ingestRecords', 'trips').inc(3);
    metrics.child('ingestRecords', 'trips').inc(2);
    expect(sample(await metrics.text(), 'switchyard_ingest_records_total')).toEqual(['switchyard_ingest_records_total{kind="trips",service="directory"} 5']);
  });

  it('reads a source once per scrape for all its families, again after its ttl', async () => {
    const metrics = new ServiceMetrics('gateway', { defaultMetrics: false });
    let reads = 0;
    metrics.addSource({
      name: 'pool',
      families: ['dbPoolWaiting', 'dbPoolMax'],
      ttlMs: 0,
      read: () => {
        reads++;
        return [
          { family: 'dbPoolWaiting', value: reads },
          { family: 'dbPoolMax', value: 10 },
        ];
      },
    });
    const first = await metrics.text();
    expect(reads).toBe(1);
    expect(sample(first, 'switchyard_db_pool_waiting_requests')).toEqual(['switchyard_db_pool_waiting_requests{service="gateway"} 1']);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(sample(await metrics.text(), 'switchyard_db_pool_waiting_requests')).toEqual(['switchyard_db_pool_waiting_requests{service="gateway"} 2']);
  });

  it('leaves a failed or slow source\'s families empty — absent, never zero — drops the label sets of the last read, and counts the failure', async () => {
    const metrics = new ServiceMetrics('sync-orchestrator', { defaultMetrics: false });
    let mode: 'ok' | 'fail' | 'hang' = 'ok';
    metrics.addSource({
      name: 'sync_state',
      families: ['syncs'],
      ttlMs: 0,
      timeoutMs: 50,
      read: () => {
        if (mode === 'fail') throw new Error('database down');
        if (mode === 'hang') return new Promise(() => undefined);
        return [{ family: 'syncs', labels: { origin: 'api', status: 'failed' }, value: 2 }];
      },
    });
    expect(sample(await metrics.text(), 'switchyard_syncs{')).toEqual(['switchyard_syncs{origin="api",service="sync-orchestrator",status="failed"} 2']);
    mode = 'fail';
    const failed = await metrics.text();
    expect(sample(failed, 'switchyard_syncs{')).toEqual([]);
    expect(sample(failed, 'switchyard_metrics_collect_failures_total')).toEqual(['switchyard_metrics_collect_failures_total{collector="sync_state",service="sync-orchestrator"} 1']);
    mode = 'hang';
    const slow = await metrics.text();
    expect(sample(slow, 'switchyard_syncs{')).toEqual([]);
    expect(sample(slow, 'switchyard_metrics_collect_failures_total')).toEqual(['switchyard_metrics_collect_failures_total{collector="sync_state",service="sync-orchestrator"} 2']);
  });
});
