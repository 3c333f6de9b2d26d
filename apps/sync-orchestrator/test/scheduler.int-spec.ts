/**
 * Scheduled collection on the real PostgreSQL and NATS with a two-second window: gateway (the
 * connection's configuration events, provider credentials, the public sync API over HTTP), TWO
 * sync-orchestrator processes on one schema (each with its scheduler, collectors and receipt
 * consumer), directory, telemetry-ingest, fault-feed, and the Samsara simulator as its own process.
 *
 * Shown from outside the scheduler:
 * - a closed unified-collection gate creates no run (the schedule records why);
 * - once open, the two schedulers create one run per window between them: every run starts exactly
 *   where the previous one ended (a second run for one window would start at the same point), and
 *   the runs complete from directory's receipts with the approved vehicles stored;
 * - scheduled runs are invisible to GET /v1/syncs and GET /v1/syncs/{id}, and never the "previous
 *   sync" of a public sync's default startFrom;
 * - pausing the connection stops a run in flight (failed `connection_paused`, while the provider is
 *   slowed down so it is surely still running) and creates no further run, while the public reads
 *   keep answering; after unpausing, the next run covers the stopped run's interval again;
 * - with signals selected, a scheduled run also collects latest and history telemetry of the
 *   selected metric and the faults of the approved vehicle, receipted by telemetry-ingest and
 *   fault-feed (one vehicle, odometer and faults).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pollUntil } from '@switchyard/testing';
import { CollectionScheduler, SCHEDULED_ORIGIN, type TickReport } from '../src/index.js';
import { PipelineStack, type PipelineConnection } from './pipeline-stack.js';

const WINDOW_MS = 2_000;

let stack: PipelineStack;
let connection: PipelineConnection;
let connectionId: string;
let approved: string[];

interface Run {
  id: string;
  status: string;
  origin: string;
  application_id: string | null;
  start_from: string;
  interval_end: string;
  requested_at: string;
  failure_reason: string | null;
}

interface Schedule {
  last_decision: string | null;
  last_decided_at: string | null;
  last_sync_id: string | null;
}

const iso = (column: string, alias = column) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as ${alias}`;

async function scheduledRuns(): Promise<Run[]> {
  return stack.sql<Run>(
    `select id, status, origin, application_id, ${iso('start_from')}, ${iso('interval_end')}, ${iso('requested_at')}, failure_reason
       from $orchestrator.sync where connection_id = ?::uuid and origin = ? order by requested_at, id`,
    [connectionId, SCHEDULED_ORIGIN],
  );
}

async function schedule(): Promise<Schedule | undefined> {
  const [row] = await stack.sql<Schedule>(`select last_decision, ${iso('last_decided_at')}, last_sync_id from $orchestrator.sync_schedule where connection_id = ?::uuid`, [connectionId]);
  return row;
}

/** The Samsara simulator's control API of the account: what the provider answers next. */
const scenariosUrl = () => `${stack.samsara.url}/_sim/accounts/${stack.samsara.apiToken}/scenarios`;

/** Waits until the schedule decided `decision` at least `times` more times after `since` (ISO), i.e. several windows passed. */
async function decided(decision: string, since: string, windows = 2): Promise<void> {
  const until = Date.parse(since) + windows * WINDOW_MS;
  await pollUntil(
    async () => {
      const row = await schedule();
      return row?.last_decision === decision && row.last_decided_at !== null && Date.parse(row.last_decided_at) >= until;
    },
    { timeoutMs: 30_000, intervalMs: 200, description: `schedule decided ${decision} over ${windows} windows` },
  );
}

async function dbNow(): Promise<string> {
  const [row] = await stack.sql<{ now: string }>(`select ${iso('clock_timestamp()', 'now')}`);
  return row!.now;
}

/**
 * Runs sorted by requestedAt: each starts where the previous one ended (or, after a failed one,
 * where that one started). Two runs for one window would both start at the same point, so the
 * second would break the chain.
 */
function expectContiguous(runs: readonly Run[]): void {
  for (let i = 1; i < runs.length; i++) {
    const previous = runs[i - 1]!;
    expect({ run: runs[i]!.id, startFrom: runs[i]!.start_from }).toEqual({ run: runs[i]!.id, startFrom: previous.status === 'failed' ? previous.start_from : previous.interval_end });
  }
}

beforeAll(async () => {
  stack = await PipelineStack.start({
    name: 'schedule',
    contexts: ['directory', 'telemetry-ingest', 'fault-feed'],
    // The simulator's clock runs with the wall clock: scheduled windows end at the database's now,
    // and a frozen simulator would refuse a telemetry-history window after its own now (HTTP 400).
    samsaraSimulator: { SIM_VEHICLES: '3' },
    logLevel: 'warn',
    // Two orchestrator processes' worth of services on one schema, each with its own scheduler loop.
    orchestrators: 2,
    scheduler: true,
    orchestratorEnv: { SCHEDULE_WINDOW_MS: String(WINDOW_MS), SCHEDULER_TICK_MS: '200' },
  });
  const { url: simulatorUrl, apiToken } = stack.samsara;

  const fleet = await fetch(`${simulatorUrl}/fleet/vehicles`, { headers: { authorization: `Bearer ${apiToken}` } });
  approved = ((await fleet.json()) as { data: { id: string }[] }).data
    .map((v) => v.id)
    .sort()
    .slice(0, 2);
  // A new connection: active, vehicles and trips of the approved vehicles, but the unified-collection gate closed.
  connection = await stack.connect({
    provider: 'samsara',
    credentials: { apiToken },
    customerId: 'fleet-schedule',
    config: { unifiedCollection: false, purposes: { vehicles: true, groupMemberships: false, trips: true }, approvedVehicleIds: approved },
  });
  ({ connectionId } = connection);
}, 90_000);

// Closing waits for collector jobs still inside a slowed provider request.
afterAll(() => stack?.close(), 60_000);

describe('scheduled collection', () => {
  it('creates no run while the unified-collection gate is closed, and records why', async () => {
    await decided('collection_gate_closed', await dbNow());
    expect(await scheduledRuns()).toEqual([]);
  }, 60_000);

  it('creates exactly one run per window across two scheduler processes, each covering [previous end, now), completed from receipts', async () => {
    const opened = await dbNow();
    await connection.configure({ unifiedCollection: true });
    let runs: Run[] = [];
    await pollUntil(
      async () => {
        runs = await scheduledRuns();
        return runs.filter((r) => r.status === 'completed').length >= 4;
      },
      { timeoutMs: 60_000, intervalMs: 250, description: 'four completed scheduled runs' },
    );
    for (const run of runs) expect(run).toMatchObject({ origin: SCHEDULED_ORIGIN, application_id: null });
    // The first run reaches back one window (the default first lookback) from its request time.
    expect(Date.parse(runs[0]!.interval_end) - Date.parse(runs[0]!.start_from)).toBe(WINDOW_MS);
    expect(Date.parse(runs[0]!.requested_at)).toBeGreaterThanOrEqual(Date.parse(opened));
    // No run was created twice for one window: each starts where the one before ended.
    expectContiguous(runs);
    expect(runs.every((r) => r.status !== 'failed')).toBe(true);

    // Completed only through directory's receipts: every unit receipted, and the vehicles stored.
    const pending = await stack.sql<{ n: string }>(
      `select count(*)::text as n from $orchestrator.sync_unit u join $orchestrator.sync s on s.id = u.sync_id
        where s.origin = ? and s.status = 'completed' and u.state <> 'receipted'`,
      [SCHEDULED_ORIGIN],
    );
    expect(pending[0]!.n).toBe('0');
    const stored = await stack.sql<{ source_id: string }>(`select source_id from $directory.vehicle where connection_id = ?::uuid order by source_id`, [connectionId]);
    expect(stored.map((v) => v.source_id)).toEqual(approved);
  }, 90_000);

  it('hides scheduled runs from the public sync API and from the default startFrom', async () => {
    const [run] = await scheduledRuns();
    const list = await connection.request('GET', '/v1/syncs');
    expect(list).toMatchObject({ status: 200, body: { syncs: [] } });
    expect(await connection.request('GET', `/v1/syncs/${run!.id}`)).toMatchObject({ status: 404 });
    // The connection's first public sync starts now, although scheduled runs exist before it.
    const created = await connection.request('POST', '/v1/syncs', {});
    expect(created.status).toBe(201);
    const sync = created.body as { id: string; requestedAt: string; startFrom: string };
    expect(sync.startFrom).toBe(sync.requestedAt);
    const after = await connection.request('GET', '/v1/syncs');
    expect((after.body as { syncs: { id: string }[] }).syncs.map((s) => s.id)).toEqual([sync.id]);
  }, 60_000);

  it('stops a run in flight when the connection is paused, creates none while paused, and keeps the public reads working', async () => {
    // Provider answers slower than any pause takes to apply keep the next scheduled run surely in flight.
    const slow = await fetch(scenariosUrl(), {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ kind: 'slow', requests: 1_000, delayMs: 20_000 }]),
    });
    expect(slow.status).toBe(200);
    // Only a run created after this point makes all its provider requests under the scenario.
    const slowed = await dbNow();
    try {
      let inFlight: Run | undefined;
      await pollUntil(
        async () => {
          inFlight = (await scheduledRuns()).find((r) => r.status === 'in_progress' && Date.parse(r.requested_at) > Date.parse(slowed));
          return inFlight !== undefined;
        },
        { timeoutMs: 30_000, intervalMs: 100, description: 'a scheduled run created under the slow scenario in progress' },
      );
      await connection.configure({ status: 'paused' });
      const paused = await dbNow();
      await pollUntil(async () => (await scheduledRuns()).find((r) => r.id === inFlight!.id)?.status === 'failed', { timeoutMs: 20_000, description: 'the in-flight run stopped' });
      const stopped = (await scheduledRuns()).find((r) => r.id === inFlight!.id)!;
      expect(stopped).toMatchObject({ status: 'failed', failure_reason: 'connection_paused' });

      await decided('connection_paused', paused);
      const runs = await scheduledRuns();
      expect(runs.filter((r) => Date.parse(r.requested_at) > Date.parse(paused))).toEqual([]);
      expect(runs.filter((r) => r.status === 'requested' || r.status === 'in_progress')).toEqual([]);
      // Reads stay available while collection is paused.
      expect(await connection.request('GET', '/v1/syncs')).toMatchObject({ status: 200 });
    } finally {
      await fetch(scenariosUrl(), { method: 'DELETE' });
    }
  }, 90_000);

  it('resumes after unpausing, covering the stopped run again', async () => {
    const before = await scheduledRuns();
    const stopped = before.at(-1)!;
    expect(stopped.status).toBe('failed');
    await connection.configure({ status: 'active' });
    let resumed: Run | undefined;
    await pollUntil(
      async () => {
        resumed = (await scheduledRuns()).find((r) => Date.parse(r.requested_at) > Date.parse(stopped.requested_at));
        return resumed?.status === 'completed';
      },
      { timeoutMs: 60_000, intervalMs: 250, description: 'a scheduled run after unpausing completed' },
    );
    expect(resumed!.start_from).toBe(stopped.start_from);
    expectContiguous(await scheduledRuns());
  }, 90_000);

  it('decides a window once when both schedulers tick at the same instant', async () => {
    const [a, b] = stack.orchestrators.map((o) => o.app.get(CollectionScheduler));
    const ofConnection = (r: TickReport) => [...r.created, ...r.skipped].filter((d) => d.connectionId === connectionId).length;
    let decisions = 0;
    for (let round = 0; round < 8; round++) {
      // The window becomes due now; both processes race for it (their own loops may, too).
      await stack.sql(`update $orchestrator.sync_schedule set next_due_at = clock_timestamp() where connection_id = ?::uuid`, [connectionId]);
      const [ra, rb] = await Promise.all([a!.tick(), b!.tick()]);
      const both = ofConnection(ra) + ofConnection(rb);
      expect(both).toBeLessThanOrEqual(1);
      decisions += both;
    }
    expect(decisions).toBeGreaterThan(0);
    expectContiguous(await scheduledRuns());
  }, 60_000);

  it('collects latest and history telemetry of the selected signal and the faults of the approved vehicle into telemetry-ingest and fault-feed', async () => {
    const vehicle = approved[0]!;
    const since = await dbNow();
    await connection.configure({ approvedVehicleIds: [vehicle], selectedSignals: ['odometer', 'faults'] });
    let run: { id: string; purposes: string[] } | undefined;
    await pollUntil(
      async () => {
        [run] = await stack.sql<{ id: string; purposes: string[] }>(
          `select id, purposes from $orchestrator.sync where connection_id = ?::uuid and origin = ? and status = 'completed' and requested_at > ?::timestamptz and 'faults' = any(purposes) order by requested_at limit 1`,
          [connectionId, SCHEDULED_ORIGIN, since],
        );
        return run !== undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, description: 'a completed scheduled run with the selected signals' },
    );
    expect(run!.purposes).toEqual(['vehicles', 'trips', 'drivers', 'groups', 'telemetryLatest', 'telemetryHistory', 'faults']);
    // Completed means telemetry-ingest and fault-feed receipted every unit of it: one vehicle, no unit for another.
    const units = await stack.sql<{ purpose: string; vehicle_source_id: string | null }>(`select purpose, vehicle_source_id from $orchestrator.sync_unit where sync_id = ? and purpose in ('telemetryLatest', 'faults')`, [run!.id]);
    expect(units.map((u) => [u.purpose, u.vehicle_source_id]).sort()).toEqual([
      ['faults', vehicle],
      ['telemetryLatest', vehicle],
    ]);
    // The selected metric only, stored by telemetry-ingest; fault occurrences (if the vehicle has any) only of the approved vehicle.
    const latest = await stack.sql<{ metric: string }>(`select distinct metric from $telemetry.latest_readings where connection_id = ?::uuid`, [connectionId]);
    expect(latest.map((r) => r.metric)).toEqual(['odometer']);
    const faults = await stack.sql<{ vehicle_source_id: string }>(`select distinct vehicle_source_id from $faults.fault_occurrence where connection_id = ?::uuid`, [connectionId]);
    expect(faults.every((f) => f.vehicle_source_id === vehicle)).toBe(true);
  }, 90_000);
});
