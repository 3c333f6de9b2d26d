/**
 * The operator console's run list (`sync.operator.runs`, db/repositories/operator-runs.repository.ts)
 * on the real PostgreSQL: a connection's runs of every origin, newest first, only that
 * connection's; each unit counted once by state (receipted, awaiting receipts, retrying with its
 * recorded error, collecting, queued), the counts adding up to the admitted units; the errors listed
 * in plan order with their codes, at most OPERATOR_RUN_ERRORS, receipted units' old codes left out.
 * Mutation tried: the `not (awaiting)` guard dropped from the collecting count → a leased unit
 * waiting for its receipts is counted twice and the sum exceeds the admitted units, fails.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { OPERATOR_RUN_ERRORS } from '@switchyard/messaging';
import { useMigratedSchema } from '@switchyard/testing/jest';
import { syncOrchestratorMigrations } from '../src/db/migrations/index.js';
import { operatorRuns } from '../src/db/repositories/operator-runs.repository.js';

const db = useMigratedSchema('sync-orchestrator', syncOrchestratorMigrations);
const at = (msFromNow: number) => new Date(Date.now() + msFromNow).toISOString();

interface UnitSeed {
  state?: 'admitted' | 'receipted';
  leaseFor?: number;
  error?: string;
  awaiting?: boolean;
  purpose?: string;
}

async function seedRun(connectionId: string, origin: string, ageMs: number, units: UnitSeed[]): Promise<string> {
  const id = `sync_${randomUUID().replaceAll('-', '')}`;
  await db.sql(
    `insert into ${db.t('sync')} (id, application_id, connection_id, status, requested_at, start_from, interval_end, purposes, admitted_units, receipted_units, created_xid, origin)
     values (?, ?, ?, 'in_progress', ?, ?, ?, '{vehicles,telemetryLatest}', ?, ?, pg_current_xact_id()::text::bigint, ?)`,
    [id, origin === 'api' ? randomUUID() : null, connectionId, at(-ageMs), at(-ageMs - 86_400_000), at(-ageMs), units.length, units.filter((u) => u.state === 'receipted').length, origin],
  );
  for (const [seq, u] of units.entries()) {
    await db.sql(
      `insert into ${db.t('sync_unit')} (sync_id, seq, purpose, vehicle_source_id, state, fencing_token, lease_expires_at, last_error_code, error_attempts, awaiting_token, awaiting_receipts_until)
       values (?, ?, ?, ?, ?, 3, ?, ?, ?, ?, ?)`,
      [id, seq, u.purpose ?? 'telemetryLatest', u.purpose === 'drivers' ? null : `veh-${seq}`, u.state ?? 'admitted', u.leaseFor === undefined ? null : at(u.leaseFor), u.error ?? null, u.error ? 2 : 0, u.awaiting ? 3 : null, u.awaiting ? at(60_000) : null],
    );
  }
  return id;
}

describe('operator runs', () => {
  it('lists a connection’s runs of every origin with units by state and their recorded errors', async () => {
    const connection = randomUUID();
    const older = await seedRun(connection, 'api', 3_600_000, [{ state: 'receipted' }]);
    const newer = await seedRun(connection, 'scheduled', 60_000, [
      { state: 'receipted', error: 'provider_unavailable' },
      { state: 'receipted' },
      { awaiting: true, leaseFor: 30_000 },
      { error: 'provider_throttled', leaseFor: 5_000 },
      { error: 'provider_unavailable', purpose: 'drivers' },
      { leaseFor: 30_000 },
      { leaseFor: -1_000 },
      {},
    ]);
    await seedRun(randomUUID(), 'scheduled', 0, [{}]);

    const runs = await operatorRuns(db.em(), connection, 10);
    expect(runs.map((r) => [r.id, r.origin])).toEqual([
      [newer, 'scheduled'],
      [older, 'api'],
    ]);
    const [run] = runs;
    expect(run!.units).toEqual({ receipted: 2, awaitingReceipts: 1, retrying: 2, collecting: 1, queued: 2 });
    expect(Object.values(run!.units).reduce((a, b) => a + b, 0)).toBe(run!.admitted_units);
    expect(run!.errors).toEqual([
      { seq: 3, purpose: 'telemetryLatest', vehicleSourceId: 'veh-3', code: 'provider_throttled', errorAttempts: 2 },
      { seq: 4, purpose: 'drivers', vehicleSourceId: null, code: 'provider_unavailable', errorAttempts: 2 },
    ]);
    expect(runs[1]!.units).toEqual({ receipted: 1, awaitingReceipts: 0, retrying: 0, collecting: 0, queued: 0 });
    expect(await operatorRuns(db.em(), connection, 1)).toHaveLength(1);
  });

  it(`lists at most ${OPERATOR_RUN_ERRORS} errors of a run, in plan order`, async () => {
    const connection = randomUUID();
    await seedRun(connection, 'scheduled', 0, Array.from({ length: OPERATOR_RUN_ERRORS + 5 }, () => ({ error: 'provider_unavailable' })));
    const [run] = await operatorRuns(db.em(), connection, 5);
    expect(run!.errors.map((e) => e.seq)).toEqual(Array.from({ length: OPERATOR_RUN_ERRORS }, (_, i) => i));
    expect(run!.units.retrying).toBe(OPERATOR_RUN_ERRORS + 5);
  });
});
