/**
 * Retention of trips (issue 25 item 2; decision 0030) on a migrated directory schema: a pass
 * deletes the trips that started more than 400 days ago (HISTORY_RETENTION_DAYS, the observation
 * horizon of decision 0025) in every connection and keeps younger ones; chunks smaller than what is
 * due still remove all of it; a second pass deletes nothing.
 * Mutations tried: the cutoff without the retention (`now`) → the 399-day and recent trips go and
 * "kept" fails; the recursive step of the connection walk removed (only the first connection
 * pruned) → the other connection's old trips stay and this test fails.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { HISTORY_RETENTION_DAYS } from '@switchyard/contracts';
import { useMigratedSchema } from '@switchyard/testing/jest';
import { directoryMigrations } from '../src/db/migrations/index.js';
import { pruneTrips } from '../src/services/trip-retention.service.js';
import { insertTrip } from './directory-rows.js';

const DAY = 86_400_000;
const db = useMigratedSchema('directory', directoryMigrations);

describe('trip retention', () => {
  it('deletes trips that started more than 400 days ago in every connection, keeps younger ones', async () => {
    expect(HISTORY_RETENTION_DAYS).toBe(400);
    const now = new Date();
    const ago = (days: number) => new Date(now.getTime() - days * DAY).toISOString();
    const [first, second] = [randomUUID(), randomUUID()].sort();
    const trips: [string, string, number][] = [
      [first!, 'old-1', 401],
      [first!, 'old-2', 800],
      [first!, 'kept-399', 399],
      [first!, 'kept-new', 0.01],
      [second!, 'old-3', 401],
      [second!, 'old-4', 402],
      [second!, 'old-5', 500],
      [second!, 'kept-1', 1],
    ];
    for (const [connectionId, sourceId, days] of trips) await insertTrip(db, connectionId, sourceId, 'v1', ago(days));
    const left = async () => (await db.sql<{ source_id: string }>(`select source_id from ${db.t('trip')} where connection_id in (?::uuid, ?::uuid) order by source_id`, [first, second])).map((r) => r.source_id);

    // Chunks of 2: five trips are due, so the pass needs three statements.
    const pruned = await pruneTrips(db.orm, now, 2);
    process.stdout.write(`[trip-retention] pass pruned ${pruned} trip(s) started more than ${HISTORY_RETENTION_DAYS} days ago; kept ${(await left()).join(', ')}\n`);
    expect(pruned).toBe(5);
    expect(await left()).toEqual(['kept-1', 'kept-399', 'kept-new']);
    expect(await pruneTrips(db.orm, now)).toBe(0);
  });
});
