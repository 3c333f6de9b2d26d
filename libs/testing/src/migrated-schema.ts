/**
 * One context's schema with all its migrations applied, on the real PostgreSQL and nothing else
 * (no Nest, no bus): what a repository spec needs to run the repository's SQL directly. The schema
 * carries a random suffix and close() drops it, so concurrent runs never meet.
 */
import { createOrm, migrateUp, type Em, type MigrationClass, type Orm, type ServiceName } from '@switchyard/persistence';
import { dropSchemas, isolatedSchemas } from './isolation.js';
import { resolveTestServices } from './services.js';

export interface MigratedSchema {
  orm: Orm;
  schema: string;
  /** A fresh entity manager (no transaction) for one repository call. */
  em(): Em;
  /** `"<schema>"."<table>"`. */
  t(table: string): string;
  /** Runs `sql` (with `?` placeholders) outside a transaction and returns the rows. */
  sql<T>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Closes the ORM and drops the schema. */
  close(): Promise<void>;
}

export async function openMigratedSchema(service: ServiceName, migrations: readonly MigrationClass[]): Promise<MigratedSchema> {
  const { databaseUrl } = await resolveTestServices();
  const schema = isolatedSchemas([service])[service];
  const orm = await createOrm({ clientUrl: databaseUrl, schema, entities: [], migrations, allServiceSchemas: [schema], logger: () => undefined });
  const close = async () => {
    await orm.close(true);
    await dropSchemas(databaseUrl, [schema]);
  };
  try {
    await migrateUp(orm, { log: () => undefined });
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
  return {
    orm,
    schema,
    em: () => orm.em.fork(),
    t: (table) => `"${schema}"."${table}"`,
    sql: <T>(sql: string, params: unknown[] = []) => orm.em.fork().execute<T[]>(sql, params),
    close,
  };
}
