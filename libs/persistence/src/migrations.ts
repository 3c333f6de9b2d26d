/**
 * Schema-agnostic migrations and the one way to apply them.
 *
 * Convention (docs/decisions/0004): a migration extends SchemaMigration and qualifies every
 * object with `this.schema`, the quoted schema of the ORM it runs on:
 *
 *   override up(): void {
 *     const s = this.schema;
 *     this.addSql(`create table ${s}.connection (id uuid primary key, created_at timestamptz not null)`);
 *   }
 *
 * so the same class creates `"gateway"."connection"` in production and
 * `"gateway_t8f3k2"."connection"` in a test. MikroORM also runs `set search_path to "<schema>"`
 * before each migration (because `migrations.schema` is set), so an unqualified name cannot
 * land in `public` by accident — but write the qualification anyway: it is what a reader greps
 * for, and the search path excludes `public` (qualify extension functions that live there).
 *
 * migrateUp() holds a PostgreSQL advisory lock keyed on the schema name while it creates the
 * schema and applies pending migrations, so replicas that start together apply each migration
 * exactly once: the second waits, then finds nothing pending.
 */
import { Migration } from '@mikro-orm/migrations';
import { assertSchemaName, ormSchema, type Orm } from './orm.js';

/** Base class of every migration: gives the quoted schema to write SQL against. */
export abstract class SchemaMigration extends Migration {
  /** The quoted schema this run targets, e.g. `"gateway_t8f3k2"`; never hard-code a name. */
  protected get schema(): string {
    const name = this.config.get('migrations').schema ?? this.config.get('schema');
    if (!name) throw new Error('SchemaMigration needs an ORM created by createOrm() (no schema configured)');
    return `"${assertSchemaName(name)}"`;
  }

  /** A quoted, schema-qualified object name: `this.table('connection')` → `"gateway"."connection"`. */
  protected table(name: string): string {
    return `${this.schema}."${name.replaceAll('"', '""')}"`;
  }
}

// First key of the two-int advisory lock: a constant namespace ("SW" = 0x5357) so our locks
// never collide with another tool's single-bigint locks. The second key is hashtext(schema);
// two schema names with the same hash would only serialize each other's migrations.
const LOCK_NAMESPACE = 0x5357;

/** The subset of `pg` that migrateUp uses (pg ships no types here, see notes/stack.md). */
interface PgPoolClient {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  release(destroy?: Error | boolean): void;
}
interface PgPool {
  connect(): Promise<PgPoolClient>;
}

export interface MigrateUpOptions {
  /** Where progress lines go (pino's `logger.info.bind(logger)` fits). Defaults to console.log. */
  log?: (line: string) => void;
}

/**
 * Creates the ORM's schema if missing and applies every pending migration, under an advisory
 * lock keyed on the schema. Returns the names applied by this call (empty when up to date).
 */
export async function migrateUp(orm: Orm, options: MigrateUpOptions = {}): Promise<string[]> {
  const log = options.log ?? ((line: string) => console.log(line));
  const schema = assertSchemaName(ormSchema(orm));
  const pool = (await orm.em.getConnection().getNativeClient()) as PgPool;
  // A session-level lock lives on one connection: pin one for the whole run. The migrator
  // itself uses other pool connections, hence poolMax ≥ 2 (enforced in createOrm).
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    const tried = await client.query('select pg_try_advisory_lock($1, hashtext($2)) as locked', [LOCK_NAMESPACE, schema]);
    if (tried.rows[0]?.['locked'] !== true) {
      log(`migrations: waiting for the lock on schema "${schema}" (another process is migrating it)`);
      // Another process's migrations may take longer than one statement's deadline: wait them out
      // without it on this pinned session (reset below to the connection's own setting).
      await client.query('set statement_timeout = 0');
      await client.query('select pg_advisory_lock($1, hashtext($2))', [LOCK_NAMESPACE, schema]);
      await client.query('reset statement_timeout');
    }
    try {
      await client.query(`create schema if not exists "${schema}"`);
      const applied = await orm.migrator.up();
      const names = applied.map((m) => m.name);
      log(names.length ? `migrations: applied ${names.length} to "${schema}": ${names.join(', ')}` : `migrations: "${schema}" is up to date`);
      return names;
    } finally {
      await client.query('select pg_advisory_unlock($1, hashtext($2))', [LOCK_NAMESPACE, schema]).catch((error: unknown) => {
        // Destroying the connection ends its session, which releases the lock anyway.
        broken = error instanceof Error ? error : new Error(String(error));
      });
    }
  } catch (error) {
    broken ??= error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    client.release(broken);
  }
}

/**
 * Names of the migrations that migrateUp() would apply now. Like every MikroORM migrator call, it
 * creates the schema and its empty migrations table if they are missing.
 */
export async function pendingMigrations(orm: Orm): Promise<string[]> {
  return (await orm.migrator.getPending()).map((m) => m.name);
}

/**
 * The SQL the schema generator would run to make this schema match the entities — '' when the
 * migrations and the `defineEntity` definitions agree. Each app's int-spec should assert it is
 * empty after migrateUp(). Only this ORM's schema is compared: the generator is pointed at it, so
 * schemas of other services or other test runs on the same server never show up as drops.
 */
export async function schemaDrift(orm: Orm): Promise<string> {
  // The generator still introspects every schema's table list before comparing this one; on a
  // server shared with other runs, a schema dropped between its list and index queries fails with
  // 3F000 (no such schema) or 42P01 (no such relation), or — when the table went between reading
  // its OID and its indexes — XX000 "could not open relation with OID …" (seen in CI). That is a
  // race, not drift: ask again.
  for (let attempt = 1; ; attempt++) {
    try {
      return (await orm.schema.getUpdateSchemaSQL({ wrap: false, schema: ormSchema(orm) })).trim();
    } catch (error) {
      const { code, message } = error as { code?: unknown; message?: unknown };
      const droppedMidway = code === '3F000' || code === '42P01' || (code === 'XX000' && typeof message === 'string' && message.startsWith('could not open relation with OID'));
      if (attempt >= 5 || !droppedMidway) throw error;
    }
  }
}

/**
 * Reads MIGRATE_ON_START. Default `true`: a single process (dev, `npm start`, tests) migrates
 * itself, and the advisory lock keeps replicas safe. Operators who run `npm run migrate` as a
 * release step set it to `false`. Anything but true/false/1/0 is a startup error.
 */
export function parseMigrateOnStart(value: string | undefined): boolean {
  if (value === undefined || value === '') return true;
  const normalized = value.trim().toLowerCase();
  if (normalized === 'true' || normalized === '1') return true;
  if (normalized === 'false' || normalized === '0') return false;
  throw new Error(`MIGRATE_ON_START must be true or false, got "${value}"`);
}
