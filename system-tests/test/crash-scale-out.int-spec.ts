/**
 * The crash test and the two-of-each scale-out test (issue 4), on real processes, PostgreSQL and
 * NATS. One Samsara simulator with a frozen clock serves every run the same fleet; every run is a
 * separate deployment (own schemas and namespace) holding the same connection id and syncing the
 * same interval (fixed startFrom, before the simulator's clock), so their canonical dumps of every
 * ingesting context must be byte-identical. Every run holds one public sync (vehicles, group
 * memberships, trips → directory) and one internal run (INTERNAL_PURPOSES: odometer history and
 * latest readings → telemetry-ingest, fault snapshots → fault-feed) over a fixed one-day window
 * before the frozen clock, so the dumps of all three schemas are compared:
 * - reference: one process of each context, no faults;
 * - crash: orchestrator, directory, telemetry-ingest and fault-feed processes SIGKILLed at every
 *   named crash point (SWITCHYARD_CRASH_AT, libs/service-kit crash-points.ts; the ingest contexts
 *   in-commit then after-commit-before-ack) at hits drawn from a printed seed (SWITCHYARD_CRASH_SEED
 *   replays one) and restarted, and one orchestrator
 *   stopped (SIGSTOP) right after a publish while holding leases until another re-leased the
 *   unit it was in the middle of, then resumed: its late writes (cursor save, records,
 *   heartbeats) under the old token are refused and logged (the zombie step; mutation named there);
 *   afterwards the sync and the internal run are completed and the dump equals the reference;
 * - scale-out: two processes each of sync-orchestrator, directory, telemetry-ingest and fault-feed
 *   started at once on fresh schemas (concurrent migrations), one sync and one internal run; both
 *   collectors leased units, both processes of each ingesting context committed batches, no batch
 *   was committed twice, and the dump equals
 *   the reference.
 * Needs `npm run build` (the processes run the built dist).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { SecretBox } from '@switchyard/gateway';
import { dumpDifference, pollUntil, resolveTestServices, spawnSimulator, waitUntilStopped, type NodeProcess } from '@switchyard/testing';
import { INGEST_APPS, logEntries, ownedBy, ProcessDeployment, type SharedFleet } from './process-deployment.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Short leases so a killed or stopped collector's units are re-leased within seconds. */
const ORCHESTRATOR_ENV = { LEASE_MS: '3000', POLL_MS: '100' };
/**
 * A short ack wait (default 60 s) so the batches a killed ingest process held are redelivered
 * within seconds; still far above a batch's handling, so nothing is redelivered while it is worked.
 */
const INGEST_ACK_WAIT_MS = 10_000;

let fleet: SharedFleet;
let simulator: NodeProcess | undefined;
let reference: string;
/** Batches each ingesting context committed in the reference run: an upper bound for the ingest crash hits. */
const referenceBatches: Partial<Record<(typeof INGEST_APPS)[number], number>> = {};

/**
 * Which hit of each crash point fires, drawn from a seed (SWITCHYARD_CRASH_SEED to replay one; else
 * random, printed). Ranges where the hit is sure to come: a collector passes after-fetch and
 * after-publish many times per run (several units and pages each); an ingest context's n-th commit
 * exists only if the run has n batches for it, and the second process of a context commits what the
 * first did not (the reference run's batch count bounds both).
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
const random = mulberry32(seed);
/** A hit in 1..max, from the seed. */
const hit = (max: number) => 1 + Math.floor(random() * Math.max(1, max));
const deployments: ProcessDeployment[] = [];

function deployment(name: string, orchestratorEnv: Record<string, string> = {}): ProcessDeployment {
  const created = new ProcessDeployment(fleet, name, { ...ORCHESTRATOR_ENV, ...orchestratorEnv }, { INGEST_ACK_WAIT_MS: String(INGEST_ACK_WAIT_MS) });
  deployments.push(created);
  return created;
}

/** Waits until the process died of SIGKILL (its crash point fired). */
async function killedAtCrashPoint(child: NodeProcess, point: string): Promise<void> {
  const exit = await child.waitForExit(240_000).catch((error: unknown) => {
    throw new Error(`crash point ${point} never fired: ${String(error)}`);
  });
  // Any other end is a finding: show how the process ended (its last output lines).
  const tail = exit.signal === 'SIGKILL' ? '' : child.output().split('\n').slice(-15).join('\n');
  expect({ point, exit, tail }).toEqual({ point, exit: { code: null, signal: 'SIGKILL' }, tail: '' });
}

const crashAt = (point: string, nth = 1) => ({ SWITCHYARD_CRASH_AT: `${point}:${nth}` });

async function expectSameAsReference(run: ProcessDeployment): Promise<void> {
  const dump = await run.dump();
  const difference = dumpDifference(reference, dump);
  expect(difference).toBe('');
  expect(dump).toBe(reference);
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
  const syncId = await ref.createSync();
  const internalId = await ref.createInternalRun();
  const sync = await ref.settled(syncId, 180_000);
  expect(sync).toMatchObject({ status: 'completed', progress: 100 });
  expect(await ref.settledInternal(internalId, 180_000)).toMatchObject({ status: 'completed', failureReason: null });
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
  await ref.stop();
}, 420_000);

afterAll(async () => {
  for (const d of deployments) await d.close().catch(() => undefined);
  await simulator?.kill();
});

describe('crash test', () => {
  it('completes the sync with the reference dump while collectors and consumers are SIGKILLed at every named point and one collector stalls past its lease', async () => {
    // The hits, from the seed: collectors 1..3 (the stalled one always right after its first publish,
    // so it is in the middle of exactly one unit's page); each ingest context's first
    // process dies in commit 1..3 and its second after commit 1..3 of what is left (both within the reference batch count).
    const ingestHits = Object.fromEntries(
      INGEST_APPS.map((app) => {
        const batches = referenceBatches[app] ?? 1;
        const inCommit = hit(Math.min(3, batches));
        return [app, { inCommit, afterCommit: hit(Math.min(3, batches - inCommit + 1)) }];
      }),
    ) as Record<(typeof INGEST_APPS)[number], { inCommit: number; afterCommit: number }>;
    const plan = { afterFetch: hit(3), afterPublish: hit(3), ingest: ingestHits };
    console.log(`crash test: SWITCHYARD_CRASH_SEED=${seed} plan ${JSON.stringify(plan)} (reference batches ${JSON.stringify(referenceBatches)})`);
    const run = deployment('crash');
    await run.startGateway();
    const o1 = run.spawn('sync-orchestrator', crashAt('after-fetch', plan.afterFetch));
    const d1 = run.spawn('directory', crashAt('in-commit', ingestHits.directory.inCommit));
    const t1 = run.spawn('telemetry-ingest', crashAt('in-commit', ingestHits['telemetry-ingest'].inCommit));
    const f1 = run.spawn('fault-feed', crashAt('in-commit', ingestHits['fault-feed'].inCommit));
    await run.started();
    await run.connect();
    const syncId = await run.createSync();
    const internalId = await run.createInternalRun();

    // Collector dies with a fetched page in hand: nothing recorded or published.
    await killedAtCrashPoint(o1, 'after-fetch');
    // The next one re-leases after the lease runs out and dies after its 2nd accepted publish.
    // (Which units those two publishes belong to is up to the leasing order: no ingest crash point
    // is awaited before a collector that keeps running exists, or the test would wait on a batch
    // nobody publishes.)
    const o2 = run.spawn('sync-orchestrator', crashAt('after-publish', plan.afterPublish));
    await killedAtCrashPoint(o2, 'after-publish');

    // The third collector stops itself after its first publish, holding leases.
    const o3 = run.spawn('sync-orchestrator', { SWITCHYARD_CRASH_AT: 'after-publish:1', SWITCHYARD_CRASH_SIGNAL: 'SIGSTOP' });
    await waitUntilStopped(o3, 180_000);
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
    // Another collector takes over once o3's leases run out (o3 is frozen: no heartbeat).
    const o4 = run.spawn('sync-orchestrator');
    await pollUntil(
      async () => {
        const now = await units();
        return midPage.every((held) => now.some((u) => u.id === held.id && ownedBy(u.lease_owner, o4) && BigInt(u.fencing_token) > BigInt(held.fencing_token)));
      },
      { timeoutMs: 180_000, intervalMs: 100, description: 'the units the stopped collector was in the middle of re-leased by another' },
    );
    // Resumed past its lease (a zombie): it finishes the page it stopped in — records, publishes,
    // saves the cursor — and heartbeats, all under its old token, and every one of those writes is
    // refused. Mutation tried: the fencing-token condition removed from UnitLeaseRepository.heartbeat,
    // .saveProviderCursor and UnitBatchRepository.record (`(fencing_token = ?::bigint or true)`): the
    // zombie's cursor save for the re-leased unit succeeds and this wait times out.
    o3.child.kill('SIGCONT');
    await pollUntil(
      () =>
        logEntries(o3, 'lease lost: late write refused').some(
          (e) => e['write'] === 'cursor' && midPage.some((held) => held.id === String(e['unitId']) && held.fencing_token === String(e['fencingToken'])),
        ),
      { timeoutMs: 60_000, intervalMs: 200, description: "the resumed collector's cursor save for its re-leased unit refused (fenced)" },
    );
    // Every late write it logged as refused was for a unit it had held, under its old token.
    for (const refused of logEntries(o3, 'lease lost: late write refused')) {
      expect(heldByO3.some((held) => held.id === String(refused['unitId']) && held.fencing_token === String(refused['fencingToken']))).toBe(true);
    }

    // Each ingesting context dies inside its first commit (rolled back; the batch is redelivered
    // after ackWait), awaited while o4 collects so its batches are published, then after a commit
    // before the ack.
    await killedAtCrashPoint(d1, 'in-commit');
    const d2 = run.spawn('directory', crashAt('after-commit-before-ack', ingestHits.directory.afterCommit));
    await killedAtCrashPoint(t1, 'in-commit');
    const t2 = run.spawn('telemetry-ingest', crashAt('after-commit-before-ack', ingestHits['telemetry-ingest'].afterCommit));
    await killedAtCrashPoint(f1, 'in-commit');
    const f2 = run.spawn('fault-feed', crashAt('after-commit-before-ack', ingestHits['fault-feed'].afterCommit));

    // Directory commits a batch and dies before the receipt and the ack.
    await killedAtCrashPoint(d2, 'after-commit-before-ack');
    const d3 = run.spawn('directory');
    await killedAtCrashPoint(t2, 'after-commit-before-ack');
    run.spawn('telemetry-ingest');
    await killedAtCrashPoint(f2, 'after-commit-before-ack');
    run.spawn('fault-feed');

    const sync = await run.settled(syncId, 300_000);
    expect(sync).toMatchObject({ status: 'completed', progress: 100 });
    expect(sync.failureReason).toBeUndefined();
    expect(await run.settledInternal(internalId, 300_000)).toMatchObject({ status: 'completed', failureReason: null });
    // The resumed collector survived its fenced-off lease (no crash, no stuck unit).
    expect(o3.child.exitCode).toBeNull();
    await expectSameAsReference(run);
    // The batch d2 committed without a receipt or ack comes back after the ack wait
    // (INGEST_ACK_WAIT_MS, 10 s here) and is answered from the ledger (the sync may have completed
    // first through a re-leased unit).
    await pollUntil(() => logEntries(d3, 'ingest batch handled').some((e) => e['duplicate'] === true), {
      timeoutMs: 180_000,
      intervalMs: 500,
      description: 'the committed but unacknowledged batch redelivered and answered from the ledger',
    });
    await run.stop();
  }, 600_000);
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
