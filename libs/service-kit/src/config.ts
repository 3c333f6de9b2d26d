/**
 * Environment configuration, parsed once at boot against one zod schema per app.
 * Invariant: a bad environment stops the process with ONE error that lists every bad variable,
 * and secret values never appear in that message (only their names).
 */
import { accessSync, constants } from 'node:fs';
import { STREAMS, withStreamLimits, type JetStreamBusConfig, type StreamDefinition, type StreamName } from '@switchyard/messaging';
import { DEFAULT_DATABASE_TIMEOUTS } from '@switchyard/persistence';
import { z } from 'zod';
import { tracingEnvFields } from './tracing/tracing-config.js';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** A path the process can read now, so a wrong mount fails at start with the variable named. */
const readableFile = z
  .string()
  .min(1)
  .refine((file) => {
    try {
      accessSync(file, constants.R_OK);
      return true;
    } catch {
      return false;
    }
  }, 'no readable file at that path')
  .optional();

/**
 * How the JetStream connection authenticates (beside any `user:password@` / `token@` in NATS_URL,
 * which these override): at most one of a credentials file, user and password, or a token; TLS
 * files; the reply inbox prefix. Secrets have no default and never appear in a message.
 */
export const natsEnvFields = {
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  NATS_CREDS_FILE: readableFile,
  NATS_USER: z.string().min(1).optional(),
  NATS_PASSWORD: z.string().min(1).optional(),
  NATS_TOKEN: z.string().min(1).optional(),
  NATS_TLS_CA_FILE: readableFile,
  NATS_TLS_CERT_FILE: readableFile,
  NATS_TLS_KEY_FILE: readableFile,
  NATS_INBOX_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'subject tokens of letters, digits, _ and -, separated by dots (no wildcards)')
    .optional(),
};

/** The rules between NATS_* variables; a superRefine of every schema that holds them (run with `when: () => true`). */
export function checkNatsEnv(env: Partial<Record<keyof NatsEnv, unknown>>, ctx: z.RefinementCtx): void {
  const problem = (path: keyof NatsEnv, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (env.NATS_USER && !env.NATS_PASSWORD) problem('NATS_PASSWORD', 'required with NATS_USER');
  if (env.NATS_PASSWORD && !env.NATS_USER) problem('NATS_USER', 'required with NATS_PASSWORD');
  const methods = (['NATS_CREDS_FILE', 'NATS_USER', 'NATS_TOKEN'] as const).filter((name) => env[name]);
  if (methods.length > 1) problem(methods[1] as keyof NatsEnv, `set one of NATS_CREDS_FILE, NATS_USER with NATS_PASSWORD, or NATS_TOKEN (also set: ${methods[0]})`);
  if (env.NATS_TLS_CERT_FILE && !env.NATS_TLS_KEY_FILE) problem('NATS_TLS_KEY_FILE', 'required with NATS_TLS_CERT_FILE');
  if (env.NATS_TLS_KEY_FILE && !env.NATS_TLS_CERT_FILE) problem('NATS_TLS_CERT_FILE', 'required with NATS_TLS_KEY_FILE');
}

/** NATS_* alone, for the launcher (it reads no other shared variable through a schema). */
export const natsEnvSchema = z.object(natsEnvFields).superRefine(checkNatsEnv, { when: () => true });

type NatsEnv = z.output<typeof natsEnvSchema>;

/** The bus's `auth` option from parsed NATS_* variables. */
export function natsAuth(env: NatsEnv): NonNullable<JetStreamBusConfig['auth']> {
  return {
    credsFile: env.NATS_CREDS_FILE,
    user: env.NATS_USER,
    password: env.NATS_PASSWORD,
    token: env.NATS_TOKEN,
    tls: { caFile: env.NATS_TLS_CA_FILE, certFile: env.NATS_TLS_CERT_FILE, keyFile: env.NATS_TLS_KEY_FILE },
    inboxPrefix: env.NATS_INBOX_PREFIX,
  };
}

/**
 * At least 1 MiB: a stream must hold its largest message (an ingest batch is capped under 1 MiB);
 * at most 1 TiB: past that a value is more likely a typo (a unit slip) than a sized store.
 */
const streamMaxBytes = z.coerce.number().int().min(1_048_576).max(1_099_511_627_776).optional();

/**
 * NATS_STREAM_MAX_BYTES_<STREAM>: a deployment's byte limit of each stream (decision 0026; the
 * defaults are STREAMS in libs/messaging). The provisioning step applies them (decision 0033);
 * every process verifies at start that no stream's limit is smaller than its value, so the step
 * and the processes of a deployment share the values.
 */
const streamLimitFields = Object.fromEntries((Object.keys(STREAMS) as StreamName[]).map((name) => [`NATS_STREAM_MAX_BYTES_${name}`, streamMaxBytes])) as Record<
  `NATS_STREAM_MAX_BYTES_${StreamName}`,
  typeof streamMaxBytes
>;

/** Copies of a stream on a JetStream cluster: 1 (one server) to 5 (JetStream's most). */
const streamReplicas = z.coerce.number().int().min(1).max(5).optional();

/**
 * NATS_STREAM_REPLICAS (every stream) and NATS_STREAM_REPLICAS_<STREAM> (one stream, before the
 * former): copies of each stream on a JetStream cluster (decision 0034; 3 on a 3-node cluster).
 * The provisioning step applies them; every process refuses to start on a stream with fewer
 * replicas than its value, so a cluster never runs on single-copy streams unnoticed.
 */
const streamReplicaFields = {
  NATS_STREAM_REPLICAS: streamReplicas,
  ...(Object.fromEntries((Object.keys(STREAMS) as StreamName[]).map((name) => [`NATS_STREAM_REPLICAS_${name}`, streamReplicas])) as Record<`NATS_STREAM_REPLICAS_${StreamName}`, typeof streamReplicas>),
};

export type StreamEnv = Partial<Record<`NATS_STREAM_MAX_BYTES_${StreamName}` | 'NATS_STREAM_REPLICAS' | `NATS_STREAM_REPLICAS_${StreamName}`, number | undefined>>;

/** Each stream's replicas the environment sets (its own variable, else NATS_STREAM_REPLICAS); a stream not set is left out. */
export function streamReplicasFromEnv(env: StreamEnv): Partial<Record<StreamName, number>> {
  const replicas: Partial<Record<StreamName, number>> = {};
  for (const name of Object.keys(STREAMS) as StreamName[]) {
    const value = env[`NATS_STREAM_REPLICAS_${name}`] ?? env.NATS_STREAM_REPLICAS;
    if (value !== undefined) replicas[name] = value;
  }
  return replicas;
}

/** The streams a process verifies at start, with the byte limits and replicas its environment sets. */
export function streamsFromEnv(env: StreamEnv): StreamDefinition[] {
  const limits: Partial<Record<StreamName, number>> = {};
  for (const name of Object.keys(STREAMS) as StreamName[]) {
    const value = env[`NATS_STREAM_MAX_BYTES_${name}`];
    if (value !== undefined) limits[name] = value;
  }
  return withStreamLimits(limits, streamReplicasFromEnv(env));
}

/** Variables every service reads. */
export const baseEnvSchema = z.object({
  DATABASE_URL: z.string().min(1).optional(),
  /** Overrides the app's schema (two copies side by side: tests, blue/green); same rule as assertSchemaName. */
  DB_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'a lower-case schema name: letters, digits, underscores; at most 63 characters')
    .optional(),
  ...natsEnvFields,
  NATS_NAMESPACE: z
    .string()
    .regex(/^([a-z0-9][a-z0-9-]*)?$/, 'lower-case letters, digits and -, starting with a letter or digit')
    .default(''),
  ...streamLimitFields,
  ...streamReplicaFields,
  MIGRATE_ON_START: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SWITCHYARD_ENV: z.enum(['sandbox', 'production']).default('production'),
  // PostgreSQL deadlines of every pooled connection (libs/persistence availability.ts; docs/reliability.md).
  DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(DEFAULT_DATABASE_TIMEOUTS.connectMs),
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(DEFAULT_DATABASE_TIMEOUTS.statementMs),
  DB_LOCK_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(DEFAULT_DATABASE_TIMEOUTS.lockMs),
  /** Longest orderly shutdown after SIGTERM/SIGINT before the process exits 1 anyway (main-runner.ts). */
  SHUTDOWN_DEADLINE_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  // Traces: the standard OpenTelemetry variables (tracing/tracing-config.ts; off without an endpoint).
  ...tracingEnvFields,
});

export type BaseEnv = z.output<typeof baseEnvSchema>;

/** Parses `env` with `schema`; throws ConfigError naming each bad variable. */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.output<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`));
}
