/**
 * The orchestrator's schedule SQL (ScheduleRepository) directly on the real PostgreSQL, without the
 * scheduler loop or the bus: one schedule row per projected connection; a claim takes one due row
 * and a concurrent claim skips it (`for update skip locked`) instead of waiting; the recorded
 * outcome moves the row out of due and makes the window's runs, in plan order, the next claim's
 * previous window; and the open scheduled runs of connections whose collection stopped.
 * (The scheduler loop on top of it runs end to end in system-tests/test/scheduler.int-spec.ts.)
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ConnectionConfigV1 } from '@switchyard/messaging';
import { inTransaction } from '@switchyard/persistence';
import { connectionConfig } from '@switchyard/testing';
import { useMigratedSchema } from '@switchyard/testing/jest';
import { syncOrchestratorMigrations } from '../src/db/migrations/index.js';
import { ScheduleRepository } from '../src/db/repositories/schedule.repository.js';

const repository = new ScheduleRepository();
const HOUR = 3_600_000;
const db = useMigratedSchema('sync-orchestrator', syncOrchestratorMigrations);
let active: ConnectionConfigV1;
let paused: ConnectionConfigV1;

async function project(config: ConnectionConfigV1): Promise<void> {
  await db.sql(`insert into ${db.t('connection_config')} (connection_id, revision, config) values (?, ?, ?::jsonb)`, [config.connectionId, config.revision, JSON.stringify(config)]);
}

async function insertSync(id: string, connectionId: string, status: string, origin: string, startFrom: string, intervalEnd: string): Promise<void> {
  await db.sql(
    `insert into ${db.t('sync')} (id, application_id, connection_id, status, requested_at, start_from, interval_end, purposes, admitted_units, created_xid, origin)
     values (?, ?, ?, ?, now(), ?, ?, '{trips}', 1, pg_current_xact_id()::text::bigint, ?)`,
    // Only API runs have an application (sync_origin_application_check, migration 0007).
    [id, origin === 'api' ? randomUUID() : null, connectionId, status, startFrom, intervalEnd, origin],
  );
}

/** Holds a claim open (its transaction and row lock) while `during` runs. */
const claiming = <T>(during: (claimed: Awaited<ReturnType<ScheduleRepository['claimDue']>>) => Promise<T>) => inTransaction(db.orm, async (em) => during(await repository.claimDue(em)));

beforeAll(async () => {
  active = connectionConfig();
  paused = connectionConfig({ status: 'paused' });
  await project(active);
  await project(paused);
});

describe('ScheduleRepository', () => {
  it('adds one due schedule per projected connection, once', async () => {
    expect(await repository.ensureSchedules(db.em())).toBe(2);
    expect(await repository.ensureSchedules(db.em())).toBe(0);
  });

  it('lets concurrent claims take different rows, and none when every due row is held', async () => {
    const seen = await claiming(async (first) =>
      claiming(async (second) => {
        const third = await inTransaction(db.orm, (em) => repository.claimDue(em));
        return { first: first?.connectionId, second: second?.connectionId, third };
      }),
    );
    expect([seen.first, seen.second].sort()).toEqual([active.connectionId, paused.connectionId].sort());
    expect(seen.third).toBeUndefined();
  });

  it('claims with the database clock and the projected config', async () => {
    const claimed = await claiming(async (c) => c);
    expect(claimed).toMatchObject({ coveredUntil: null, config: expect.objectContaining({ revision: 1 }) });
    expect(claimed?.previous).toBeUndefined();
    expect(Math.abs(claimed!.now.getTime() - Date.now())).toBeLessThan(60_000);
    expect(claimed!.dueAt.getTime()).toBeLessThanOrEqual(claimed!.now.getTime());
  });

  it('records a created window: not due until next_due_at, then claimed with its runs as the previous window', async () => {
    const end = new Date(Date.now() - HOUR);
    const start = new Date(end.getTime() - 24 * HOUR);
    await insertSync('sync_b', active.connectionId, 'completed', 'scheduled', start.toISOString(), end.toISOString());
    await insertSync('sync_a', active.connectionId, 'in_progress', 'scheduled', start.toISOString(), end.toISOString());
    await inTransaction(db.orm, (em) =>
      repository.recordOutcome(em, active.connectionId, { nextDueAt: new Date(Date.now() + HOUR), decidedAt: new Date(), decision: 'created', runs: { syncIds: ['sync_b', 'sync_a'], intervalEnd: end } }),
    );
    await db.sql(`update ${db.t('sync_schedule')} set next_due_at = now() + interval '1 hour' where connection_id = ?`, [paused.connectionId]);
    expect(await claiming(async (c) => c)).toBeUndefined();

    await db.sql(`update ${db.t('sync_schedule')} set next_due_at = now() - interval '1 minute' where connection_id = ?`, [active.connectionId]);
    const claimed = await claiming(async (c) => c);
    expect(claimed).toMatchObject({
      connectionId: active.connectionId,
      coveredUntil: end,
      previous: { syncIds: ['sync_a', 'sync_b'], statuses: ['in_progress', 'completed'], startFrom: start, intervalEnd: end },
    });
    const [row] = await db.sql<{ last_sync_id: string; last_sync_ids: string[]; last_decision: string }>(`select last_sync_id, last_sync_ids, last_decision from ${db.t('sync_schedule')} where connection_id = ?`, [active.connectionId]);
    expect(row).toEqual({ last_sync_id: 'sync_b', last_sync_ids: ['sync_b', 'sync_a'], last_decision: 'created' });
  });

  it('refuses a created window without runs', async () => {
    await expect(inTransaction(db.orm, (em) => repository.recordOutcome(em, active.connectionId, { nextDueAt: new Date(), decidedAt: new Date(), decision: 'created', runs: { syncIds: [], intervalEnd: new Date() } }))).rejects.toThrow(/at least one run/);
  });

  it('lists only the open scheduled runs of connections whose collection stopped', async () => {
    const t = new Date().toISOString();
    await insertSync('sync_open', paused.connectionId, 'requested', 'scheduled', t, t);
    await insertSync('sync_done', paused.connectionId, 'completed', 'scheduled', t, t);
    await insertSync('sync_api', paused.connectionId, 'in_progress', 'api', t, t);
    expect(await repository.openRunsOfStoppedConnections(db.em())).toEqual([{ syncId: 'sync_open', connectionId: paused.connectionId, config: { status: 'paused', unifiedCollection: true } }]);
  });
});
