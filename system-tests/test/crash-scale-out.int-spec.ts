/**
 * The crash test and the two-of-each scale-out test (issues 4 and 15), on real processes,
 * PostgreSQL and NATS. One Samsara simulator with a frozen clock serves every run the same fleet;
 * every run is a separate deployment (own schemas and namespace) holding the same connection id and
 * syncing the same interval (fixed startFrom, before the simulator's clock), so their canonical dumps
 * of every ingesting context must be byte-identical. A round is one public sync (vehicles, group
 * memberships, trips → directory) and one internal run (INTERNAL_PURPOSES: odometer history and
 * latest readings → telemetry-ingest, fault snapshots → fault-feed) over a fixed one-day window
 * before the frozen clock, so the dumps of all three schemas are compared:
 * - reference: one process of each context, no faults, two rounds; the dump after the second equals
 *   the dump after the first (re-collecting the same interval is idempotent, which lets the crash
 *   run use as many rounds as its crashes need);
 * - crash: ≥ CRASHES_PER_POINT SIGKILLs at every named crash point (libs/service-kit crash-points.ts)
 *   — collector after-fetch / after-publish and the receipt consumer's receipt-after-ledger in the
 *   orchestrator, in-commit / after-commit-before-ack in directory, telemetry-ingest and fault-feed,
 *   relay-after-publish in fault-feed's outbox relay — at hits drawn from a printed seed
 *   (SWITCHYARD_CRASH_SEED replays the draws; timing still varies). One supervisor per context keeps
 *   one process of it alive, spawned with a plan for every point still short of its count, and
 *   respawns it when a crash point kills it; rounds are run until every point has its crashes. Before
 *   that, one orchestrator is stopped (SIGSTOP) right after a publish while holding leases until
 *   another re-leased the unit it was in the middle of, then resumed: its late writes under the old
 *   token are refused by the token alone and counted in the units' fenced_writes (the zombie step;
 *   mutation named there). A round fails when it stops making progress (ROUND_STALL_MS), naming
 *   what its open units wait for. Afterwards the dump equals
 *   the reference, no message was dead-lettered and every fault transition reached the FAULTS
 *   stream exactly once;
 * - scheduler crash: a deployment of scheduler-only orchestrators (collectors off, 1 s windows)
 *   killed ≥ CRASHES_PER_POINT times at scheduler-before-commit; its connection still got exactly
 *   one window of scheduled runs (the later windows skip: the first run stays open) — no run of a
 *   rolled-back decision survived; runs concurrently with the crash test;
 * - scale-out: two processes each of sync-orchestrator, directory, telemetry-ingest and fault-feed
 *   started at once on fresh schemas (concurrent migrations), one round; both collectors leased
 *   units, both processes of each ingesting context committed batches, no batch was committed
 *   twice, and the dump equals the reference.
 * Every wait has a timeout and names what did not happen. Needs `npm run build` (the processes run
 * the built dist).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { SecretBox } from '@switchyard/gateway';
import { DUPLICATE_WINDOW_MS } from '@switchyard/messaging';
import type { CrashPoint } from '@switchyard/service-kit';
import { dumpDifference, pollUntil, resolveTestServices, spawnSimulator, waitUntilStopped, type NodeProcess } from '@switchyard/testing';
import { INGEST_APPS, logEntries, ownedBy, ProcessDeployment, type SharedFleet } from './process-deployment.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Short leases so a killed or stopped collector's units are re-leased within seconds. */
const ORCHESTRATOR_ENV = { LEASE_MS: '3000', POLL_MS: '100' };
/**
 * Ack wait of directory's and telemetry-ingest's ingest durables in the crash runs: the minimum
 * INGEST_ACK_WAIT_MS (5 s, default 60 s), so the batches a killed process held come back within
 * seconds. Safe although short: handling a batch takes milliseconds, a long one is kept alive by the
 * delivery runner's in-progress beat, and a batch redelivered while another process still works on
 * it blocks on the ingest ledger's primary key and then gets the stored receipt (one commit per
 * batch, ingest-ledger.repository.ts claim).
 */
const INGEST_ACK_WAIT_MS = 5_000;
/**
 * Fault-feed's ack wait (30 s) while relay kills are still to come: its process is also killed at
 * relay-after-publish, which it passes after a commit before the ack (the outbox flush) as well as
 * on its poll, while it restarts every few seconds through a chain of 20 relay kills. A batch
 * redelivered into that chain is killed again at each arrival, so its deliveries grow by about
 * (chain length / ack wait) on top of its share of the ≤ 3 ingest kills a round. With 15 s a batch
 * needed up to 7 deliveries in a passing run and one run dead-lettered a batch (11th arrival, past
 * maxDeliver 10); 30 s halves the chain's share. The run prints the most deliveries a handled batch
 * needed per context.
 */
const FAULT_FEED_ACK_WAIT_MS = 30_000;
/** Crashes each named crash point must get (issue 15). SWITCHYARD_CRASHES_PER_POINT lowers it for a quick local look only. */
const CRASHES_PER_POINT = Number(process.env.SWITCHYARD_CRASHES_PER_POINT ?? 20);
/**
 * In-commit / after-commit-before-ack kills of one ingest context per round. Each kill of an ingest
 * process makes every batch it held come back with its delivery count raised; a round's batches are
 * new ones (new ids), so ≤ 3 kills per context per round keeps a batch at ≤ 4 deliveries from them,
 * leaving room below the durable's maxDeliver of 10 for fault-feed's relay kills (see
 * FAULT_FEED_ACK_WAIT_MS); past it a batch is dead-lettered, and the test asserts the DLQ is empty,
 * so an exhausted budget fails it rather than hides. With 4, fault-feed batches needed up to 7
 * deliveries in passing runs.
 */
const INGEST_KILLS_PER_ROUND = 3;
/** Rounds the crash run may use before it reports the points still short of their crashes. */
const MAX_ROUNDS = 20;
/**
 * How long a crash round may go without progress — a unit receipted, a batch receipt committed in
 * a unit's ledger, a crash — before it fails, naming its open units. Not a budget for the whole
 * round (it was 240 s): every respawn costs a full process start, 1-3 s on an idle machine and
 * 10-20 s at load 15, and a round waits on chains of them — round 1 on the 20 fault-feed relay
 * kills, one start each, before fault-feed commits a batch; a receipt redelivered into processes
 * dying at receipt-after-ledger, 30 s (the receipts ack wait) plus a start per link — so a fixed
 * budget measured the machine's load, while a hang (a unit waiting for receipts that never come,
 * a dead-lettered batch) stops all three signals and still fails here.
 */
const ROUND_STALL_MS = 150_000;

let fleet: SharedFleet;
let simulator: NodeProcess | undefined;
let reference: string;
/** Batches each ingesting context committed in one reference round. */
const referenceBatches: Partial<Record<(typeof INGEST_APPS)[number], number>> = {};
/** Fault transitions of the reference (each must reach the FAULTS stream once). */
let referenceTransitions = 0;

/**
 * Hits are drawn from a seed (SWITCHYARD_CRASH_SEED to replay one; else random, printed); every
 * supervisor draws from its own stream (seed + its index), so one supervisor's draws do not depend
 * on how the others' interleave.
 */
const seed = Number(process.env.SWITCHYARD_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
function mulberry32(a: number): () => number {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const deployments: ProcessDeployment[] = [];

function deployment(name: string, orchestratorEnv: Record<string, string> = {}): ProcessDeployment {
  const created = new ProcessDeployment(fleet, name, { ...ORCHESTRATOR_ENV, ...orchestratorEnv }, { INGEST_ACK_WAIT_MS: String(INGEST_ACK_WAIT_MS) });
  deployments.push(created);
  return created;
}

async function expectSameAsReference(run: ProcessDeployment): Promise<void> {
  const dump = await run.dump();
  const difference = dumpDifference(reference, dump);
  expect(difference).toBe('');
  expect(dump).toBe(reference);
}

/**
 * How a round's wait ends: after a fixed time (the reference: no crashes), or — with crashes going
 * on — once it made no progress for `stallMs` (see ROUND_STALL_MS); `crashes` counts the kills so far.
 */
type RoundWait = { readonly timeoutMs: number } | { readonly stallMs: number; readonly crashes: () => number };

/** One round: a public sync and an internal run; resolves once both completed (fails on a failed one). */
async function round(run: ProcessDeployment, wait: RoundWait, abort?: Promise<never>): Promise<void> {
  const syncId = await run.createSync();
  const internalId = await run.createInternalRun();
  await settle(run, syncId, internalId, wait, abort);
}

async function settle(run: ProcessDeployment, syncId: string, internalId: string, wait: RoundWait, abort?: Promise<never>): Promise<void> {
  const settled = (async () => {
    if ('stallMs' in wait) await whileProgressing(run, [syncId, internalId], wait.stallMs, wait.crashes);
    // Closed by now when progress was watched: these only read the outcome.
    const timeoutMs = 'timeoutMs' in wait ? wait.timeoutMs : 30_000;
    const sync = await run.settled(syncId, timeoutMs);
    expect(sync).toMatchObject({ status: 'completed', progress: 100 });
    expect(sync.failureReason).toBeUndefined();
    expect(await run.settledInternal(internalId, timeoutMs)).toMatchObject({ status: 'completed', failureReason: null });
  })();
  await (abort ? Promise.race([settled, abort]) : settled);
}

/**
 * Resolves once none of `syncIds` is open in the orchestrator; fails when `stallMs` pass without
 * a unit of them receipted, a batch receipt of them committed or a crash, with what the open units
 * wait for (lease, receipt wait, pending batches, last error) and the dead letters.
 */
async function whileProgressing(run: ProcessDeployment, syncIds: readonly string[], stallMs: number, crashes: () => number): Promise<void> {
  const schema = run.schemas['sync-orchestrator'];
  let seen = '';
  let since = Date.now();
  for (;;) {
    const [row] = await run.sql<{ open: number; receipted: number; committed: number }>(
      `select (select count(*)::int from "${schema}".sync where id in (?) and status in ('requested', 'in_progress')) as open,
              (select count(*)::int from "${schema}".sync_unit where sync_id in (?) and state = 'receipted') as receipted,
              (select count(*)::int from "${schema}".sync_unit_batch b join "${schema}".sync_unit u on u.id = b.unit_id
                where u.sync_id in (?) and b.committed_at is not null) as committed`,
      [syncIds, syncIds, syncIds],
    );
    if (row?.open === 0) return;
    const progress = `${row?.receipted}/${row?.committed}/${crashes()}`;
    if (progress !== seen) [seen, since] = [progress, Date.now()];
    else if (Date.now() - since > stallMs) {
      const open = await run.sql<Record<string, unknown>>(
        `select u.id, u.sync_id, u.purpose, u.vehicle_source_id, u.attempt, u.fencing_token, u.lease_owner, (u.lease_expires_at - now())::text as lease_left,
                u.awaiting_token, (u.awaiting_receipts_until - now())::text as receipt_wait_left, u.last_error_code, u.error_attempts,
                (select json_agg(json_build_object('batch', b.batch_id, 'token', b.fencing_token, 'final', b.final, 'committed', b.committed_at is not null))
                   from "${schema}".sync_unit_batch b where b.unit_id = u.id) as batches
           from "${schema}".sync_unit u where u.sync_id in (?) and u.state = 'admitted' order by u.id`,
        [syncIds],
      );
      const deadLetters = (await run.streamMessages('DLQ')) === 0 ? [] : await run.deadLetters();
      throw new Error(`no progress for ${stallMs} ms (receipted units / committed batch receipts / crashes: ${progress}); open units: ${JSON.stringify(open)}; dead letters: ${JSON.stringify(deadLetters)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

type Supervised = 'sync-orchestrator' | (typeof INGEST_APPS)[number];
interface Kill {
  readonly app: Supervised;
  readonly point: CrashPoint;
  readonly hit: number;
  readonly round: number;
}

/** Every supervisor started, so a failed test's are stopped before teardown kills their processes (or they would respawn them). */
const supervisors: CrashSupervisor[] = [];

/** The crash line crash-points.ts writes to stderr right before it signals. */
const CRASH_LINE = /crash point (\S+) hit (\d+) SIGKILL/;

/**
 * Keeps one process of `app` alive in `run`: each is spawned with a plan (SWITCHYARD_CRASH_AT) of
 * every point of `points` still short of CRASHES_PER_POINT (and, for the capped ingest points,
 * within this round's INGEST_KILLS_PER_ROUND), its hit drawn by `hitOf`; when the process dies it
 * must have died of its crash point (SIGKILL after the crash line) — anything else fails the test
 * through `failed`. With nothing to plan it runs a plain process: until the next round (capped), or
 * for good (every point done). It never waits for a crash alone: every wait also ends on `stop()`.
 */
class CrashSupervisor {
  readonly failed: Promise<never>;
  private fail!: (error: Error) => void;
  private wake!: () => void;
  private woken: Promise<void>;
  private stopping = false;
  private round = 1;
  private killsThisRound = 0;
  private loop: Promise<void> | undefined;
  current: NodeProcess | undefined;
  readonly children: NodeProcess[] = [];

  constructor(
    private readonly run: ProcessDeployment,
    readonly app: Supervised,
    private readonly points: readonly CrashPoint[],
    private readonly kills: Kill[],
    private readonly hitOf: (point: CrashPoint) => Promise<number>,
    private readonly options: { capped?: readonly CrashPoint[]; env?: () => Record<string, string>; retire?: () => boolean } = {},
  ) {
    supervisors.push(this);
    this.failed = new Promise<never>((_, reject) => (this.fail = reject));
    this.failed.catch(() => undefined);
    this.woken = new Promise<void>((resolve) => (this.wake = resolve));
  }

  start(): this {
    this.loop = this.supervise().catch((error: unknown) => this.fail(error instanceof Error ? error : new Error(String(error))));
    return this;
  }

  /** A new round: the capped points may crash again. */
  nextRound(): void {
    this.round += 1;
    this.killsThisRound = 0;
    this.wake();
  }

  /** Ends supervision, leaving the current process running; whatever still races `failed` ends too. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loop;
    this.fail(new Error(`${this.app}: supervision stopped`));
  }

  private crashesOf(point: CrashPoint): number {
    return this.kills.filter((k) => k.point === point).length;
  }

  /** The points the next process may crash at (short of their crashes; capped ones within this round's budget). */
  private plannable(): CrashPoint[] {
    return this.points.filter(
      (point) => this.crashesOf(point) < CRASHES_PER_POINT && !(this.options.capped?.includes(point) && this.killsThisRound >= INGEST_KILLS_PER_ROUND),
    );
  }

  /** Whether a point of this supervisor is still short of its crashes. */
  hasWork(): boolean {
    return this.points.some((point) => this.crashesOf(point) < CRASHES_PER_POINT);
  }

  private async supervise(): Promise<void> {
    while (!this.stopping) {
      // Done, and another supervisor of the same kind still has processes to spawn: no plain one
      // from here (it would take the work the others' crash points wait for).
      if (!this.hasWork() && this.options.retire?.()) return;
      const plan: { point: CrashPoint; nth: number }[] = [];
      for (const point of this.plannable()) plan.push({ point, nth: await this.hitOf(point) });
      const env = { ...this.options.env?.(), ...(plan.length > 0 ? { SWITCHYARD_CRASH_AT: plan.map((p) => `${p.point}:${p.nth}`).join(',') } : {}) };
      const child = this.run.spawn(this.app, env);
      this.current = child;
      this.children.push(child);
      const exited = child.waitForExit(3_600_000);
      for (;;) {
        const ended = await Promise.race([exited, this.woken.then(() => undefined)]);
        if (ended !== undefined) {
          this.recordCrash(child, ended);
          break;
        }
        // Woken: stop (leave the process running) or a new round.
        this.woken = new Promise<void>((resolve) => (this.wake = resolve));
        if (this.stopping) return;
        // A planned process keeps its plan; a plain one stays while there is still nothing to plan.
        if (plan.length > 0 || this.plannable().length === 0) continue;
        child.child.kill('SIGTERM');
        const stopped = await child.waitForExit(90_000);
        if (stopped.code !== 0) throw new Error(`${this.app}: a plain process stopped for a new round exited ${JSON.stringify(stopped)}:\n${child.output().slice(-3000)}`);
        break;
      }
    }
  }

  private recordCrash(child: NodeProcess, exit: { code: number | null; signal: NodeJS.Signals | null }): void {
    const line = child.stderr().match(CRASH_LINE);
    if (exit.signal !== 'SIGKILL' || !line) {
      // Any other end is a finding: show how the process ended (its last output lines).
      throw new Error(`${this.app} ended without a crash point firing: ${JSON.stringify(exit)}\n${child.output().split('\n').slice(-20).join('\n')}`);
    }
    const point = line[1] as CrashPoint;
    this.kills.push({ app: this.app, point, hit: Number(line[2]), round: this.round });
    if (this.options.capped?.includes(point)) this.killsThisRound += 1;
  }
}

/** Per point: crashes, the hits they fired at (hit → crashes) and which process kinds died. */
function crashFigures(kills: readonly Kill[], points: readonly CrashPoint[]) {
  return Object.fromEntries(
    points.map((point) => {
      const mine = kills.filter((k) => k.point === point);
      const hits: Record<number, number> = {};
      const apps: Record<string, number> = {};
      for (const k of mine) {
        hits[k.hit] = (hits[k.hit] ?? 0) + 1;
        apps[k.app] = (apps[k.app] ?? 0) + 1;
      }
      return [point, { crashes: mine.length, hits, apps }];
    }),
  );
}

/** Fault transitions stored for the shared connection; `unpublished` counts those the relay has not marked. */
async function transitions(run: ProcessDeployment, unpublished = false): Promise<number> {
  const [row] = await run.sql<{ n: number }>(
    `select count(*)::int as n from "${run.schemas['fault-feed']}".fault_transition where connection_id = ?::uuid${unpublished ? ' and published_at is null' : ''}`,
    [fleet.connectionId],
  );
  return row?.n ?? 0;
}

/** A Samsara faultCodes point (simulator history): the complete active set after a transition. */
interface FaultCodesPoint {
  time: string;
  j1939?: { diagnosticTroubleCodes?: unknown[] };
  obdii?: { diagnosticTroubleCodes?: { confirmedDtcs?: unknown[]; pendingDtcs?: unknown[]; permanentDtcs?: unknown[] }[] };
}

const activeCodes = (p: FaultCodesPoint) =>
  (p.j1939?.diagnosticTroubleCodes?.length ?? 0) +
  (p.obdii?.diagnosticTroubleCodes ?? []).reduce((n, d) => n + (d.confirmedDtcs?.length ?? 0) + (d.pendingDtcs?.length ?? 0) + (d.permanentDtcs?.length ?? 0), 0);

/**
 * The latest whole hour ≤ `notAfter` at which some vehicle of the simulated fleet has an active
 * fault, from the faultCodes history of the 30 days before `notAfter` on a probe simulator frozen at
 * `notAfter` (the fleet's faults do not depend on the simulator's clock).
 */
async function latestHourWithActiveFault(simEnv: Record<string, string>, notAfter: number): Promise<number> {
  const probe = await spawnSimulator('samsara', { ...simEnv, SIM_START: new Date(notAfter).toISOString() });
  try {
    const from = new Date(notAfter - 30 * DAY).toISOString();
    const res = await fetch(`${probe.url}/fleet/vehicles/stats/history?types=faultCodes&startTime=${from}&endTime=${new Date(notAfter).toISOString()}`, {
      headers: { authorization: `Bearer ${simEnv['SAMSARA_API_TOKENS']}` },
    });
    expect(res.status).toBe(200);
    const series = ((await res.json()) as { data: { faultCodes?: FaultCodesPoint[] }[] }).data;
    let best: number | undefined;
    for (const vehicle of series) {
      const points = (vehicle.faultCodes ?? []).map((p) => ({ at: Date.parse(p.time), active: activeCodes(p) })).sort((a, b) => a.at - b.at);
      points.forEach((p, i) => {
        // The active set holds from p.at until the next transition: its last whole hour inside.
        const hour = Math.floor(((points[i + 1]?.at ?? notAfter + 1) - 1) / HOUR) * HOUR;
        if (p.active > 0 && hour >= p.at && (best === undefined || hour > best)) best = hour;
      });
    }
    if (best === undefined) throw new Error(`no active fault in the 30 days before ${new Date(notAfter).toISOString()}: choose another SIM_SEED`);
    return best;
  } finally {
    await probe.process.kill();
  }
}

beforeAll(async () => {
  const { databaseUrl, natsUrl } = await resolveTestServices();
  const apiToken = `samsara_api_${randomBytes(20).toString('hex')}`;
  const simEnv = { SAMSARA_API_TOKENS: apiToken, SIM_VEHICLES: '3', SIM_SEED: 'crash-scale-out', SIM_CLOCK_FACTOR: '0' };
  // The simulated clock is frozen at a whole hour in the past: every run sees the same fleet, trips,
  // odometer and fault snapshot, and the interval [startFrom, now) of every public sync covers them.
  // The hour is the latest one (at least an hour ago) at which a vehicle has an active fault, so the
  // fault snapshot is not empty (the fleet's faults come and go; found on a probe simulator).
  const simStart = await latestHourWithActiveFault(simEnv, Math.floor(Date.now() / HOUR) * HOUR - HOUR);
  const sim = await spawnSimulator('samsara', { ...simEnv, SIM_START: new Date(simStart).toISOString() });
  simulator = sim.process;
  const listed = await fetch(`${sim.url}/fleet/vehicles`, { headers: { authorization: `Bearer ${apiToken}` } });
  const vehicles = ((await listed.json()) as { data: { id: string }[] }).data.map((v) => v.id).sort();
  expect(vehicles).toHaveLength(3);
  fleet = {
    databaseUrl,
    natsUrl,
    simulatorUrl: sim.url,
    apiToken,
    masterKey: SecretBox.generateKey(),
    connectionId: randomUUID(),
    approvedVehicleIds: vehicles,
    // 36 h before the frozen clock: at least two trip slices per vehicle.
    startFrom: new Date(simStart - 36 * HOUR).toISOString(),
    // The last simulated day before the frozen clock (the simulator serves no history after its "now").
    internalWindow: { startFrom: new Date(simStart - DAY).toISOString(), intervalEnd: new Date(simStart).toISOString() },
  };

  // The reference: one process of each context, no faults.
  const ref = deployment('ref');
  await ref.startGateway();
  for (const app of ['sync-orchestrator', ...INGEST_APPS] as const) ref.spawn(app);
  await ref.started();
  await ref.connect();
  await round(ref, { timeoutMs: 180_000 });
  reference = await ref.dump();
  for (const app of INGEST_APPS) {
    const [row] = await ref.sql<{ n: number }>(`select count(*)::int as n from "${ref.schemas[app]}".ingest_batch where connection_id = ?::uuid and status = 'committed'`, [fleet.connectionId]);
    referenceBatches[app] = row?.n ?? 0;
  }
  // The reference holds real data in every context: the approved vehicles, their groups, at least
  // one trip, odometer observations and latest readings, fault occurrences and their transitions.
  expect(reference).toContain(`# directory.vehicle (3)`);
  for (const table of ['directory.trip', 'telemetry.observations', 'telemetry.latest_readings', 'faults.fault_occurrence', 'faults.fault_transition']) {
    expect(reference).toMatch(new RegExp(`# ${table.replace('.', '\\.')} \\([1-9]\\d*\\)`));
  }
  referenceTransitions = await transitions(ref);
  expect(await ref.streamMessages('FAULTS', `fleet.faults.${fleet.connectionId}.>`)).toBe(referenceTransitions);
  // A second round over the same interval stores nothing new: the crash run may use any number of
  // rounds and still be compared with this one.
  await round(ref, { timeoutMs: 180_000 });
  const again = await ref.dump();
  expect(dumpDifference(reference, again)).toBe('');
  console.log(`[crash-scale-out] reference: ${JSON.stringify(referenceBatches)} batches per round, ${referenceTransitions} fault transitions, dump unchanged by a second round`);
  await ref.stop();
}, 420_000);

// A failed test's supervisors stop before the next test (and teardown) start.
afterEach(async () => {
  for (const s of supervisors) await s.stop().catch(() => undefined);
});

afterAll(async () => {
  for (const d of deployments) await d.close().catch(() => undefined);
  await simulator?.kill();
});

/**
 * The scheduler's crash point, on a deployment of its own, run next to the crash test's rounds: a
 * scheduler killed before its decision commits leaves no run of that decision behind, and the next
 * one decides the same window again — one window of scheduled runs however often it is killed.
 */
async function schedulerCrash(): Promise<void> {
  {
    // Scheduler-only orchestrators (no collectors: the window's runs stay open, so every later
    // window is decided as a skip, previous_run_open), ticking every 200 ms over 1 s windows, so
    // a decision — a hit — comes about every second. Runs next to the crash test (its own schemas).
    const run = deployment('sched', { SCHEDULER_ENABLED: 'true', COLLECTOR_ENABLED: 'false', SCHEDULER_TICK_MS: '200', SCHEDULE_WINDOW_MS: '1000' });
    await run.startGateway();
    const kills: Kill[] = [];
    // The first process dies at its first decision — the window's creation — so the rollback of a
    // created window is crashed in every run; later ones at hits 1..3 of the skips.
    const random = mulberry32(seed + 10);
    let first = true;
    const hitOf = () => Promise.resolve(first ? ((first = false), 1) : 1 + Math.floor(random() * 3));
    const supervisor = new CrashSupervisor(run, 'sync-orchestrator', ['scheduler-before-commit'], kills, hitOf).start();
    await run.connect(['sync-orchestrator']);
    await Promise.race([
      pollUntil(() => kills.length >= CRASHES_PER_POINT, { timeoutMs: 300_000, intervalMs: 250, description: `${CRASHES_PER_POINT} scheduler-before-commit crashes` }),
      supervisor.failed,
    ]);
    await supervisor.stop();
    const schema = run.schemas['sync-orchestrator'];
    // The plain process left decides the next window (a skip: the created run is still open).
    const decided = Date.now();
    await pollUntil(
      async () => (await run.sql<{ at: string }>(`select last_decided_at::text as at from "${schema}".sync_schedule where connection_id = ?::uuid and last_decided_at > ?::timestamptz`, [fleet.connectionId, new Date(decided).toISOString()])).length > 0,
      { timeoutMs: 60_000, intervalMs: 250, description: 'a decision of the surviving scheduler after the crashes' },
    );
    const figures = crashFigures(kills, ['scheduler-before-commit']);
    const runs = await run.sql<{ id: string; window: string }>(
      `select id, start_from::text || ' ' || interval_end::text as window from "${schema}".sync where connection_id = ?::uuid and origin = 'scheduled'`,
      [fleet.connectionId],
    );
    const [schedule] = await run.sql<{ last_decision: string; last_sync_ids: string[] | null }>(`select last_decision, last_sync_ids from "${schema}".sync_schedule where connection_id = ?::uuid`, [fleet.connectionId]);
    console.log(`[scheduler crash] SWITCHYARD_CRASH_SEED=${seed} crashes per point (hit → crashes) ${JSON.stringify(figures)}; scheduled windows ${new Set(runs.map((r) => r.window)).size}, runs ${runs.length}`);
    expect(figures['scheduler-before-commit']?.crashes).toBeGreaterThanOrEqual(CRASHES_PER_POINT);
    // Exactly one window of runs, and it is the one the schedule points at: a killed decision left
    // no run behind. Mutation tried: CollectionScheduler.decideOne creating the window's runs
    // through their own transaction (committed before the decision's): every killed creation's runs
    // survive the rollback and the next scheduler creates the window again (5 kills: 4 windows).
    expect(new Set(runs.map((r) => r.window)).size).toBe(1);
    expect([...(schedule?.last_sync_ids ?? [])].sort()).toEqual(runs.map((r) => r.id).sort());
    expect(schedule?.last_decision).toBe('previous_run_open');
    await run.stop();
  }
}

const ORCHESTRATOR_POINTS = ['after-fetch', 'after-publish', 'receipt-after-ledger'] as const satisfies readonly CrashPoint[];
const INGEST_POINTS = ['in-commit', 'after-commit-before-ack'] as const satisfies readonly CrashPoint[];
const RELAY_POINT = 'relay-after-publish' satisfies CrashPoint;
const CRASH_RUN_POINTS: readonly CrashPoint[] = [...ORCHESTRATOR_POINTS, ...INGEST_POINTS, RELAY_POINT];

describe('crash test', () => {
  it(`completes rounds of syncs with the reference dump while every named crash point kills its process ${CRASHES_PER_POINT} times and one collector stalls past its lease; the scheduler, killed as often before its commit, creates one window`, async () => {
    const scheduler = schedulerCrash();
    scheduler.catch(() => undefined);
    const begun = Date.now();
    // Two units at a time per collector, so the three orchestrators (one per crash point) share
    // every round's units instead of one leasing them all.
    const run = deployment('crash', { COLLECTOR_CONCURRENCY: '2', COLLECTOR_LEASE_BATCH: '2' });
    await run.startGateway();
    const kills: Kill[] = [];
    const draw = (index: number) => {
      const random = mulberry32(seed + index);
      /** A hit in 1..max. */
      return (max: number) => 1 + Math.floor(random() * Math.max(1, max));
    };
    // Ingest contexts: in-commit / after-commit-before-ack at hits 1..3 (a process then lives for a
    // few batches: directory has 13 per round, telemetry-ingest 6, fault-feed 3).
    const ingestHit = (index: number) => {
      const hit = draw(index);
      return () => Promise.resolve(hit(3));
    };
    const [dirHit, telemetryHit] = [ingestHit(1), ingestHit(2)];
    // Fault-feed's relay: one published row per hit. Its rows are marked only after the whole
    // claimed batch is published, so a kill leaves every claimed row pending and the next process
    // publishes them again from the first: the hit is drawn within the rows pending now (1..3), so
    // the chain of relay kills never runs out of rows; before any row exists, the first.
    const faultDraw = draw(3);
    const faultHit = async (point: CrashPoint) => {
      if (point !== RELAY_POINT) return faultDraw(3);
      // Before fault-feed's first start has migrated its schema there is no table yet: no row.
      const pending = await transitions(run, true).catch(() => 0);
      return pending === 0 ? 1 : faultDraw(Math.min(3, pending));
    };
    const ingest = {
      directory: new CrashSupervisor(run, 'directory', INGEST_POINTS, kills, dirHit, { capped: INGEST_POINTS }),
      'telemetry-ingest': new CrashSupervisor(run, 'telemetry-ingest', INGEST_POINTS, kills, telemetryHit, { capped: INGEST_POINTS }),
      'fault-feed': new CrashSupervisor(run, 'fault-feed', [...INGEST_POINTS, RELAY_POINT], kills, faultHit, {
        capped: INGEST_POINTS,
        // The longer ack wait only while relay kills are still to come (see FAULT_FEED_ACK_WAIT_MS).
        env: () => ({ INGEST_ACK_WAIT_MS: String(kills.filter((k) => k.point === RELAY_POINT).length < CRASHES_PER_POINT ? FAULT_FEED_ACK_WAIT_MS : INGEST_ACK_WAIT_MS) }),
      }),
    };
    for (const s of Object.values(ingest)) s.start();
    const abort = Promise.race(Object.values(ingest).map((s) => s.failed));
    abort.catch(() => undefined);
    /** `step`, unless a supervisor fails first (then its error). */
    const guarded = <T>(step: Promise<T>): Promise<T> => Promise.race([step, abort]);

    // The zombie step (round 1): a collector stops itself after its first publish, holding leases.
    const o3 = run.spawn('sync-orchestrator', { SWITCHYARD_CRASH_AT: 'after-publish:1', SWITCHYARD_CRASH_SIGNAL: 'SIGSTOP' });
    await guarded(run.connect());
    const syncId = await run.createSync();
    const internalId = await run.createInternalRun();
    await guarded(waitUntilStopped(o3, 180_000));
    const unitTable = `"${run.schemas['sync-orchestrator']}".sync_unit`;
    const units = () => run.sql<{ id: string; lease_owner: string | null; fencing_token: string; state: string }>(`select id::text, lease_owner, fencing_token::text, state from ${unitTable} where sync_id in (?, ?)`, [syncId, internalId]);
    const heldByO3 = (await units()).filter((u) => u.state === 'admitted' && ownedBy(u.lease_owner, o3));
    expect(heldByO3.length).toBeGreaterThan(0);
    // The unit(s) o3 stopped in the middle of: a batch recorded under o3's token (it stopped right
    // after publishing it, before saving the page's provider cursor).
    const recorded = await run.sql<{ unit_id: string; fencing_token: string }>(
      `select distinct unit_id::text, fencing_token::text from "${run.schemas['sync-orchestrator']}".sync_unit_batch`,
    );
    const midPage = heldByO3.filter((held) => recorded.some((b) => b.unit_id === held.id && b.fencing_token === held.fencing_token));
    expect(midPage.length).toBeGreaterThan(0);
    // Until o3's late writes have been refused, no unit of these syncs may be receipted: a unit
    // another collector finished and its receipt completed before o3 resumed refuses o3's writes
    // by its state, and the count below (fencing alone) would race. The test holds their sync rows
    // FOR KEY SHARE: markUnitReceipted locks the sync row FOR UPDATE and waits (then retries its
    // receipt), while leases, records (FOR SHARE), heartbeats and cursor saves go on.
    const releaseReceipts = await guarded(
      run.hold(`select id from "${run.schemas['sync-orchestrator']}".sync where id in (select sync_id from ${unitTable} where id::text in (?)) for key share`, [midPage.map((u) => u.id)]),
    );
    // Another collector takes over once o3's leases run out (o3 is frozen: no heartbeat).
    const o4 = run.spawn('sync-orchestrator');
    try {
      await guarded(pollUntil(
        async () => {
          const now = await units();
          return midPage.every((held) => now.some((u) => u.id === held.id && u.state === 'admitted' && ownedBy(u.lease_owner, o4) && BigInt(u.fencing_token) > BigInt(held.fencing_token)));
        },
        { timeoutMs: 180_000, intervalMs: 100, description: 'the units the stopped collector was in the middle of re-leased by another' },
      ));
      // Resumed past its lease (a zombie): it finishes the page it stopped in — records, publishes,
      // saves the cursor of every unit of the page — and heartbeats, all under its old token. Each
      // cursor save for a re-leased unit is refused by the fencing token alone (the unit is still
      // admitted, under o4's newer token) and counted in the unit's fenced_writes (migration 0014):
      // durable evidence, not a log line. Mutation tried: the fencing-token condition removed from
      // UnitLeaseRepository.heartbeat, .saveProviderCursor and UnitBatchRepository.record
      // (`(fencing_token = ?::bigint or true)`): the zombie's writes for the re-leased units succeed,
      // nothing is counted and this wait times out.
      o3.child.kill('SIGCONT');
      await guarded(pollUntil(
        async () => {
          const fenced = await run.sql<{ id: string; fenced_writes: number }>(`select id::text, fenced_writes from ${unitTable} where id::text in (?)`, [midPage.map((u) => u.id)]);
          return fenced.length === midPage.length && fenced.every((u) => u.fenced_writes > 0);
        },
        { timeoutMs: 60_000, intervalMs: 200, description: "the resumed collector's late writes for every unit it was in the middle of refused under its superseded token (sync_unit.fenced_writes)" },
      ));
    } finally {
      await releaseReceipts();
    }
    // Every late write it logged as refused was for a unit it had held, under its old token.
    for (const refused of logEntries(o3, 'lease lost: late write refused')) {
      expect(heldByO3.some((held) => held.id === String(refused['unitId']) && held.fencing_token === String(refused['fencingToken']))).toBe(true);
    }
    // The resumed collector survived its fenced-off lease (no crash, no stuck unit); both stop
    // cleanly; from here on the orchestrator supervisors' processes are the collectors and receipt
    // consumers.
    for (const child of [o3, o4]) child.child.kill('SIGTERM');
    for (const child of [o3, o4]) expect(await child.waitForExit(90_000)).toEqual({ code: 0, signal: null });

    // Orchestrator: one supervisor per point (three processes at a time, sharing units and
    // receipts), after-fetch, after-publish and receipt-after-ledger each at hits 1..3. A kill loses
    // the process's leases (re-leased after LEASE_MS, 3 s) and its unacked receipts (redelivered
    // after the receipts durable's 30 s ack wait: a receipt gets at most one delivery per 30 s, far
    // below its maxDeliver of 20 in a run of a few minutes).
    // A supervisor whose point is done retires while another still has crashes to get; the last
    // one keeps a plain process.
    const orchestrators: CrashSupervisor[] = [];
    for (const [i, point] of ORCHESTRATOR_POINTS.entries()) {
      const self: CrashSupervisor = new CrashSupervisor(run, 'sync-orchestrator', [point], kills, ingestHit(4 + i), {
        retire: () => orchestrators.some((o) => o !== self && o.hasWork()),
      });
      orchestrators.push(self.start());
    }
    const all = [...Object.values(ingest), ...orchestrators];
    const failed = Promise.race([abort, ...orchestrators.map((o) => o.failed)]);
    failed.catch(() => undefined);

    const progressing: RoundWait = { stallMs: ROUND_STALL_MS, crashes: () => kills.length };
    const short = () => CRASH_RUN_POINTS.filter((p) => kills.filter((k) => k.point === p).length < CRASHES_PER_POINT);
    await settle(run, syncId, internalId, progressing, failed);
    // Round 1 is the one that writes the data; later rounds re-collect the same records, so the
    // next round would put back whatever a crash in one of them lost. So the dump must equal the
    // reference after EVERY round, with that round's crashes (up to INGEST_KILLS_PER_ROUND per
    // ingest context; in round 1 also the zombie step, the first orchestrator and relay kills)
    // behind it, not only at the end. Mutation tried: handleIngestDelivery's ledger
    // claim and completion (with the receipt) committed in a transaction of their own before the
    // batch's writes: an in-commit kill leaves the batch "committed" without its records, its
    // redelivery is answered from the ledger, and this comparison shows the missing rows (the
    // final dump alone, after rounds that re-collected them, does not).
    await expectSameAsReference(run);
    /** Seconds since the crash deployment started at which each round settled (printed, never asserted). */
    const settledAt = [Math.round((Date.now() - begun) / 1000)];
    while (short().length > 0 && settledAt.length < MAX_ROUNDS) {
      for (const s of all) s.nextRound();
      await round(run, progressing, failed);
      settledAt.push(Math.round((Date.now() - begun) / 1000));
      await expectSameAsReference(run);
    }
    const rounds = settledAt.length;
    for (const s of all) await s.stop();
    const figures = crashFigures(kills, CRASH_RUN_POINTS);
    console.log(`[crash test] SWITCHYARD_CRASH_SEED=${seed} rounds ${rounds} (settled at ${settledAt.join(', ')} s) crashes per point (hit → crashes; process kinds) ${JSON.stringify(figures)}`);

    // The data first (a mutation that loses data also starves a crash point of hits: the data
    // checks say what was lost), then the crash counts. Whatever process the supervisors left
    // publishes what the last relay kill left pending.
    await pollUntil(async () => (await transitions(run, true)) === 0, { timeoutMs: 60_000, intervalMs: 250, description: 'every fault transition marked published by the relay' });
    // Nothing was dead-lettered: no batch or receipt ran out of deliveries through the kills.
    expect({ deadLetters: await run.streamMessages('DLQ') === 0 ? [] : await run.deadLetters() }).toEqual({ deadLetters: [] });
    // Every transition reached the FAULTS stream, although fault-feed was killed between publishing
    // rows and marking them: each transition's msgId is there, and once within the duplicate window
    // (a republish inside it is dropped by JetStream). What the window promises and no more: the
    // chain of relay kills of one row can outlast it on a loaded machine (20 restarts — CI, load
    // ~7: 1 transition stored twice), and then the copy beyond it is stored again, for consumers
    // that are idempotent on the event. Mutation tried: PollingOutboxRelay.publishBatch marking the
    // claimed rows in a transaction committed BEFORE publishing them (mark, commit, then publish):
    // the first relay kill loses the rows after the killed one — fewer msgIds than transitions (and
    // with nothing left pending the relay point gets no more hits).
    const stored = await run.streamMsgIds('FAULTS', `fleet.faults.${fleet.connectionId}.>`);
    const byId = new Map<string, typeof stored>();
    for (const m of stored) byId.set(m.msgId ?? '(none)', [...(byId.get(m.msgId ?? '(none)') ?? []), m]);
    expect({ msgIds: byId.size }).toEqual({ msgIds: await transitions(run) });
    const insideWindow = [...byId].filter(([, copies]) => copies.some((c, i) => i > 0 && c.storedAt - copies[0]!.storedAt < DUPLICATE_WINDOW_MS));
    expect({ duplicatesInsideWindow: insideWindow.map(([id]) => id) }).toEqual({ duplicatesInsideWindow: [] });
    if (stored.length > byId.size) console.log(`[crash test] ${stored.length - byId.size} transition(s) stored again after the ${DUPLICATE_WINDOW_MS / 1000} s duplicate window`);
    await expectSameAsReference(run);
    /** Every `ingest batch handled` line of each context's processes. */
    const handled = Object.fromEntries(Object.entries(ingest).map(([app, s]) => [app, s.children.flatMap((child) => logEntries(child, 'ingest batch handled'))]));
    // Committed but unacknowledged batches (after-commit-before-ack) came back and were answered
    // from the ledger.
    const duplicates = Object.values(handled)
      .flat()
      .filter((e) => e['duplicate'] === true).length;
    console.log(`[crash test] redelivered batches answered from the ledger: ${duplicates}`);
    // How close the kills brought a batch to its durable's maxDeliver (10; dead-lettered past it).
    const mostDeliveries = Object.fromEntries(Object.entries(handled).map(([app, entries]) => [app, Math.max(0, ...entries.map((e) => Number(e['deliveryCount'] ?? 0)))]));
    console.log(`[crash test] most deliveries a handled batch needed, per context: ${JSON.stringify(mostDeliveries)}`);
    expect(duplicates).toBeGreaterThan(0);
    expect(short().map((p) => `${p}: ${figures[p]?.crashes} of ${CRASHES_PER_POINT} crashes in ${rounds} rounds`)).toEqual([]);
    await run.stop();
    await scheduler;
  }, 900_000);
});

describe('scale-out', () => {
  it('shares one sync between two of each process, commits every batch once and stores the reference dump', async () => {
    // One unit at a time per collector, so neither can lease the whole sync in one call.
    const run = deployment('scale', { COLLECTOR_CONCURRENCY: '1', COLLECTOR_LEASE_BATCH: '1', POLL_MS: '50', LEASE_MS: '10000' });
    await run.startGateway();
    // Two of each, all started at once on empty schemas: their migrations race (advisory lock).
    const pairs = Object.fromEntries((['sync-orchestrator', ...INGEST_APPS] as const).map((app) => [app, [run.spawn(app), run.spawn(app)]])) as Record<
      'sync-orchestrator' | 'directory' | 'telemetry-ingest' | 'fault-feed',
      [NodeProcess, NodeProcess]
    >;
    await run.started();
    for (const app of ['sync-orchestrator', ...INGEST_APPS] as const) {
      const applied = await run.sql<{ name: string; n: string }>(`select name, count(*)::text as n from "${run.schemas[app]}".mikro_orm_migrations group by name`);
      expect(applied.length).toBeGreaterThan(0);
      expect(applied.filter((m) => m.n !== '1')).toEqual([]);
    }
    await run.connect();
    const syncId = await run.createSync();
    const internalId = await run.createInternalRun();
    const sync = await run.settled(syncId, 300_000);
    expect(sync).toMatchObject({ status: 'completed', progress: 100 });
    expect(await run.settledInternal(internalId, 300_000)).toMatchObject({ status: 'completed', failureReason: null });

    // Both collectors worked units of the sync (the unit's lease owner names the process).
    const owners = await run.sql<{ lease_owner: string | null }>(`select lease_owner from "${run.schemas['sync-orchestrator']}".sync_unit where sync_id = ?`, [syncId]);
    for (const collector of pairs['sync-orchestrator']) expect(owners.filter((u) => ownedBy(u.lease_owner, collector)).length).toBeGreaterThan(0);

    await expectSameAsReference(run);
    // Stopped (exit 0, logs flushed) before their logs are read.
    await run.stop();

    // Each ingesting context's two processes shared its batches: every committed batch of the
    // ledger was committed by exactly one process (its "ingest batch handled" line, duplicate false),
    // and both committed some (every context gets batches: the sync feeds directory, the internal
    // run telemetry-ingest and fault-feed).
    for (const app of INGEST_APPS) {
      const ledger = await run.sql<{ batch_id: string }>(`select batch_id from "${run.schemas[app]}".ingest_batch where connection_id = ?::uuid and status = 'committed'`, [fleet.connectionId]);
      expect({ app, batches: ledger.length > 0 }).toEqual({ app, batches: true });
      const [first, second] = pairs[app].map((child) =>
        logEntries(child, 'ingest batch handled')
          .filter((e) => e['duplicate'] === false && e['status'] === 'committed')
          .map((e) => String(e['batchId'])),
      ) as [string[], string[]];
      expect({ app, first: first.length > 0, second: second.length > 0 }).toEqual({ app, first: true, second: true });
      expect(first.filter((id) => second.includes(id))).toEqual([]);
      expect([...first, ...second].sort()).toEqual(ledger.map((b) => b.batch_id).sort());
    }
  }, 600_000);
});
