/**
 * sync-orchestrator environment, parsed once at start (libs/service-kit loadConfig): a bad value
 * stops the process with one message naming every bad variable. The provider base URLs default to
 * the real providers (shared/providers/*.md); the sandbox launcher and the tests point them at the
 * simulators through `StartSyncOrchestratorOptions.providerBaseUrls`, which wins over the
 * environment.
 */
import { SYNC_PLAN } from '@switchyard/contracts';
import type { Provider } from '@switchyard/domain';
import { baseEnvSchema, loadConfig } from '@switchyard/service-kit';
import { z } from 'zod';

const httpUrl = z
  .string()
  .refine((value) => URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol), 'an http(s) URL')
  .transform((value) => value.replace(/\/+$/, ''));

/** `true` / `false`, anything else a startup error; off unless set. */
const switchOff = () =>
  z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true');

export const syncOrchestratorEnvSchema = baseEnvSchema.extend({
  /** US region; EU customers use https://api.eu.samsara.com. */
  SAMSARA_BASE_URL: httpUrl.default('https://api.samsara.com'),
  /** Current host; the legacy https://api.keeptruckin.com may still serve (motive.md, unconfirmed). */
  MOTIVE_BASE_URL: httpUrl.default('https://api.gomotive.com'),
  /** Federation entry point; Authenticate's `path` redirects each database to its own server. */
  GEOTAB_BASE_URL: httpUrl.default('https://my.geotab.com'),
  /** Per provider request, including the body (retries each get their own). */
  PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(300_000).default(30_000),
  /** Deadline of `gateway.connection.provider-access`; above the gateway's 10 s OAuth token call (its reply may wait for a grant refresh, decision 0027). */
  PROVIDER_ACCESS_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000),
  /** Longest an adapter (and the credentials in it) is reused without asking the gateway again. */
  ADAPTER_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  /**
   * Run the collectors (lease units, fetch, publish) in this process. Off by default for an
   * orchestrator started from code (tests of the sync API drive units by hand); main.ts turns it
   * on unless COLLECTOR_ENABLED=false, and `StartSyncOrchestratorOptions.collectors` wins over both.
   */
  COLLECTOR_ENABLED: switchOff(),
  /** Collector jobs (a unit, or the snapshot units of one sync and purpose) worked at once per process. */
  COLLECTOR_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(4),
  /** Units taken per lease call (the grouping works inside one call). */
  COLLECTOR_LEASE_BATCH: z.coerce.number().int().min(1).max(1_000).default(100),
  /** Unit lease length; heartbeats renew it every third of it while the unit is held. */
  LEASE_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(60_000),
  /** Pause between lease attempts when nothing was leasable. */
  POLL_MS: z.coerce.number().int().min(10).max(600_000).default(1_000),
  /** Leases of one unit that may end in provider_unavailable (or a collector error) before its sync fails with that code. */
  COLLECTOR_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(5),
  /**
   * Times one unit (per attempt) may be put back after provider_throttled (leasable again after the
   * provider's Retry-After, no error attempt counted) before throttling counts as an error attempt.
   */
  COLLECTOR_MAX_THROTTLE_REQUEUES: z.coerce.number().int().min(0).max(100_000).default(200),
  /**
   * How long a unit whose final batch is published is kept from being leased again while its
   * receipts can still come (a context slower than LEASE_MS); after it the unit is collected again.
   */
  RECEIPT_WAIT_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(900_000),
  /**
   * Run the collection scheduler (scheduler/collection-scheduler.service.ts) in this process. Like
   * COLLECTOR_ENABLED: off for an orchestrator started from code, on in main.ts unless
   * SCHEDULER_ENABLED=false, and `StartSyncOrchestratorOptions.scheduler` wins over both. Every
   * process may run it: each window's run is created by exactly one of them.
   */
  SCHEDULER_ENABLED: switchOff(),
  /** Scheduler window per connection (spec 8: five-minute default, no exact freshness promise). */
  SCHEDULE_WINDOW_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(300_000),
  /** How often a scheduler looks for due schedules and for scheduled runs of paused connections. */
  SCHEDULER_TICK_MS: z.coerce.number().int().min(50).max(600_000).default(5_000),
  /** How far a connection's first scheduled run reaches back (default: one window; never 0, which would plan an empty interval for trips alone forever). */
  SCHEDULE_FIRST_LOOKBACK_MS: z.coerce.number().int().min(1_000).max(2_592_000_000).optional(),
  /** No scheduled run starts earlier than this before now (catching up after a pause or failures). */
  SCHEDULE_MAX_CATCH_UP_MS: z.coerce.number().int().min(1_000).max(2_592_000_000).default(86_400_000),
  /**
   * Most units of one scheduled run: a window whose plan is larger is split into several runs
   * (decision 0009). At most the plan limit of spec 4.1 rule 8 (10,000), which is the default.
   */
  SCHEDULE_RUN_MAX_UNITS: z.coerce.number().int().min(1).max(SYNC_PLAN.maxUnits).default(SYNC_PLAN.maxUnits),
  /** Most serialized plan bytes of one scheduled run, like SCHEDULE_RUN_MAX_UNITS; at most and by default 4 MiB. */
  SCHEDULE_RUN_MAX_BYTES: z.coerce.number().int().min(1_024).max(SYNC_PLAN.maxBytes).default(SYNC_PLAN.maxBytes),
  /** Days a completed or failed public sync is kept after its last change (decision 0030); then GET answers 404. */
  SYNC_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(30),
  /** Hours a completed or failed internal run (scheduled collection, never visible through /v1/syncs) is kept (decision 0030). */
  INTERNAL_RUN_RETENTION_HOURS: z.coerce.number().int().min(1).max(8_760).default(24),
});

export type SyncOrchestratorEnv = z.output<typeof syncOrchestratorEnvSchema>;

/** What the orchestrator's module needs beyond the shared runtime. */
export interface SyncOrchestratorSettings {
  providerBaseUrls: Readonly<Record<Provider, string>>;
  providerTimeoutMs: number;
  providerAccessTimeoutMs: number;
  adapterCacheTtlMs: number;
  collector: CollectorSettings;
  scheduler: SchedulerSettings;
  retention: SyncRetentionSettings;
}

/** How long terminal syncs are kept (decision 0030). */
export interface SyncRetentionSettings {
  publicMs: number;
  internalMs: number;
}

export interface SchedulerSettings {
  enabled: boolean;
  windowMs: number;
  tickMs: number;
  firstLookbackMs: number;
  maxCatchUpMs: number;
  /** Limits of one scheduled run; a window over them is split into several runs. */
  runLimits: { maxUnits: number; maxBytes: number };
}

export interface CollectorSettings {
  enabled: boolean;
  concurrency: number;
  leaseBatch: number;
  leaseMs: number;
  pollMs: number;
  maxAttempts: number;
  maxThrottleRequeues: number;
  receiptWaitMs: number;
}

export const SYNC_ORCHESTRATOR_SETTINGS = Symbol('sync-orchestrator.settings');

export function loadSyncOrchestratorSettings(env: NodeJS.ProcessEnv, overrides: { providerBaseUrls?: Partial<Record<Provider, string>>; collectors?: boolean; scheduler?: boolean } = {}): SyncOrchestratorSettings {
  const parsed = loadConfig(syncOrchestratorEnvSchema, {
    ...env,
    ...(overrides.providerBaseUrls?.samsara ? { SAMSARA_BASE_URL: overrides.providerBaseUrls.samsara } : {}),
    ...(overrides.providerBaseUrls?.motive ? { MOTIVE_BASE_URL: overrides.providerBaseUrls.motive } : {}),
    ...(overrides.providerBaseUrls?.geotab ? { GEOTAB_BASE_URL: overrides.providerBaseUrls.geotab } : {}),
  });
  return {
    providerBaseUrls: { samsara: parsed.SAMSARA_BASE_URL, motive: parsed.MOTIVE_BASE_URL, geotab: parsed.GEOTAB_BASE_URL },
    providerTimeoutMs: parsed.PROVIDER_TIMEOUT_MS,
    providerAccessTimeoutMs: parsed.PROVIDER_ACCESS_TIMEOUT_MS,
    adapterCacheTtlMs: parsed.ADAPTER_CACHE_TTL_MS,
    collector: {
      enabled: overrides.collectors ?? parsed.COLLECTOR_ENABLED,
      concurrency: parsed.COLLECTOR_CONCURRENCY,
      leaseBatch: parsed.COLLECTOR_LEASE_BATCH,
      leaseMs: parsed.LEASE_MS,
      pollMs: parsed.POLL_MS,
      maxAttempts: parsed.COLLECTOR_MAX_ATTEMPTS,
      maxThrottleRequeues: parsed.COLLECTOR_MAX_THROTTLE_REQUEUES,
      receiptWaitMs: parsed.RECEIPT_WAIT_MS,
    },
    scheduler: {
      enabled: overrides.scheduler ?? parsed.SCHEDULER_ENABLED,
      windowMs: parsed.SCHEDULE_WINDOW_MS,
      tickMs: parsed.SCHEDULER_TICK_MS,
      firstLookbackMs: parsed.SCHEDULE_FIRST_LOOKBACK_MS ?? parsed.SCHEDULE_WINDOW_MS,
      maxCatchUpMs: parsed.SCHEDULE_MAX_CATCH_UP_MS,
      runLimits: { maxUnits: parsed.SCHEDULE_RUN_MAX_UNITS, maxBytes: parsed.SCHEDULE_RUN_MAX_BYTES },
    },
    retention: { publicMs: parsed.SYNC_RETENTION_DAYS * 86_400_000, internalMs: parsed.INTERNAL_RUN_RETENTION_HOURS * 3_600_000 },
  };
}
