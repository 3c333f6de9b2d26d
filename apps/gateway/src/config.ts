/**
 * Gateway environment, parsed once at boot (libs/service-kit loadConfig): a bad value stops the
 * process with one message naming every bad variable. Secrets have no default outside the sandbox.
 */
import { CURSOR_SECRET_MIN_BYTES } from '@switchyard/contracts';
import { baseEnvSchema, type MainOptions } from '@switchyard/service-kit';
import { z } from 'zod';
import type { EgressNetwork } from '@switchyard/providers';
import { RESPONSE_VALIDATION_MODES, type ResponseValidation } from './http/json-body.js';

/** The gateway binds loopback unless HOST says otherwise, so a laptop run is not exposed (images set 0.0.0.0). */
export const GATEWAY_HOST = '127.0.0.1';

/**
 * Default of METRICS_PORT, the gateway's internal port for /metrics (and /healthz, /readyz): the
 * OpenTelemetry Prometheus exporter's conventional port, clear of PORT 3000, the contexts'
 * 3101-3105, the simulators' 4101-4103 and the embedded PostgreSQL's 54329.
 */
export const GATEWAY_METRICS_PORT = 9464;

/**
 * Webhook delivery (decision 0042): the retry schedule after a failed attempt (Svix's: 5 s, 5 min,
 * 30 min, 2 h, 5 h, 10 h, 10 h — eight attempts over about 28 hours), how long an endpoint may fail
 * before it is disabled (5 days), an attempt's deadline (a 2xx within 15 s counts), how long a
 * rotated-out secret keeps signing (24 h), how many attempts one delivery process runs at once.
 */
export const WEBHOOK_DEFAULTS = {
  retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
  disableAfterMs: 5 * 86_400_000,
  attemptTimeoutMs: 15_000,
  secretOverlapMs: 86_400_000,
  concurrency: 16,
  pollMs: 1_000,
} as const;

/** `5000,300000,…`: one to twenty positive delays in ms, each at most a day (tests compress them). */
const retrySchedule = z
  .string()
  .regex(/^\d{1,8}(,\d{1,8}){0,19}$/, 'comma-separated delays in ms, e.g. 5000,300000,1800000')
  .transform((text) => text.split(',').map(Number))
  .refine((delays) => delays.every((d) => d > 0 && d <= 86_400_000), 'each delay between 1 ms and 1 day');

export const gatewayEnvSchema = baseEnvSchema
  .extend({
    WEBHOOK_RETRY_SCHEDULE_MS: retrySchedule.optional(),
    WEBHOOK_DISABLE_AFTER_MS: z.coerce.number().int().min(1_000).max(90 * 86_400_000).default(WEBHOOK_DEFAULTS.disableAfterMs),
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(WEBHOOK_DEFAULTS.attemptTimeoutMs),
    WEBHOOK_SECRET_OVERLAP_MS: z.coerce.number().int().min(0).max(30 * 86_400_000).default(WEBHOOK_DEFAULTS.secretOverlapMs),
    WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(WEBHOOK_DEFAULTS.concurrency),
    WEBHOOK_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(WEBHOOK_DEFAULTS.pollMs),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().default(GATEWAY_HOST),
    RPC_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(5000),
    BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(16_777_216).default(1_048_576),
    // Days a connect session is kept after its link expired (decision 0030); then GET of it is 404.
    CONNECT_SESSION_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(30),
    // How many read bodies forwarded as bytes are checked against their schema (http/json-body.ts).
    RESPONSE_VALIDATION: z.enum(RESPONSE_VALIDATION_MODES).default('sample'),
    REQUEST_RATE_SYNC_MS: z.coerce.number().int().min(10).max(10_000).default(100),
    PRINCIPAL_CACHE_TTL_MS: z.coerce.number().int().min(0).max(1000).default(1000),
    SWITCHYARD_MASTER_KEY: z.string().min(1).optional(),
    // Counted in UTF-8 bytes, as the cursor codec uses the text (not a decoded form) as its HMAC key:
    // `openssl rand -base64 32` (44 characters) and the sandbox's generated 43 both pass.
    CURSOR_SECRET: z
      .string()
      .refine((s) => Buffer.byteLength(s, 'utf8') >= CURSOR_SECRET_MIN_BYTES, `at least ${CURSOR_SECRET_MIN_BYTES} bytes (e.g. openssl rand -base64 32)`)
      .optional(),
  })
  .superRefine(
    (env, ctx) => {
      if (env.SWITCHYARD_ENV === 'production') {
        for (const name of ['SWITCHYARD_MASTER_KEY', 'CURSOR_SECRET'] as const) {
          if (!env[name]) ctx.addIssue({ code: 'custom', path: [name], message: 'required in production' });
        }
      }
    },
    // Run even when another variable is bad, so the one message names the missing secrets too.
    { when: () => true },
  );

/**
 * The environment part of main.ts's runMain options: the public PORT, METRICS_PORT, loopback HOST
 * and this schema, all parsed at once before anything connects (one message for every bad variable).
 */
export const GATEWAY_MAIN_ENV = {
  portVariable: 'PORT',
  defaultPort: 3000,
  defaultHost: GATEWAY_HOST,
  metricsPort: { variable: 'METRICS_PORT', defaultPort: GATEWAY_METRICS_PORT },
  envSchema: gatewayEnvSchema,
} as const satisfies Omit<MainOptions, 'start'>;

/**
 * The webhook delivery role's main (webhook-delivery.ts): the gateway's variables, no public port —
 * its one port, HEALTH_PORT (3106: after the contexts' 3101-3105), is internal and serves /metrics.
 */
export const WEBHOOK_DELIVERY_MAIN_ENV = {
  portVariable: 'HEALTH_PORT',
  defaultPort: 3106,
  envSchema: gatewayEnvSchema,
} as const satisfies Omit<MainOptions, 'start'>;

/**
 * The dead-letter role's main (dead-letters.ts, decision 0046): the shared variables only — it
 * needs none of the gateway's secrets — and one internal port, HEALTH_PORT (3107: after the
 * webhook delivery role's 3106), for /healthz, /readyz and /metrics.
 */
export const DEAD_LETTERS_MAIN_ENV = {
  portVariable: 'HEALTH_PORT',
  defaultPort: 3107,
} as const satisfies Omit<MainOptions, 'start'>;

export type GatewayEnv = z.output<typeof gatewayEnvSchema>;

/** What the gateway module needs beyond the shared runtime. */
export interface GatewaySettings {
  rpcTimeoutMs: number;
  /** RESPONSE_VALIDATION: which read bodies forwarded as bytes are checked against their schema. */
  responseValidation: ResponseValidation;
  masterKey: string;
  cursorSecret: string;
  /** Byte limit of trip, vehicle-profile and group-directory responses: spec 8's 4,194,304; tests lower it to split pages. */
  responseByteLimit: number;
  /** Group directory rows / references / projected bytes (spec 8's 50,000 / 100,000 / 67,108,864); tests lower them to hit each limit with a few rows. */
  groupDirectoryLimits: { maxRows: number; maxReferences: number; projectedByteLimit: number };
  /**
   * Provider API base URLs the connect page verifies credentials against (the only hosts it calls;
   * the sandbox passes its simulators'). Unset: SAMSARA_/MOTIVE_/GEOTAB_BASE_URL, else the real APIs.
   */
  providerBaseUrls?: Partial<Record<'samsara' | 'motive' | 'geotab', string>>;
  /** How long a connect session is kept after its link expired (CONNECT_SESSION_RETENTION_DAYS; decision 0030). */
  connectSessionRetentionMs?: number;
  /** Origin of the connect-session links (`PUBLIC_URL`); unset: the origin the API request came to. */
  publicUrl?: string;
  /**
   * Registered OAuth applications (spec 4.3 rule 4: provider-hosted OAuth needs one); a provider
   * without one offers no OAuth on the connect page. From SAMSARA_/MOTIVE_OAUTH_CLIENT_ID and
   * _CLIENT_SECRET, with _AUTHORIZE_URL / _TOKEN_URL defaulting to the providers' documented hosts.
   */
  oauth?: Partial<Record<'samsara' | 'motive', OAuthClient>>;
  /** Request rate buckets per consumer key and per application; default REQUEST_RATE (the catalog's `limits.requestRate`). Tests lower them. */
  requestRate?: { perConsumerKey: RateBucket; perApplication: RateBucket };
  /** How often the in-memory rate buckets are reconciled across gateway processes (REQUEST_RATE_SYNC_MS, default 100; decision 0032). */
  requestRateSyncMs?: number;
  /** How long a verified credential's rows are held in memory (PRINCIPAL_CACHE_TTL_MS, default and at most 1000; 0 = no cache; decision 0031). Tests raise it to prove the push invalidation alone. */
  principalCacheTtlMs?: number;
  /** Webhook endpoints and their delivery (decision 0042). */
  webhooks: WebhookSettings;
}

/** Webhook settings (WEBHOOK_* variables; tests compress the schedule and inject the network). */
export interface WebhookSettings {
  retryScheduleMs: readonly number[];
  disableAfterMs: number;
  attemptTimeoutMs: number;
  secretOverlapMs: number;
  concurrency: number;
  pollMs: number;
  /** Tests only: where an attempt resolves and connects (libs/providers EgressNetwork), so nothing leaves loopback. */
  network?: EgressNetwork;
}

export interface RateBucket {
  ratePerSecond: number;
  burst: number;
}

export interface OAuthClient {
  clientId: string;
  clientSecret: string;
  authorizeUrl: string;
  tokenUrl: string;
}
export const GATEWAY_SETTINGS = Symbol('gateway.settings');
