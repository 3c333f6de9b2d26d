/**
 * The collection pipeline end to end on the real PostgreSQL and NATS: gateway (HTTP, credentials),
 * sync-orchestrator with its collectors and receipt consumer, directory, and the Samsara simulator
 * as its own process (built `sandbox/dist`, fixed clock so its data does not move during the test).
 * A sync created through `POST /v1/syncs` is leased, fetched through the adapter, published to
 * JetStream, committed by directory and completed only by directory's receipts; the stored
 * vehicles and trips are exactly the approved vehicles' records the simulator serves; a second
 * sync changes no stored content; a revoked provider credential fails the sync with
 * `provider_auth_required`. Connection health: the completed sync sets `last_success_at` on
 * `GET /v1/connections/{id}` (validated against the OpenAPI document), the revoked credential sets
 * `last_error_code: provider_auth_required` and keeps every stored directory row, and an older
 * health observation published afterwards does not roll `last_success_at` back. The directory
 * keeps the observations per dataset the jobs fed (no drivers row after a public sync).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomInt } from 'node:crypto';
import { connectionHealthMsgId, type ConnectionHealthV1, EVENTS, subjectFor } from '@switchyard/messaging';
import { createSamsaraAdapter } from '@switchyard/providers';
import { pollUntil } from '@switchyard/testing';
import { PipelineStack, type ConnectionHealth, type PipelineConnection, type PublicSync } from './pipeline-stack.js';

let stack: PipelineStack;
let apiToken: string;
let simulatorUrl: string;
let connection: PipelineConnection;
let connectionId: string;
let approved: string[];
let unapproved: string;

async function connectionHealth(description: string, accept: (c: ConnectionHealth) => boolean): Promise<ConnectionHealth> {
  let last: ConnectionHealth = {};
  await pollUntil(
    async () => {
      last = await connection.health();
      return accept(last);
    },
    { timeoutMs: 20_000, intervalMs: 100, description },
  );
  return last;
}

/**
 * Three days: the simulated fleet drives on ~90 % of weekdays but ~25 % of weekend days, so one day
 * back from a Sunday can hold no trip at all; any three-day window holds a weekday. It also makes
 * several trip slices per vehicle (3 × 2 trip units beside the 4 snapshot units).
 */
const LOOKBACK_DAYS = 3;

async function simulatorGet<T>(path: string): Promise<T> {
  const res = await fetch(`${simulatorUrl}${path}`, { headers: { authorization: `Bearer ${apiToken}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

/** Polls until the sync completed or failed. */
const settled = (id: string): Promise<PublicSync> => connection.settled(id, 60_000, 200);

const CONTENT = {
  vehicle: 'id, source_id, name, vin, status, name_field, vin_field, metadata, modified_at, publication',
  trip: 'id, source_id, vehicle_id, vehicle_source_id, driver_id, started_at, ended_at, duration_ms, distance_km, distance_basis, distance_field, start_location, end_location, modified_at, publication',
  group: 'id, source_id, name, name_field, description_field, parent_source_id, modified_at, publication',
};

/** Every stored content column (fetch bookkeeping excluded: fetched_at, last_seen_at, batch_id). */
async function storedContent(): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [table, columns] of Object.entries(CONTENT)) {
    out[table] = await stack.sql(`select ${columns} from $directory."${table}" where connection_id = ?::uuid order by id`, [connectionId]);
  }
  return out;
}

beforeAll(async () => {
  // Fixed clock so the simulator's data does not move during the test.
  stack = await PipelineStack.start({ name: 'collector-pipeline', samsaraSimulator: { SIM_VEHICLES: '3', SIM_CLOCK_FACTOR: '0' } });
  ({ apiToken, url: simulatorUrl } = stack.samsara);

  const fleet = await simulatorGet<{ data: { id: string }[] }>('/fleet/vehicles');
  const ids = fleet.data.map((v) => v.id).sort();
  expect(ids).toHaveLength(3);
  approved = ids.slice(0, 2);
  unapproved = ids[2]!;

  connection = await stack.connect({ provider: 'samsara', credentials: { apiToken }, customerId: 'fleet-collect', config: { approvedVehicleIds: approved } });
  ({ connectionId } = connection);
}, 60_000);

afterAll(() => stack?.close());

describe('collectors', () => {
  let first: PublicSync;

  it('completes a sync created over HTTP only through directory receipts, and directory holds exactly the approved vehicles and their trips', async () => {
    first = await connection.createSync({ lookbackDays: LOOKBACK_DAYS });
    const done = await settled(first.id);
    expect(done).toMatchObject({ status: 'completed', progress: 100 });
    expect(done.failureReason).toBeUndefined();

    // Every unit holds a committed directory receipt of this attempt.
    const units = await stack.sql<{ purpose: string; state: string; receipts: string }>(
      `select u.purpose, u.state, (select count(*)::text from $orchestrator.sync_receipt r where r.unit_id = u.id and r.context = 'directory') as receipts
         from $orchestrator.sync_unit u where u.sync_id = ? order by u.seq`,
      [first.id],
    );
    // One unit per purpose and approved vehicle, trips also per one-day slice (decision 0008).
    expect(units.map((u) => u.purpose)).toEqual(['vehicles', 'vehicles', 'groupMemberships', 'groupMemberships', ...Array<string>(2 * LOOKBACK_DAYS).fill('trips')]);
    for (const u of units) expect(u).toMatchObject({ state: 'receipted', receipts: '1' });

    const vehicles = await stack.sql<{ source_id: string; name: string | null }>(`select source_id, name from $directory.vehicle where connection_id = ?::uuid order by source_id`, [connectionId]);
    expect(vehicles.map((v) => v.source_id)).toEqual(approved);
    expect(vehicles.map((v) => v.source_id)).not.toContain(unapproved);
    const groups = await stack.sql<{ source_id: string }>(`select source_id from $directory."group" where connection_id = ?::uuid`, [connectionId]);
    const simGroups = await simulatorGet<{ data: { id: string }[] }>('/tags');
    expect(groups.map((g) => g.source_id).sort()).toEqual(simGroups.data.map((g) => g.id).sort());

    // The trips the provider reports for the approved vehicles in the sync's interval, read directly.
    const direct = createSamsaraAdapter({ provider: 'samsara', baseUrl: simulatorUrl, credentials: { apiToken } });
    const expected: string[] = [];
    for (let cursor: string | null = null, more = true; more; ) {
      const page = await direct.trips({ from: done.startFrom, to: done.requestedAt, vehicleSourceIds: approved, cursor });
      expected.push(...page.items.map((t) => t.sourceId));
      cursor = page.next;
      more = cursor !== null;
    }
    const trips = await stack.sql<{ source_id: string; vehicle_source_id: string }>(`select source_id, vehicle_source_id from $directory.trip where connection_id = ?::uuid`, [connectionId]);
    expect(trips.map((t) => t.source_id).sort()).toEqual(expected.sort());
    expect(expected.length).toBeGreaterThan(0);
    for (const t of trips) expect(approved).toContain(t.vehicle_source_id);

    // Connection health: the collectors' success observations reached the gateway's row.
    const health = await connectionHealth('last_success_at after the first sync', (c) => typeof c.last_success_at === 'string');
    expect(health.last_error_code).toBeNull();
    expect(Date.parse(health.last_success_at!)).toBeGreaterThanOrEqual(Date.parse(done.requestedAt));
    // The directory keeps it per dataset the jobs fed (groupMemberships → groups); nothing here fed drivers.
    const successes = async () =>
      (await stack.sql<{ dataset: string }>(`select dataset from $directory.dataset_health where connection_id = ?::uuid and scope = 'core' and last_success_at is not null order by dataset`, [connectionId])).map((r) => r.dataset);
    await pollUntil(async () => (await successes()).length >= 3, { timeoutMs: 20_000, description: 'dataset health in the directory' });
    expect(await successes()).toEqual(['groups', 'trips', 'vehicles']);
  }, 90_000);

  it('changes no stored content when the same sync runs again (idempotent upserts)', async () => {
    const before = await storedContent();
    const second = await connection.createSync({ lookbackDays: LOOKBACK_DAYS });
    expect(await settled(second.id)).toMatchObject({ status: 'completed', progress: 100 });
    expect(await storedContent()).toEqual(before);
    // The rows were re-read (a newer fetch), not skipped.
    const [fresh] = await stack.sql<{ n: string }>(
      `select count(*)::text as n from $directory.vehicle where connection_id = ?::uuid and fetched_at > ?::timestamptz`,
      [connectionId, second.requestedAt],
    );
    expect(fresh!.n).toBe(String(approved.length));
  }, 90_000);

  it('a unit whose receipt arrives before its collector saves the cursor is no lost lease: no warning, nothing counted (issue 25)', async () => {
    // The race made deterministic: a statement trigger holds every provider-cursor save of the
    // orchestrator's units on an advisory lock this test holds, so a unit's receipt (directory's
    // commit → receipt consumer, which never writes provider_cursor) lands while its final cursor
    // save waits. mutation: CollectorService.afterWrite warning on `receipted` as on `superseded`
    // (the old boolean: any refused write a lost lease) → the warning appears and this test fails.
    const key = [25, randomInt(1, 2 ** 31 - 1)] as const;
    const hold = `"${stack.schemas['sync-orchestrator']}".hold_cursor_saves`;
    await stack.sql(`create function ${hold}() returns trigger language plpgsql as $$ begin perform pg_advisory_xact_lock_shared(${key[0]}, ${key[1]}); return null; end $$`);
    await stack.sql(`create trigger hold_cursor_saves before update of provider_cursor on $orchestrator.sync_unit for each statement execute function ${hold}()`);
    let release: (() => void) | undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let taken: (() => void) | undefined;
    const held = new Promise<void>((resolve) => (taken = resolve));
    const holding = stack.gateway.runtime.orm.em.fork().transactional(async (tx) => {
      await tx.execute('select pg_advisory_xact_lock(?, ?)', [...key]);
      taken?.();
      await released;
    });
    try {
      await held;
      const sync = await connection.createSync({ lookbackDays: LOOKBACK_DAYS });
      await pollUntil(
        async () => {
          const [row] = await stack.sql<{ receipted: number; waiting: number }>(
            `select (select count(*)::int from $orchestrator.sync_unit where sync_id = ? and state = 'receipted') as receipted,
                    (select count(*)::int from pg_locks where locktype = 'advisory' and not granted and classid = ? and objid = ?) as waiting`,
            [sync.id, key[0], key[1]],
          );
          return row!.receipted > 0 && row!.waiting > 0;
        },
        { timeoutMs: 60_000, description: 'a unit receipted while its cursor save waits' },
      );
      release?.();
      await holding;
      expect(await settled(sync.id)).toMatchObject({ status: 'completed', progress: 100 });
      const [fenced] = await stack.sql<{ n: number }>(`select coalesce(sum(fenced_writes), 0)::int as n from $orchestrator.sync_unit where sync_id = ?`, [sync.id]);
      expect(fenced!.n).toBe(0);
      const lost = stack.logLines.flatMap((chunk) => chunk.split('\n')).filter((line) => line.includes('lease lost: late write refused'));
      expect(lost).toEqual([]);
    } finally {
      release?.();
      await holding.catch(() => undefined);
      await stack.sql(`drop trigger hold_cursor_saves on $orchestrator.sync_unit`);
      await stack.sql(`drop function ${hold}()`);
    }
  }, 90_000);

  it('fails the sync with provider_auth_required when the provider credential is revoked', async () => {
    const revoke = await fetch(`${simulatorUrl}/_sim/accounts/${apiToken}/scenarios`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ kind: 'revoke_credential', afterRequests: 0 }]),
    });
    expect(revoke.status).toBe(200);
    const contentBefore = await storedContent();
    const lastSuccessBefore = (await connection.health()).last_success_at;
    expect(typeof lastSuccessBefore).toBe('string');
    try {
      const sync = await connection.createSync({ lookbackDays: LOOKBACK_DAYS });
      expect(await settled(sync.id)).toMatchObject({ status: 'failed', failureReason: 'provider_auth_required' });
      const codes = await stack.sql<{ last_error_code: string | null }>(`select distinct last_error_code from $orchestrator.sync_unit where sync_id = ? and last_error_code is not null`, [sync.id]);
      expect(codes).toEqual([{ last_error_code: 'provider_auth_required' }]);

      // The failure shows as the connection's error code; the last success time stays.
      const failed = await connectionHealth('last_error_code provider_auth_required', (c) => c.last_error_code === 'provider_auth_required');
      expect(failed.last_success_at).toBe(lastSuccessBefore);
      // A provider failure never erases stored data.
      expect(await storedContent()).toEqual(contentBefore);
    } finally {
      await fetch(`${simulatorUrl}/_sim/accounts/${apiToken}/scenarios`, { method: 'DELETE' });
    }
  }, 90_000);

  it('does not roll last_success_at back for an older health observation', async () => {
    // Jobs of the failed sync that had published before it failed still report their success after
    // it (seen once in CI, ~1 s later): read the baseline once the health has stopped moving.
    let before = await connection.health();
    await pollUntil(
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        const now = await connection.health();
        const still = JSON.stringify(now) === JSON.stringify(before);
        before = now;
        return still;
      },
      { timeoutMs: 20_000, intervalMs: 0, description: 'connection health settled' },
    );
    const older: ConnectionHealthV1 = {
      connectionId,
      observedAt: new Date(Date.parse(before.last_success_at!) - 60_000).toISOString(),
      outcome: 'success',
      errorCode: null,
      scope: 'core',
      nextRetryAt: null,
      sequence: '999999999',
    };
    const publisher = await stack.bus('health-test');
    await publisher.publish(EVENTS.connectionHealth, subjectFor(EVENTS.connectionHealth.subject, connectionId), older, { msgId: connectionHealthMsgId(older) });
    // Wait until the gateway handled it (its debug line names the sequence), then read.
    await pollUntil(async () => stack.logLines.join('').includes('"sequence":"999999999","applied":false'), { timeoutMs: 10_000, description: 'older observation handled' });
    expect(await connection.health()).toMatchObject({ last_success_at: before.last_success_at, last_error_code: before.last_error_code });
  }, 60_000);

  it('logs no provider credential', () => {
    expect(stack.logLines.join('')).not.toContain(apiToken);
  });
});
