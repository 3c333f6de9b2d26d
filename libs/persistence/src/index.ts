/**
 * @switchyard/persistence — MikroORM 7 for one app and one PostgreSQL schema.
 * The public surface: ORM factory, schema-agnostic migrations with a locked migrateUp, units of
 * work for message handlers, the SQL helpers (tableNamer, query, its prepared twin readQuery, isoSql, pingDatabase), the
 * json_to_recordset upsert, database URLs and embedded PostgreSQL.
 * See docs/decisions/0004-persistence-per-schema.md.
 */
export {
  SERVICE_SCHEMAS,
  MIGRATIONS_TABLE,
  assertSchemaName,
  buildOrmOptions,
  createOrm,
  ormSchema,
  type CreateOrmOptions,
  type EntityDefinition,
  type MigrationClass,
  type Orm,
  type ServiceName,
} from './orm.js';
export { SchemaMigration, migrateUp, pendingMigrations, parseMigrateOnStart, schemaDrift, type MigrateUpOptions } from './migrations.js';
export { inTransaction, withRequestContext, type Em } from './request-context.js';
export { dollarPlaceholders, isoSql, pingDatabase, PREPARED_STATEMENTS_MAX, query, readQuery, tableNamer } from './sql.js';
export { buildBulkUpsertSql, bulkUpsert, dedupeByConflictKey, type BulkUpsertSpec } from './bulk.js';
export { DEFAULT_DATABASE_TIMEOUTS, isDatabaseDeadline, isDatabaseUnavailable, type DatabaseTimeouts } from './availability.js';
export { DEFAULT_DATABASE_URL, maskUrl, resolveDatabaseUrl } from './database-url.js';
export { QUERY_TEXT_LIMIT, querySummary, sanitizeSql, traceQueries, type PgClient, type PgPool } from './query-spans.js';
