/**
 * The directory's roster pass SQL (RosterPassRepository, decision 0014) directly on the real
 * PostgreSQL, for the drivers dataset (vehicles share the class): completions numbered 1, 2, … per
 * connection; a pass opens roster rows for the members it carried and closes those it no longer
 * carries; its sightings are gone once it completes; the current pass as a walk's horizon saw it;
 * a late page of a completed pass reopens a member from that pass on; and the last listing time.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { driverId } from '@switchyard/domain';
import { useMigratedSchema } from '@switchyard/testing/jest';
import { directoryMigrations } from '../src/db/migrations/index.js';
import { currentHorizon } from '../src/db/repositories/read-horizon.js';
import { ROSTER_DATASETS, RosterPassRepository } from '../src/db/repositories/roster-pass.repository.js';
import { completePass, ref } from './directory-rows.js';

const passes = new RosterPassRepository(ROSTER_DATASETS.drivers);
const FIRST = '2026-11-20T01:00:00.000Z';
const SECOND = '2026-11-20T02:00:00.000Z';
const db = useMigratedSchema('directory', directoryMigrations);

describe('RosterPassRepository (drivers)', () => {
  const connectionId = randomUUID();
  const d = (sourceId: string) => driverId(ref(connectionId, sourceId));
  const roster = (sourceId: string) => passes.roster(db.em(), connectionId, d(sourceId));
  let afterFirst: string;

  it('numbers the first pass 1 and lists what it carried', async () => {
    expect(await completePass(db, ROSTER_DATASETS.drivers, connectionId, 'pass-1', [d('d1'), d('d2')], FIRST)).toBe(1);
    afterFirst = await currentHorizon(db.em());
    expect(await roster('d1')).toEqual([{ from_seq: 1, to_seq: null }]);
    expect(await passes.completedSeq(db.em(), connectionId, 'pass-1')).toBe(1);
    expect(await passes.current(db.em(), connectionId)).toMatchObject({ seq: 1, captured_at: FIRST, fetched_at: FIRST });
  });

  it('closes the listing of a member the next pass no longer carries, opens the new ones, keeps the rest', async () => {
    expect(await completePass(db, ROSTER_DATASETS.drivers, connectionId, 'pass-2', [d('d2'), d('d3')], SECOND)).toBe(2);
    expect(await roster('d1')).toEqual([{ from_seq: 1, to_seq: 2 }]);
    expect(await roster('d2')).toEqual([{ from_seq: 1, to_seq: null }]);
    expect(await roster('d3')).toEqual([{ from_seq: 2, to_seq: null }]);
    expect(await db.sql(`select 1 from ${db.t('driver_sighting')} where connection_id = ?`, [connectionId])).toEqual([]);
  });

  it('answers the pass a walk started on, not a newer one', async () => {
    expect(await passes.current(db.em(), connectionId, afterFirst)).toMatchObject({ seq: 1 });
    expect(await passes.current(db.em(), connectionId, await currentHorizon(db.em()))).toMatchObject({ seq: 2 });
    expect(await passes.current(db.em(), randomUUID())).toBeUndefined();
  });

  it('knows when a member was last listed', async () => {
    expect(await passes.lastListedAt(db.em(), connectionId, d('d1'))).toBe(FIRST);
    expect(await passes.lastListedAt(db.em(), connectionId, d('d2'))).toBe(SECOND);
    expect(await passes.lastListedAt(db.em(), connectionId, d('never'))).toBeNull();
  });

  it('lists a late page of a completed pass from that pass on, once', async () => {
    await passes.listLate(db.em(), connectionId, 2, [d('d1'), d('d2')]);
    await passes.listLate(db.em(), connectionId, 2, [d('d1')]);
    expect(await roster('d1')).toEqual([
      { from_seq: 1, to_seq: 2 },
      { from_seq: 2, to_seq: null },
    ]);
    expect(await roster('d2')).toEqual([{ from_seq: 1, to_seq: null }]);
  });
});
