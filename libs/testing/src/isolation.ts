/**
 * Names that keep concurrent test runs apart on the shared PostgreSQL and NATS servers.
 * Invariant: every schema, subject prefix and stream a test creates carries a random suffix, and
 * whatever a test creates it drops (dropSchemas) — other helpers use the same servers at once.
 */
import { randomBytes } from 'node:crypto';
import { assertSchemaName, createOrm, SERVICE_SCHEMAS, type ServiceName } from '@switchyard/persistence';

/** `t` + 6 base36 characters (~2·10⁹ values): short enough for identifiers, lower-case for PostgreSQL and NATS. */
export function uniqueSuffix(): string {
  // 5 random bytes (2⁴⁰) cover 36⁶ with margin; pad so the length never varies.
  const n = randomBytes(5).readUIntBE(0, 5) % 36 ** 6;
  return `t${n.toString(36).padStart(6, '0')}`;
}

/** App → isolated schema, e.g. `{ gateway: 'gateway_t8f3k2' }`; one suffix shared by the whole set. */
export function isolatedSchemas<A extends ServiceName>(apps: readonly A[], suffix: string = uniqueSuffix()): Record<A, string> {
  const entries = apps.map((app) => [app, assertSchemaName(`${SERVICE_SCHEMAS[app]}_${suffix}`)] as const);
  return Object.fromEntries(entries) as Record<A, string>;
}

/** Drops the named schemas and everything in them (`drop schema if exists … cascade`). */
export async function dropSchemas(url: string, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  for (const name of names) {
    assertSchemaName(name);
    // Production schemas are never a test's to drop; an isolated name always carries a suffix.
    if ((Object.values(SERVICE_SCHEMAS) as string[]).includes(name) || name === 'public') {
      throw new Error(`refusing to drop non-isolated schema "${name}"`);
    }
  }
  const orm = await createOrm({ clientUrl: url, schema: 'public', entities: [], migrations: [], allServiceSchemas: [], poolMax: 2, logger: () => undefined });
  try {
    for (const name of names) await orm.em.fork().execute(`drop schema if exists "${name}" cascade`);
  } finally {
    await orm.close(true);
  }
}

/**
 * A fresh bus namespace (e.g. `test-t4k2j9x`) for @switchyard/messaging: it prefixes subjects
 * (`test-t4k2j9x.telemetry.…`) and stream/durable names (`TEST_T4K2J9X_EVENTS`), so a test's
 * streams and consumers never meet another run's.
 */
export function uniqueNamespace(prefix = 'test'): string {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(prefix)) throw new Error(`namespace prefix must be lower-case letters, digits or '-', got "${prefix}"`);
  return `${prefix}-${uniqueSuffix()}`;
}
