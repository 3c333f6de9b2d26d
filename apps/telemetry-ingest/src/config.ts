/**
 * telemetry-ingest environment beyond the ingest contexts' shared INGEST_ACK_WAIT_MS (service-kit
 * ingest-settings.ts), parsed once at start (a bad value stops the process naming it):
 * - SCHEDULE_WINDOW_MS: the scheduled collection interval — the sync-orchestrator's own variable,
 *   read here too (set both from one place: the deployment's shared configuration) — which the
 *   freshness figures judge by: coverage looks one interval back, a signal is `available` while its
 *   data age p95 is within interval + 60 s;
 * - FRESHNESS_WINDOW_MS: how far back the lags and the sample interval look (default 1 hour);
 * - FRESHNESS_METRICS_MAX_CONNECTIONS: how many connections get per-connection freshness series on
 *   /metrics (default 50; 0: none), the bound of their cardinality (decision 0041).
 */
import { ingestEnvSchema, loadConfig } from '@switchyard/service-kit';
import { z } from 'zod';

export const telemetryIngestEnvSchema = ingestEnvSchema.extend({
  SCHEDULE_WINDOW_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(300_000),
  FRESHNESS_WINDOW_MS: z.coerce.number().int().min(60_000).max(7 * 86_400_000).default(3_600_000),
  FRESHNESS_METRICS_MAX_CONNECTIONS: z.coerce.number().int().min(0).max(10_000).default(50),
});

export interface FreshnessSettings {
  /** The scheduled collection interval (SCHEDULE_WINDOW_MS). */
  intervalMs: number;
  /** The observation window of the lags and the sample interval. */
  windowMs: number;
  /** Connections with per-connection freshness series. */
  maxMetricConnections: number;
}

export const FRESHNESS_SETTINGS = Symbol('switchyard.telemetry.freshness-settings');

/** What a signal's data age p95 may reach and stay `available`: one collection interval plus 60 s (the providers' minute cadence). */
export const dataAgeBoundMs = (settings: FreshnessSettings): number => settings.intervalMs + 60_000;

export function loadFreshnessSettings(env: NodeJS.ProcessEnv): FreshnessSettings {
  const parsed = loadConfig(telemetryIngestEnvSchema, env);
  return { intervalMs: parsed.SCHEDULE_WINDOW_MS, windowMs: parsed.FRESHNESS_WINDOW_MS, maxMetricConnections: parsed.FRESHNESS_METRICS_MAX_CONNECTIONS };
}
