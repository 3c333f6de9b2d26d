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
 *   fault-feed (one vehicle, odometer and faults);
 * - a window whose plan is over the run limit (lowered here to SCHEDULE_RUN_MAX_UNITS=10 instead of
 *   approving 10,000 units' worth of vehicles; the production default is the 10,000-unit plan
 *   limit) is created as several runs: every approved unit planned once, each run within the
 *   limit, all completed, and the next window created only after the last part settled;
 * - the next window is skipped (`previous_run_open`) while ANY part of the last window is open —
 *   the last part alone, set back by hand — and a schedule row from before migration 0010 (no
 *   parts column) is read as the one-run window of `last_sync_id`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pollUntil } from '@switchyard/testing';
import { CollectionScheduler, SCHEDULED_ORIGIN, type TickReport } from '@switchyard/sync-orchestrator';
import { PipelineStack, type PipelineConnection } from './pipeline-stack.js';

const WINDOW_MS = 2_000;
/** Units of one scheduled run: the earlier scenarios' windows (at most 7 units) stay one run; five vehicles with signals (27 units) need three. */
const RUN_MAX_UNITS = 10;
const SIM_VEHICLES = 5;

let stack: PipelineStack;
let connection: PipelineConnection;
let connectionId: string;
let approved: string[];
let fleetIds: string[];

interface Run {
  id: string;
  status: string;
  completed_at: string | null;
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
  last_sync_ids: string[] | null;
}

const iso = (column: string, alias = column) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as ${alias}`;

async function scheduledRuns(): Promise<Run[]> {
  return stack.sql<Run>(`select id, status, ${iso('completed_at')}, origin, application_id, ${iso('start_from')}, ${iso('interval_end')}, ${iso('requested_at')}, failure_reason
       from $orchestrator.sync where connection_id = ?::uuid and origin = ? order by requested_at, id`,
    [connectionId, SCHEDULED_ORIGIN],
  );
}

async function schedule(): Promise<Schedule | undefined> {
  const [row] = await stack.sql<Schedule>(`select last_decision, ${iso('last_decided_at')}, last_sync_id, last_sync_ids from $orchestrator.sync_schedule where connection_id = ?::uuid`, [
    connectionId,
  ]);
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
 * Makes the connection's window due, lets both schedulers tick, and holds the schedule back again
 * (an hour ahead) so the loops decide nothing more until the next call; returns the decision.
 */
async function decideNow(): Promise<Schedule> {
  const before = await dbNow();
  await stack.sql(`update $orchestrator.sync_schedule set next_due_at = clock_timestamp() where connection_id = ?::uuid`, [connectionId]);
  await Promise.all(stack.orchestrators.map((o) => o.app.get(CollectionScheduler).tick()));
  await holdSchedule();
  const row = (await schedule())!;
  expect(Date.parse(row.last_decided_at!)).toBeGreaterThanOrEqual(Date.parse(before));
  return row;
}

async function holdSchedule(): Promise<void> {
  await stack.sql(`update $orchestrator.sync_schedule set next_due_at = clock_timestamp() + interval '1 hour' where connection_id = ?::uuid`, [connectionId]);
}

async function setStatus(syncId: string, status: string): Promise<void> {
  await stack.sql(`update $orchestrator.sync set status = ? where id = ?`, [status, syncId]);
}

/** Scheduled runs grouped by window: the runs (parts) one decision created share its requestedAt, in plan (id) order. */
function windowsOf(runs: readonly Run[]): Run[][] {
  const windows = new Map<string, Run[]>();
  for (const run of runs) windows.set(run.requested_at, [...(windows.get(run.requested_at) ?? []), run]);
  return [...windows.values()];
}

/**
 * Windows sorted by requestedAt: all parts of one share its interval, and each window starts where
 * the previous one ended (or, after one with a failed part, where that one started). Two
 * decisions for one window would both start at the same point, so the second would break the chain.
 */
function expectContiguous(runs: readonly Run[]): void {
  const windows = windowsOf(runs);
  for (const [i, parts] of windows.entries()) {
    const first = parts[0]!;
    for (const part of parts) expect({ part: part.id, start: part.start_from, end: part.interval_end }).toEqual({ part: part.id, start: first.start_from, end: first.interval_end });
    if (i === 0) continue;
    const previous = windows[i - 1]!;
    const start = previous.some((r) => r.status === 'failed') ? previous[0]!.start_from : previous[0]!.interval_end;
    expect({ window: first.requested_at, startFrom: first.start_from }).toEqual({ window: first.requested_at, startFrom: start });
  }
}

beforeAll(async () => {
  stack = await PipelineStack.start({
    name: 'schedule',
    contexts: ['directory', 'telemetry-ingest', 'fault-feed'],
    // The simulator's clock runs with the wall clock: scheduled windows end at the database's now,
    // and a frozen simulator would refuse a telemetry-history window after its own now (HTTP 400).
    samsaraSimulator: { SIM_VEHICLES: String(SIM_VEHICLES) },
    logLevel: 'warn',
    // Two orchestrator processes' worth of services on one schema, each with its own scheduler loop.
    orchestrators: 2,
    scheduler: true,
    orchestratorEnv: { SCHEDULE_WINDOW_MS: String(WINDOW_MS), SCHEDULER_TICK_MS: '200', SCHEDULE_RUN_MAX_UNITS: String(RUN_MAX_UNITS) },
  });
  const { url: simulatorUrl, apiToken } = stack.samsara;

  const fleet = await fetch(`${simulatorUrl}/fleet/vehicles`, { headers: { authorization: `Bearer ${apiToken}` } });
  fleetIds = ((await fleet.json()) as { data: { id: string }[] }).data.map((v) => v.id).sort();
  expect(fleetIds).toHaveLength(SIM_VEHICLES);
  approved = fleetIds.slice(0, 2);
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
    const pending = await stack.sql<{ n: string }>(`select count(*)::text as n from $orchestrator.sync_unit u join $orchestrator.sync s on s.id = u.sync_id
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
    try {
      // A run held by the slow provider: in progress for 3 s on end (an unslowed run takes well under
      // a second of provider time). It is either one created under the scenario, or one that was in
      // flight when the scenario began — which then holds back every new window (previous_run_open),
      // so waiting only for a run created after this point could outlast the poll on a loaded machine.
      let inFlight: Run | undefined;
      const inProgressSince = new Map<string, number>();
      await pollUntil(
        async () => {
          const open = (await scheduledRuns()).filter((r) => r.status === 'in_progress');
          for (const id of [...inProgressSince.keys()]) if (!open.some((r) => r.id === id)) inProgressSince.delete(id);
          for (const r of open) if (!inProgressSince.has(r.id)) inProgressSince.set(r.id, Date.now());
          inFlight = open.find((r) => Date.now() - inProgressSince.get(r.id)! >= 3_000);
          return inFlight !== undefined;
        },
        { timeoutMs: 30_000, intervalMs: 100, description: 'a scheduled run held in progress by the slow scenario' },
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
        [run] = await stack.sql<{ id: string; purposes: string[] }>(`select id, purposes from $orchestrator.sync where connection_id = ?::uuid and origin = ? and status = 'completed' and requested_at > ?::timestamptz and 'faults' = any(purposes) order by requested_at limit 1`,
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

  it('splits a window over the run limit into runs that plan every approved unit once, each within the limit, all completed', async () => {
    const since = await dbNow();
    await connection.configure({ approvedVehicleIds: fleetIds, selectedSignals: ['odometer', 'faults'] });
    let split: Run[] = [];
    await pollUntil(
      async () => {
        const windows = windowsOf(await scheduledRuns()).filter((w) => Date.parse(w[0]!.requested_at) > Date.parse(since) && w.length > 1);
        split = windows[0] ?? [];
        return split.length > 0 && split.every((r) => r.status === 'completed' || r.status === 'failed');
      },
      { timeoutMs: 60_000, intervalMs: 250, description: 'a split scheduled window with every part settled' },
    );
    expect(split.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
    const { start_from: start, interval_end: end } = split[0]!;
    const units = await stack.sql<{ sync_id: string; purpose: string; vehicle_source_id: string | null; window_start: string | null; window_end: string | null; state: string }>(`select sync_id, purpose, vehicle_source_id, ${iso('window_start')}, ${iso('window_end')}, state from $orchestrator.sync_unit
        where sync_id in (${split.map(() => '?').join(', ')}) order by sync_id, seq`,
      split.map((r) => r.id),
    );
    // Every unit of the window's plan (one day slice: a two-second window), once across the parts: a duplicate or a missing one changes the list.
    const expected = [
      ['drivers', null, null, null],
      ['groups', null, null, null],
      ...fleetIds.flatMap((v) => [
        ['vehicles', v, null, null],
        ['telemetryLatest', v, null, null],
        ['faults', v, start, end],
        ['trips', v, start, end],
        ['telemetryHistory', v, start, end],
      ]),
    ];
    const key = (u: readonly unknown[]) => JSON.stringify(u);
    expect(units.map((u) => key([u.purpose, u.vehicle_source_id, u.window_start, u.window_end])).sort()).toEqual(expected.map(key).sort());
    // Cut at vehicle boundaries in id order, each part within the limit: drivers, groups and one vehicle (7), then two vehicles (10) twice.
    const ofPart = split.map((r) => units.filter((u) => u.sync_id === r.id));
    expect(ofPart.map((part) => part.length)).toEqual([7, 10, 10]);
    expect(ofPart.map((part) => [...new Set(part.map((u) => u.vehicle_source_id))])).toEqual([[null, fleetIds[0]], fleetIds.slice(1, 3), fleetIds.slice(3, 5)]);
    const purposes = await stack.sql<{ purposes: string[] }>(`select purposes from $orchestrator.sync where id in (${split.map(() => '?').join(', ')}) order by id`, split.map((r) => r.id));
    expect(purposes.map((r) => r.purposes)).toEqual([
      ['vehicles', 'trips', 'drivers', 'groups', 'telemetryLatest', 'telemetryHistory', 'faults'],
      ['vehicles', 'trips', 'telemetryLatest', 'telemetryHistory', 'faults'],
      ['vehicles', 'trips', 'telemetryLatest', 'telemetryHistory', 'faults'],
    ]);
    // Completed only through receipts of every unit; directory stored every approved vehicle.
    expect(units.every((u) => u.state === 'receipted')).toBe(true);
    const stored = await stack.sql<{ source_id: string }>(`select source_id from $directory.vehicle where connection_id = ?::uuid order by source_id`, [connectionId]);
    expect(stored.map((v) => v.source_id)).toEqual(fleetIds);

    // The next window waits for the split window's last part (previous_run_open while any part is open) and starts where it ended.
    let next: Run[] | undefined;
    await pollUntil(
      async () => {
        next = windowsOf(await scheduledRuns()).find((w) => Date.parse(w[0]!.requested_at) > Date.parse(split[0]!.requested_at));
        return next !== undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, description: 'the window after the split one' },
    );
    const settled = Math.max(...split.map((r) => Date.parse(r.completed_at!)));
    expect(Date.parse(next![0]!.requested_at)).toBeGreaterThanOrEqual(settled);
    expect(next!.every((r) => r.start_from === end)).toBe(true);
    expectContiguous(await scheduledRuns());
  }, 120_000);

  it('skips the next window while any part of the last one is open, and reads a schedule row without parts as a one-run window', async () => {
    await holdSchedule();
    // The last window: all its parts, in plan order, settled.
    let parts: Run[] = [];
    await pollUntil(
      async () => {
        const row = await schedule();
        parts = (await scheduledRuns()).filter((r) => row?.last_sync_ids?.includes(r.id));
        return parts.length === row?.last_sync_ids?.length && parts.every((r) => r.status === 'completed');
      },
      { timeoutMs: 30_000, intervalMs: 250, description: 'the last window settled' },
    );
    expect(parts).toHaveLength(3);
    expect((await schedule())!.last_sync_id).toBe(parts[0]!.id);
    // Only the LAST part open (put back by hand: a slow provider would keep every part open, which a check of the first part alone would pass too).
    await setStatus(parts[2]!.id, 'in_progress');
    expect(await decideNow()).toMatchObject({ last_decision: 'previous_run_open', last_sync_ids: parts.map((r) => r.id) });
    // A row written before migration 0010 (no parts column): the window is its one run, last_sync_id.
    await stack.sql(`update $orchestrator.sync_schedule set last_sync_ids = null where connection_id = ?::uuid`, [connectionId]);
    await setStatus(parts[2]!.id, 'completed');
    await setStatus(parts[0]!.id, 'in_progress');
    expect(await decideNow()).toMatchObject({ last_decision: 'previous_run_open', last_sync_ids: null });
    // All settled: the next window is created, starting where the window ended.
    await setStatus(parts[0]!.id, 'completed');
    const created = await decideNow();
    expect(created.last_decision).toBe('created');
    const next = (await scheduledRuns()).filter((r) => created.last_sync_ids!.includes(r.id));
    expect(next.map((r) => r.id)).toEqual(created.last_sync_ids);
    expect(next[0]!.id).toBe(created.last_sync_id);
    expect(next.every((r) => r.start_from === parts[0]!.interval_end)).toBe(true);
  }, 60_000);
});
