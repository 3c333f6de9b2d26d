/**
 * One MikroORM instance per app, bound to that app's own PostgreSQL schema.
 *
 * Invariants: the schema name comes from config (tests pass isolated names such as
 * `gateway_t8f3k2`), never from SQL text; the migrations table lives in the same schema
 * (`<schema>.mikro_orm_migrations`); and the schema generator ignores `public` and every other
 * service's schema. Without that ignore list, a migration generated for one service in the
 * stack probe contained `drop schema` for another service's whole schema (notes/stack.md).
 */
import type { AnyEntity, Constructor, EntityClass, EntitySchema } from '@mikro-orm/core';
import { Migrator, type Migration } from '@mikro-orm/migrations';
import { MikroORM, PostgreSqlDriver } from '@mikro-orm/postgresql';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from './availability.js';
import type { PgPool } from './query-spans.js';

/** App → its production schema. The one place these names are written down. */
export const SERVICE_SCHEMAS = {
  gateway: 'gateway',
  'sync-orchestrator': 'sync',
  directory: 'directory',
  'telemetry-ingest': 'telemetry',
  'fault-feed': 'faults',
  enrichment: 'enrichment',
} as const;

export type ServiceName = keyof typeof SERVICE_SCHEMAS;

/** Table that records applied migrations, inside each app's own schema. */
export const MIGRATIONS_TABLE = 'mikro_orm_migrations';

/** The ORM type every app holds: the PostgreSQL flavour, so `orm.em.execute` is typed. */
export type Orm = MikroORM;

/** Anything MikroORM accepts as an entity; apps pass `defineEntity(...)` results. */
export type EntityDefinition = EntitySchema | EntityClass<AnyEntity>;

/** A migration class; its class name is the row written to the migrations table. */
export type MigrationClass = Constructor<Migration>;

export interface CreateOrmOptions {
  /** postgres://user:password@host:port/db — see resolveDatabaseUrl(). */
  clientUrl: string;
  /** This app's schema: a lower-case identifier, e.g. `gateway` or `gateway_t8f3k2`. */
  schema: string;
  entities: readonly EntityDefinition[];
  /** Migration classes in the order they must run (names sort the same way: `Migration0001…`). */
  migrations: readonly MigrationClass[];
  /**
   * Every service schema in this deployment (the isolated names in tests). All but `schema`
   * are ignored by the schema generator. Defaults to the production names in SERVICE_SCHEMAS.
   */
  allServiceSchemas?: readonly string[];
  /** Log every query (MikroORM's `debug`). Off by default: queries can carry personal data. */
  debug?: boolean;
  /** Receives MikroORM's log lines (the migrator's "Applied …" lines; queries when debug). Default console.log. */
  logger?: (message: string) => void;
  /** Pool size. migrateUp() holds one connection for its advisory lock, so keep it ≥ 2. */
  poolMax?: number;
  /** Connect, statement, lock and idle-in-transaction deadlines; DEFAULT_DATABASE_TIMEOUTS for what is left out. */
  timeouts?: Partial<DatabaseTimeouts>;
  /**
   * Called once with the `pg` pool MikroORM creates, before any connection is opened: where query
   * spans (traceQueries) and pool metrics attach, on every statement the app runs (COPY included).
   */
  onPool?: (pool: PgPool) => void;
}

// Postgres folds unquoted names to lower case and caps identifiers at 63 bytes; accepting only
// this shape means a schema can be interpolated (quoted) into SQL without any escaping doubt.
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Throws unless `name` is a safe lower-case schema identifier. */
export function assertSchemaName(name: string): string {
  if (!SCHEMA_NAME.test(name)) {
    throw new Error(`invalid_schema_name: "${name}" must match ${SCHEMA_NAME.source}`);
  }
  return name;
}

/** The MikroORM options createOrm() uses; exported so tools (scripts/migrate.mjs) see the same. */
export function buildOrmOptions(options: CreateOrmOptions) {
  const schema = assertSchemaName(options.schema);
  const all = options.allServiceSchemas ?? Object.values(SERVICE_SCHEMAS);
  const poolMax = options.poolMax ?? 10;
  if (poolMax < 2) throw new Error('poolMax must be at least 2: migrateUp() pins one connection for its lock');
  return {
    driver: PostgreSqlDriver,
    clientUrl: options.clientUrl,
    schema,
    entities: [...options.entities],
    extensions: [Migrator],
    discovery: { warnWhenNoEntities: false },
    // Forgetting to fork the EM in a message handler must fail loudly, not share one identity map.
    allowGlobalContext: false,
    debug: options.debug ?? false,
    logger: options.logger ?? ((message: string) => console.log(message)),
    // Colour codes would end up inside JSON log lines.
    colors: false,
    pool: { min: 0, max: poolMax },
    // Every pooled connection carries its deadlines (docs/reliability.md): a database that stops
    // answering fails a statement (→ 503) instead of holding a request or a message forever.
    driverOptions: { ...pgDeadlines({ ...DEFAULT_DATABASE_TIMEOUTS, ...options.timeouts }), ...(options.onPool ? { onPoolCreated: options.onPool } : {}) },
    // Every datetime column is timestamptz (MikroORM's default for `p.datetime()` and our
    // migrations' convention): values go in and come out as JS Dates (instants), and Dates
    // written to any `timestamp` column are stored as UTC, whatever TZ the process runs in.
    forceUtcTimezone: true,
    migrations: {
      tableName: MIGRATIONS_TABLE,
      schema,
      migrationsList: [...options.migrations],
      transactional: true,
      // One batch = one transaction: a failing migration leaves none of the batch applied.
      allOrNothing: true,
      // Migrations are listed classes, not files: no snapshot file on disk to drift.
      snapshot: false,
    },
    schemaGenerator: {
      ignoreSchema: ['public', ...all.filter((name) => name !== schema)],
    },
  } satisfies Parameters<typeof MikroORM.init<PostgreSqlDriver>>[0];
}

/** `pg` Pool/Client options for the deadlines: the connect one is the pool's, the others are session settings sent at connect. */
function pgDeadlines(timeouts: DatabaseTimeouts) {
  return {
    connectionTimeoutMillis: timeouts.connectMs,
    statement_timeout: timeouts.statementMs,
    lock_timeout: timeouts.lockMs,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
    // A peer that vanished without a FIN (network cut, frozen host) is noticed by TCP keepalive.
    keepAlive: true,
  };
}

/** Creates and connects the app's MikroORM instance. Close it with `orm.close()`. */
export async function createOrm(options: CreateOrmOptions): Promise<Orm> {
  return MikroORM.init(buildOrmOptions(options));
}

/** The schema an ORM instance (or one of its EntityManagers) was created for. */
export function ormSchema(source: Orm | Orm['em']): string {
  const schema = source.config.getAll().schema;
  if (!schema) throw new Error('ORM has no schema configured: create it with createOrm()');
  return schema;
}
