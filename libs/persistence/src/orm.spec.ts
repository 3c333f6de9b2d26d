import { describe, expect, it } from '@jest/globals';
import { assertSchemaName, buildOrmOptions, SERVICE_SCHEMAS } from './orm.js';

describe('buildOrmOptions', () => {
  it('binds schema, migrations table and the ignore list to the app schema', () => {
    const options = buildOrmOptions({ clientUrl: 'postgres://x@h/db', schema: 'directory', entities: [], migrations: [] });
    expect(options.schema).toBe('directory');
    expect(options.migrations).toMatchObject({ tableName: 'mikro_orm_migrations', schema: 'directory', transactional: true, allOrNothing: true, snapshot: false });
    expect(options.schemaGenerator.ignoreSchema).toEqual(['public', 'gateway', 'sync', 'telemetry', 'faults', 'enrichment']);
    expect(options.allowGlobalContext).toBe(false);
  });

  it('ignores the isolated names of the other services in a test deployment', () => {
    const options = buildOrmOptions({ clientUrl: 'u', schema: 'gateway_t1', entities: [], migrations: [], allServiceSchemas: ['gateway_t1', 'sync_t1'] });
    expect(options.schemaGenerator.ignoreSchema).toEqual(['public', 'sync_t1']);
  });

  it('refuses a pool too small for migrateUp to hold its lock', () => {
    expect(() => buildOrmOptions({ clientUrl: 'u', schema: 'x', entities: [], migrations: [], poolMax: 1 })).toThrow('poolMax');
  });
});

describe('assertSchemaName', () => {
  it('accepts every production schema and isolated test names', () => {
    for (const name of [...Object.values(SERVICE_SCHEMAS), 'gateway_t8f3k2']) expect(assertSchemaName(name)).toBe(name);
  });

  it('rejects names that would need quoting or escaping', () => {
    for (const name of ['Gateway', 'a-b', '1abc', 'x"; drop schema y', '', 'a'.repeat(64)]) {
      expect(() => assertSchemaName(name)).toThrow('invalid_schema_name');
    }
  });
});
