import { describe, expect, it } from '@jest/globals';
import { buildBulkUpsertSql, dedupeByConflictKey } from './bulk.js';

const spec = {
  table: 'telemetry_point',
  columns: { vehicle_id: 'uuid', recorded_at: 'timestamptz', speed_kmh: 'numeric(6,2)', tags: 'text[]' },
  conflict: ['vehicle_id', 'recorded_at'],
  update: ['speed_kmh'],
};

describe('buildBulkUpsertSql', () => {
  it('qualifies the table with the given schema and reads the rows from one JSON parameter', () => {
    expect(buildBulkUpsertSql('telemetry_t1a2b3', spec)).toBe(
      'insert into "telemetry_t1a2b3"."telemetry_point" as t ("vehicle_id", "recorded_at", "speed_kmh", "tags") ' +
        'select r."vehicle_id", r."recorded_at", r."speed_kmh", r."tags" from json_to_recordset(?::json) ' +
        'as r("vehicle_id" uuid, "recorded_at" timestamptz, "speed_kmh" numeric(6,2), "tags" text[]) ' +
        'on conflict ("vehicle_id", "recorded_at") do update set "speed_kmh" = excluded."speed_kmh"',
    );
  });

  it('adds the update guard, or does nothing when no column is updated', () => {
    expect(buildBulkUpsertSql('s', { ...spec, updateWhere: 'excluded.recorded_at > t.recorded_at' })).toMatch(
      /do update set "speed_kmh" = excluded\."speed_kmh" where excluded\.recorded_at > t\.recorded_at$/,
    );
    expect(buildBulkUpsertSql('s', { ...spec, update: [] })).toMatch(/on conflict \("vehicle_id", "recorded_at"\) do nothing$/);
  });

  it('rejects identifiers and types that could smuggle SQL', () => {
    expect(() => buildBulkUpsertSql('s"; drop', spec)).toThrow('bulk_upsert_invalid_schema');
    expect(() => buildBulkUpsertSql('s', { ...spec, table: 'x y' })).toThrow('bulk_upsert_invalid_table');
    expect(() => buildBulkUpsertSql('s', { ...spec, columns: { ...spec.columns, 'a"b': 'text' } })).toThrow('bulk_upsert_invalid_column');
    expect(() => buildBulkUpsertSql('s', { ...spec, columns: { ...spec.columns, x: 'text); drop table y; --' } })).toThrow('bulk_upsert_invalid_type');
  });

  it('rejects conflict or update columns that are not in the column list', () => {
    expect(() => buildBulkUpsertSql('s', { ...spec, update: ['heading'] })).toThrow('bulk_upsert_unknown_column: "heading"');
    expect(() => buildBulkUpsertSql('s', { ...spec, conflict: [] })).toThrow('bulk_upsert_no_conflict_target');
  });
});

describe('dedupeByConflictKey', () => {
  it('keeps the last row per key, and every row whose key has a NULL', () => {
    const rows = [
      { k: 1, v: 'a' },
      { k: 2, v: 'b' },
      { k: 1, v: 'c' },
      { k: null, v: 'd' },
      { k: null, v: 'e' },
    ];
    expect(dedupeByConflictKey(rows, ['k'])).toEqual([
      { k: 1, v: 'c' },
      { k: 2, v: 'b' },
      { k: null, v: 'd' },
      { k: null, v: 'e' },
    ]);
  });
});
