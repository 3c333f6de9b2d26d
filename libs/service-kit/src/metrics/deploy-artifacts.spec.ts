/**
 * The operator's artifacts name only what the services export (issue 27 item 4, decision 0041):
 * every metric in deploy/prometheus/alerts.yml and deploy/grafana/switchyard.json is a family of the
 * catalog (histogram series by their _bucket/_sum/_count) or one of prom-client's default process
 * metrics every ServiceMetrics registers; the alerts the issue asks for exist (dead letters,
 * consumer lag, data age over its bound, provider 429 rate, sync failures); every alert has a
 * promtool unit test (alerts.test.yml) and a section of docs/operations.md its runbook_url points
 * to. `promtool check rules` / `promtool test rules` themselves run in deploy/check.sh.
 * Mutation tried: switchyard_dead_letters_total renamed in the catalog → both artifacts name an
 * unknown metric, fails.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { METRIC_FAMILIES } from './catalog.js';

const root = path.resolve(import.meta.dirname, '../../../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const alerts = read('deploy/prometheus/alerts.yml');
const alertTests = read('deploy/prometheus/alerts.test.yml');
const dashboard = JSON.parse(read('deploy/grafana/switchyard.json')) as { panels: { type: string; targets?: { expr: string }[] }[] };
const operations = read('docs/operations.md');

const catalogued = new Set(Object.values(METRIC_FAMILIES).map((f) => f.name));
const defaults = (() => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return new Set(registry.getMetricsAsArray().map((m) => m.name));
})();

/** The family a series name belongs to: histogram series by their base name. */
const familyOf = (series: string) => {
  const base = series.replace(/_(bucket|sum|count)$/, '');
  return catalogued.has(base) ? base : series;
};

/** Metric names in PromQL text: the identifiers left once selectors, ranges, grouping clauses and keywords are gone. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const keywords = /^(sum|max|min|avg|count|rate|increase|histogram_quantile|label_values|and|or|unless|bool)$/;
  return [...new Set([...bare.matchAll(/\b[a-zA-Z_][a-zA-Z0-9_]*\b/g)].map((m) => m[0]).filter((n) => !keywords.test(n)))];
}

const alertExprs = [...alerts.matchAll(/^\s+expr:\s*(.+)$/gm)].map((m) => m[1]!);
const alertNames = [...alerts.matchAll(/^\s+- alert:\s*(\w+)$/gm)].map((m) => m[1]!);
const dashboardExprs = dashboard.panels.flatMap((p) => p.targets ?? []).map((t) => t.expr);

describe('deploy/prometheus and deploy/grafana', () => {
  it.each([
    ['alerts.yml', alertExprs],
    ['switchyard.json', dashboardExprs],
  ])('%s names only exported metrics', (_file, exprs) => {
    expect(exprs.length).toBeGreaterThan(10);
    const unknown = exprs.flatMap(metricNames).filter((n) => n !== 'up' && !catalogued.has(familyOf(n)) && !defaults.has(n));
    expect([...new Set(unknown)]).toEqual([]);
  });

  it('alerts on what the issue names, each with a unit test and a runbook section', () => {
    for (const needed of ['SwitchyardDeadLetters', 'SwitchyardConsumerLag', 'SwitchyardDataAgeOverBound', 'SwitchyardProviderThrottled', 'SwitchyardSyncFailures']) expect(alertNames).toContain(needed);
    for (const name of alertNames) {
      expect(alertTests).toContain(`alertname: ${name}\n`);
      expect(alerts).toContain(`runbook_url: docs/operations.md#${name.toLowerCase()}`);
      expect(operations).toMatch(new RegExp(`^### ${name}$`, 'm'));
    }
  });

  it('the dashboard covers every family of the catalog but the per-connection count of series', () => {
    const used = new Set([...dashboardExprs.flatMap(metricNames)].map(familyOf));
    const missing = [...catalogued].filter((n) => !used.has(n) && n !== 'switchyard_freshness_connections');
    expect(missing).toEqual([]);
  });
});
