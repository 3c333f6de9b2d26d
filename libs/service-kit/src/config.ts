/**
 * Environment configuration, parsed once at boot against one zod schema per app.
 * Invariant: a bad environment stops the process with ONE error that lists every bad variable,
 * and secret values never appear in that message (only their names).
 */
import { z } from 'zod';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** Variables every service reads. */
export const baseEnvSchema = z.object({
  DATABASE_URL: z.string().min(1).optional(),
  /** Overrides the app's schema (two copies side by side: tests, blue/green); same rule as assertSchemaName. */
  DB_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'a lower-case schema name: letters, digits, underscores; at most 63 characters')
    .optional(),
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  NATS_NAMESPACE: z
    .string()
    .regex(/^([a-z0-9][a-z0-9-]*)?$/, 'lower-case letters, digits and -, starting with a letter or digit')
    .default(''),
  MIGRATE_ON_START: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SWITCHYARD_ENV: z.enum(['sandbox', 'production']).default('production'),
});

export type BaseEnv = z.output<typeof baseEnvSchema>;

/** Parses `env` with `schema`; throws ConfigError naming each bad variable. */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.output<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`));
}
