/**
 * docs/configuration.md against the env schemas the apps really parse: every variable a main.ts
 * validates (runMain's mainEnvSchema: the shared ones, the app's own schema, its ports and HOST)
 * has a row in the Variables table naming that app (or "all apps" / "contexts"), and the row shows
 * the variable's default and, for a bounded number, its range as `(min to max)`. Here because the
 * launcher is the one project that may import every app.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { enrichmentEnvSchema } from '@switchyard/enrichment';
import { DEAD_LETTERS_MAIN_ENV, GATEWAY_MAIN_ENV, WEBHOOK_DELIVERY_MAIN_ENV } from '@switchyard/gateway';
import { ingestEnvSchema, mainEnvSchema } from '@switchyard/service-kit';
import { syncOrchestratorEnvSchema } from '@switchyard/sync-orchestrator';
import { telemetryIngestEnvSchema } from '@switchyard/telemetry-ingest';
import { z } from 'zod';

/** Each app's runMain environment options (its main.ts; the contexts' HEALTH_PORT defaults). */
const APPS: Record<string, Parameters<typeof mainEnvSchema>[0]> = {
  gateway: GATEWAY_MAIN_ENV,
  // The gateway's delivery role (decision 0042): the gateway's variables, HEALTH_PORT for its one port.
  'webhook-delivery': WEBHOOK_DELIVERY_MAIN_ENV,
  // The gateway's dead-letter role (decision 0046): the shared variables and its HEALTH_PORT only.
  'dead-letters': DEAD_LETTERS_MAIN_ENV,
  'sync-orchestrator': { portVariable: 'HEALTH_PORT', defaultPort: 3101, envSchema: syncOrchestratorEnvSchema },
  directory: { portVariable: 'HEALTH_PORT', defaultPort: 3102, envSchema: ingestEnvSchema },
  'telemetry-ingest': { portVariable: 'HEALTH_PORT', defaultPort: 3103, envSchema: telemetryIngestEnvSchema },
  'fault-feed': { portVariable: 'HEALTH_PORT', defaultPort: 3104, envSchema: ingestEnvSchema },
  enrichment: { portVariable: 'HEALTH_PORT', defaultPort: 3105, envSchema: enrichmentEnvSchema },
};

interface Row {
  names: string[];
  defaults: string;
  readBy: string;
}

function documentedRows(): Row[] {
  const text = readFileSync(fileURLToPath(new URL('../../docs/configuration.md', import.meta.url)), 'utf8');
  const table = text.slice(text.indexOf('## Variables'), text.indexOf('\n## ', text.indexOf('## Variables') + 1));
  return table
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [name = '', defaults = '', readBy = ''] = line.slice(1, -1).split(' | ');
      return { names: [...name.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1] ?? ''), defaults, readBy };
    });
}

function readsIt(row: Row, app: string): boolean {
  // The webhook delivery role is the gateway's: a gateway row is its row too (HEALTH_PORT, its own port, names it).
  if (app === 'webhook-delivery' && readsIt(row, 'gateway')) return true;
  return row.readBy.includes('all apps') || row.readBy.split(/[,;]\s*/).some((who) => who.trim() === app || who.startsWith(`${app} `) || (app !== 'gateway' && app !== 'webhook-delivery' && who.trim() === 'contexts'));
}

/** The default a variable parses to when unset (transformed, e.g. `true`), undefined when it has none. */
function defaultOf(schema: z.ZodType): string | undefined {
  const parsed = schema.safeParse(undefined);
  return parsed.success && parsed.data !== undefined && parsed.data !== '' ? String(parsed.data) : undefined;
}

/** The bounds of a number variable, looking through defaults, optionals and pipes. */
function boundsOf(schema: z.ZodType): { min: number; max: number } | undefined {
  if (schema instanceof z.ZodNumber) return schema.minValue !== null && schema.maxValue !== null ? { min: schema.minValue, max: schema.maxValue } : undefined;
  if (schema instanceof z.ZodDefault || schema instanceof z.ZodOptional) return boundsOf(schema.unwrap() as z.ZodType);
  if (schema instanceof z.ZodPipe) return boundsOf(schema.in as z.ZodType);
  return undefined;
}

/** What the table lacks for the variables `options` makes a main.ts parse, as one line each. */
function problemsOf(app: string, options: Parameters<typeof mainEnvSchema>[0], rows: readonly Row[]): string[] {
  const problems: string[] = [];
  for (const [name, field] of Object.entries(mainEnvSchema(options).shape)) {
    const row = rows.find((r) => r.names.includes(name) && readsIt(r, app));
    if (!row) {
      problems.push(`${name}: no row read by ${app}`);
      continue;
    }
    const fallback = defaultOf(field as z.ZodType);
    if (fallback !== undefined && !row.defaults.includes(`\`${fallback}\``)) problems.push(`${name}: default \`${fallback}\` not shown`);
    const bounds = boundsOf(field as z.ZodType);
    if (bounds && !row.defaults.includes(`(${bounds.min} to ${bounds.max})`)) problems.push(`${name}: range (${bounds.min} to ${bounds.max}) not shown`);
  }
  return problems;
}

describe('docs/configuration.md', () => {
  const rows = documentedRows();

  for (const [app, options] of Object.entries(APPS)) {
    it(`documents every variable ${app} parses, with its default and range`, () => {
      expect(problemsOf(app, options, rows)).toEqual([]);
    });
  }

  it('names a variable without a row, a default or a range the table does not show', () => {
    const envSchema = z.object({
      NOT_DOCUMENTED_MS: z.coerce.number().int().min(1).max(2).default(1),
      LEASE_MS: z.coerce.number().int().min(1).max(7).default(3),
    });
    expect(problemsOf('sync-orchestrator', { portVariable: 'HEALTH_PORT', defaultPort: 3101, envSchema }, rows)).toEqual([
      'NOT_DOCUMENTED_MS: no row read by sync-orchestrator',
      'LEASE_MS: default `3` not shown',
      'LEASE_MS: range (1 to 7) not shown',
    ]);
    // A row read by other apps only does not count.
    expect(problemsOf('directory', { portVariable: 'HEALTH_PORT', defaultPort: 3102, envSchema: z.object({ LEASE_MS: z.string().optional() }) }, rows)).toEqual(['LEASE_MS: no row read by directory']);
  });
});
