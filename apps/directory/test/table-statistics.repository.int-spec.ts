/**
 * The directory's planner statistics SQL (TableStatisticsRepository) on the real PostgreSQL: a
 * fresh table has none, an ANALYZE of it while empty still counts as none (reltuples 0), and an
 * ANALYZE after rows were written gives it statistics.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { useMigratedSchema } from '@switchyard/testing/jest';
import { directoryMigrations } from '../src/db/migrations/index.js';
import { TableStatisticsRepository } from '../src/db/repositories/table-statistics.repository.js';
import { insertVehicle } from './directory-rows.js';

const repository = new TableStatisticsRepository();
const db = useMigratedSchema('directory', directoryMigrations);

describe('TableStatisticsRepository', () => {
  it('reports statistics only once a table was analyzed with rows in it', async () => {
    expect(await repository.hasStatistics(db.em(), 'vehicle')).toBe(false);
    await repository.analyze(db.em(), 'vehicle');
    expect(await repository.hasStatistics(db.em(), 'vehicle')).toBe(false);
    const connectionId = randomUUID();
    for (const sourceId of ['v1', 'v2', 'v3']) await insertVehicle(db, connectionId, sourceId);
    await repository.analyze(db.em(), 'vehicle');
    expect(await repository.hasStatistics(db.em(), 'vehicle')).toBe(true);
    expect(await repository.hasStatistics(db.em(), 'trip')).toBe(false);
  });
});
