/**
 * Retention of the sync history (decision 0030) on the real PostgreSQL: terminal syncs past their
 * period go with their units, receipts and unit batches; open syncs, syncs with a live lease, the
 * newest standing public sync of an application on a connection (the default startFrom chains from
 * it), the newest internal run of a connection and the runs a schedule names stay whatever their
 * age; recent syncs stay; one statement deletes at most about `maxUnits` units.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { useMigratedSchema } from '@switchyard/testing/jest';
import { syncOrchestratorMigrations } from '../src/db/migrations/index.js';
import { SyncRetentionRepository } from '../src/db/repositories/sync-retention.repository.js';
import { pruneSyncHistory } from '../src/services/sync-retention.service.js';

const DAY = 86_400_000;
const settings = { publicMs: 30 * DAY, internalMs: DAY };
const db = useMigratedSchema('sync-orchestrator', syncOrchestratorMigrations);
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

interface Seed {
  status: 'requested' | 'in_progress' | 'completed' | 'failed';
  origin?: string;
  applicationId?: string;
  connectionId: string;
  /** Age of requested_at and updated_at. */
  age: number;
  units?: number;
  /** A unit lease running until this long after now. */
  leaseFor?: number;
}

/** A sync with `units` units, each with one receipt and one batch; returns its id. */
async function seed(s: Seed): Promise<string> {
  const id = `sync_${randomUUID().replaceAll('-', '')}`;
  const origin = s.origin ?? 'api';
  const units = s.units ?? 2;
  await db.sql(
    `insert into ${db.t('sync')} (id, application_id, connection_id, status, requested_at, start_from, interval_end, purposes, admitted_units, created_xid, origin, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, '{trips}', ?, pg_current_xact_id()::text::bigint, ?, ?)`,
    [id, origin === 'api' ? (s.applicationId ?? randomUUID()) : null, s.connectionId, s.status, ago(s.age), ago(s.age + DAY), ago(s.age), units, origin, ago(s.age)],
  );
  for (let seq = 0; seq < units; seq += 1) {
    const [unit] = await db.sql<{ id: string }>(
      `insert into ${db.t('sync_unit')} (sync_id, seq, purpose, vehicle_source_id, lease_expires_at, fencing_token) values (?, ?, 'trips', 'v', ?, 1) returning id`,
      [id, seq, s.leaseFor === undefined ? ago(s.age) : new Date(Date.now() + s.leaseFor).toISOString()],
    );
    await db.sql(`insert into ${db.t('sync_receipt')} (unit_id, sync_id, attempt, fencing_token, context, receipt_key, committed_at) values (?, ?, 1, 1, 'directory', 'k', now())`, [unit!.id, id]);
    await db.sql(`insert into ${db.t('sync_unit_batch')} (unit_id, fencing_token, batch_id, final) values (?, 1, 'b', true)`, [unit!.id]);
  }
  return id;
}

const count = async (table: string, syncIds: string[]) =>
  (await db.sql<{ n: number }>(`select count(*)::int as n from ${db.t(table)} where sync_id in (?)`, [syncIds]))[0]!.n;
const batches = async (syncIds: string[]) =>
  (await db.sql<{ n: number }>(`select count(*)::int as n from ${db.t('sync_unit_batch')} b join ${db.t('sync_unit')} u on u.id = b.unit_id where u.sync_id in (?)`, [syncIds]))[0]!.n;
const remaining = async (ids: string[]) => (await db.sql<{ id: string }>(`select id from ${db.t('sync')} where id in (?)`, [ids])).map((r) => r.id);

describe('sync history retention', () => {
  const gone: Record<string, string> = {};
  const kept: Record<string, string> = {};
  let orphanBatches = 0;

  beforeAll(async () => {
    const app = randomUUID();
    const conn = randomUUID();
    gone.oldCompleted = await seed({ status: 'completed', applicationId: app, connectionId: conn, age: 40 * DAY });
    gone.oldFailed = await seed({ status: 'failed', applicationId: app, connectionId: conn, age: 39 * DAY });
    // Older than the period, but the newest that stands of its application and connection: the default startFrom's base.
    // mutation: without the newest-standing check → deleted → the test fails.
    kept.newestStanding = await seed({ status: 'completed', applicationId: app, connectionId: conn, age: 35 * DAY });
    gone.laterFailed = await seed({ status: 'failed', applicationId: app, connectionId: conn, age: 34 * DAY });
    kept.recent = await seed({ status: 'completed', connectionId: conn, age: 29 * DAY });
    // mutation: the predicate without `status in ('completed', 'failed')` → this open sync is deleted → the test fails.
    // Open syncs of the same application, older than the newest standing one (only their state keeps them).
    kept.open = await seed({ status: 'in_progress', applicationId: app, connectionId: conn, age: 60 * DAY });
    kept.requested = await seed({ status: 'requested', applicationId: app, connectionId: conn, age: 60 * DAY });
    // A cancelled sync whose unit a collector still holds (cancel never ends a lease early).
    // mutation: without the live-lease check → deleted → the test fails.
    kept.leased = await seed({ status: 'failed', connectionId: conn, age: 40 * DAY, leaseFor: 60_000 });

    const scheduled = randomUUID();
    gone.oldRun = await seed({ status: 'completed', origin: 'scheduled', connectionId: scheduled, age: 3 * DAY });
    // Not the newest run, but the schedule's last window. mutation: without the schedule check → deleted → the test fails.
    kept.scheduleNamed = await seed({ status: 'failed', origin: 'scheduled', connectionId: scheduled, age: 2 * DAY });
    kept.recentRun = await seed({ status: 'completed', origin: 'scheduled', connectionId: scheduled, age: DAY / 2 });
    await db.sql(`insert into ${db.t('sync_schedule')} (connection_id, next_due_at, last_sync_id, last_sync_ids) values (?, now(), ?, array[?])`, [scheduled, kept.scheduleNamed, kept.scheduleNamed]);
    // The only (so newest) run of its connection: the next run continues at its interval_end.
    // mutation: without the newest-internal-run check → deleted → the test fails.
    kept.newestRun = await seed({ status: 'completed', origin: 'scheduled', connectionId: randomUUID(), age: 5 * DAY });
    orphanBatches = await batches(Object.values(kept));
  });

  it('deletes terminal syncs past their period with their units, receipts and batches, and keeps every live or chained one', async () => {
    expect(await pruneSyncHistory(db.orm, settings)).toBe(Object.keys(gone).length);
    expect(await remaining(Object.values(gone))).toEqual([]);
    expect((await remaining(Object.values(kept))).sort()).toEqual(Object.values(kept).sort());
    expect(await count('sync_unit', Object.values(gone))).toBe(0);
    expect(await count('sync_receipt', Object.values(gone))).toBe(0);
    expect(await batches(Object.values(gone))).toBe(0);
    expect(await count('sync_unit', Object.values(kept))).toBe(2 * Object.keys(kept).length);
    expect(await count('sync_receipt', Object.values(kept))).toBe(2 * Object.keys(kept).length);
    expect(await batches(Object.values(kept))).toBe(orphanBatches);
    // A second pass finds nothing more of these.
    await pruneSyncHistory(db.orm, settings);
    expect((await remaining(Object.values(kept))).sort()).toEqual(Object.values(kept).sort());
  });

  it('deletes in statements bounded by units: oldest syncs first, until their units reach the bound', async () => {
    const conn = randomUUID();
    const old: string[] = [];
    for (let i = 0; i < 5; i += 1) old.push(await seed({ status: 'failed', connectionId: conn, age: (50 - i) * DAY, units: 2 }));
    const cutoffs = { publicBefore: new Date(Date.now() - settings.publicMs), internalBefore: new Date(Date.now() - settings.internalMs) };
    // Units 2 + 2 reach the bound of 3 within the second sync: two syncs, four units, in this statement.
    // mutation: the running-sum bound removed → all five go at once → the test fails.
    expect(await new SyncRetentionRepository().prune(db.em(), cutoffs, 3)).toEqual({ syncs: 2, units: 4 });
    expect((await remaining(old)).sort()).toEqual(old.slice(2).sort());
    expect(await pruneSyncHistory(db.orm, settings, new Date(), 3)).toBe(3);
    expect(await remaining(old)).toEqual([]);
  });
});
