/**
 * A repository spec's migrated schema as a Jest fixture: opened in beforeAll, closed (and dropped)
 * in afterAll. The returned handle delegates to the schema once it is open, so a spec declares it
 * at module level and uses it in its tests and hooks; using it before beforeAll ran throws.
 */
import { afterAll, beforeAll } from '@jest/globals';
import type { MigrationClass, ServiceName } from '@switchyard/persistence';
import { openMigratedSchema, type MigratedSchema } from './migrated-schema.js';

export function useMigratedSchema(service: ServiceName, migrations: readonly MigrationClass[]): MigratedSchema {
  let opened: MigratedSchema | undefined;
  beforeAll(async () => {
    opened = await openMigratedSchema(service, migrations);
  });
  afterAll(async () => {
    await opened?.close();
  });
  const open = (): MigratedSchema => {
    if (!opened) throw new Error(`the ${service} schema is opened in beforeAll; use it from a test or a later hook`);
    return opened;
  };
  return {
    get orm() {
      return open().orm;
    },
    get schema() {
      return open().schema;
    },
    em: () => open().em(),
    t: (table) => open().t(table),
    sql: (sql, params) => open().sql(sql, params),
    close: () => open().close(),
  };
}
