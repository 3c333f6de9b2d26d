/**
 * JetStream cluster failover (issue 26 item 3, decision 0034), on real processes, PostgreSQL and a
 * 3-node nats-server cluster of this test's own (loopback ports and routes, its own store dirs).
 * - The provisioning step (the real CLI, NATS_STREAM_REPLICAS=3) creates every stream with three
 *   copies, read back from the server (`config.num_replicas` and the leader plus two peers): a
 *   `replicas: 3` that silently became R1 fails here.
 * - A process configured for more copies than a stream has refuses to start, naming the stream
 *   and `num_replicas` (exit 1), instead of running on fewer copies than it was told to expect.
 * - Two processes of every context (sync-orchestrator, directory, telemetry-ingest, fault-feed,
 *   enrichment; the gateway runs in the test process, as in ProcessDeployment) on R3 streams run
 *   one round — a public sync and an internal run — while the test kills (SIGKILL) the node leading
 *   the INGEST stream as soon as the sync has published into it, starts it again once another node
 *   leads, and then kills the JetStream meta leader. The round completes, the canonical dump of
 *   every context equals the fault-free reference (one process each, same cluster, run first), and
 *   nothing was dead-lettered. The time each failover took (kill → a new leader answers) is logged
 *   ("[jetstream-cluster] … failover"), never asserted.
 * Needs `npm run build` (the processes run the built dist).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Namespace, STREAMS, withStreamLimits, type StreamName } from '@switchyard/messaging';
import { dumpDifference, pollUntil, resolveTestServices, spawnNode, spawnSimulator, startOwnedNatsCluster, workspaceRoot, type NodeProcess, type OwnedNatsCluster } from '@switchyard/testing';
import { frozenSamsaraFleet, INGEST_APPS, ProcessDeployment, type SharedFleet } from './process-deployment.js';

const HOUR = 3_600_000;
const REPLICAS = 3;
const PROVISION_CLI = path.join(workspaceRoot(), 'libs/service-kit/dist/cli/nats-provision.js');
/** Short leases and ack waits: work a killed node's clients held comes back within seconds. */
const ORCHESTRATOR_ENV = { LEASE_MS: '3000', POLL_MS: '100' };
const INGEST_ENV = { INGEST_ACK_WAIT_MS: '5000' };
const REPLICATED_ENV = { NATS_STREAM_REPLICAS: String(REPLICAS) };
const APPS = ['sync-orchestrator', ...INGEST_APPS, 'enrichment'] as const;
const ROUND_TIMEOUT_MS = 180_000;

let cluster: OwnedNatsCluster;
let simulator: NodeProcess | undefined;
let fleet: SharedFleet;
let nc: NatsConnection;
let jsm: JetStreamManager;
const deployments: ProcessDeployment[] = [];

beforeAll(async () => {
  const { databaseUrl } = await resolveTestServices();
  cluster = await startOwnedNatsCluster(3);
  nc = await connect({ servers: [...cluster.servers], name: 'jetstream-cluster-test', maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  jsm = await jetstreamManager(nc, { timeout: 2_000 });
  const apiToken = `samsara_api_${randomBytes(20).toString('hex')}`;
  // Frozen clock an hour in the past: both deployments collect the same fleet over the same interval.
  const simStart = Math.floor(Date.now() / HOUR) * HOUR - HOUR;
  const sim = await spawnSimulator('samsara', { SAMSARA_API_TOKENS: apiToken, SIM_VEHICLES: '3', SIM_SEED: 'jetstream-cluster', SIM_CLOCK_FACTOR: '0', SIM_START: new Date(simStart).toISOString() });
  simulator = sim.process;
  fleet = await frozenSamsaraFleet({ databaseUrl, natsUrl: cluster.url }, sim.url, apiToken, simStart);
  expect(fleet.approvedVehicleIds).toHaveLength(3);
}, 120_000);

afterAll(async () => {
  for (const d of deployments) await d.close().catch(() => undefined);
  await nc?.close().catch(() => undefined);
  await simulator?.kill();
  await cluster?.destroy();
}, 120_000);

/** The provisioning step as deployed: the CLI with the deployment's replicas. */
async function provision(namespace: string): Promise<void> {
  const child = spawnNode(PROVISION_CLI, { env: { NATS_URL: cluster.url, NATS_NAMESPACE: namespace, ...REPLICATED_ENV, LOG_LEVEL: 'warn' } });
  const { code } = await child.waitForExit(120_000);
  if (code !== 0) throw new Error(`nats-provision exited ${code}:\n${child.output()}`);
}

/** Stream info through any live node; undefined while the stream has no leader to answer. */
async function streamInfo(name: string) {
  try {
    return await jsm.streams.info(name);
  } catch {
    return undefined;
  }
}

/** Every stream of `namespace` has its leader and REPLICAS - 1 peers, all current (a restarted node caught up). */
async function fullyReplicated(namespace: string): Promise<void> {
  const ns = new Namespace(namespace);
  await pollUntil(
    async () => {
      for (const name of Object.keys(STREAMS)) {
        const info = await streamInfo(ns.stream(name));
        const peers = info?.cluster?.replicas ?? [];
        if (!info?.cluster?.leader || peers.length !== REPLICAS - 1 || peers.some((p) => !p.current || p.offline)) return false;
      }
      return true;
    },
    { timeoutMs: 60_000, intervalMs: 100, description: `every stream of ${namespace} led and ${REPLICAS - 1} peers current` },
  );
}

function deployment(name: string): ProcessDeployment {
  const created = new ProcessDeployment(fleet, name, ORCHESTRATOR_ENV, INGEST_ENV);
  deployments.push(created);
  return created;
}

describe('JetStream cluster (3 nodes, R3 streams)', () => {
  it('provisions three copies, refuses fewer than configured, and completes a sync through a stream-leader and a meta-leader kill with the fault-free dump', async () => {
    // The fault-free reference: one process each, R1 streams on the same cluster.
    const ref = deployment('jsref');
    const run = deployment('jsha');
    await provision(run.namespace);
    const ns = new Namespace(run.namespace);
    // mutation: nats-provision sending the count as `replicas` (the client passes it on, the server ignores it) → R1 read back here, this test fails.
    for (const name of Object.keys(STREAMS) as StreamName[]) {
      const info = await jsm.streams.info(ns.stream(name));
      expect({ name, replicas: info.config.num_replicas, placed: 1 + (info.cluster?.replicas?.length ?? 0) }).toEqual({ name, replicas: REPLICAS, placed: REPLICAS });
    }
    await Promise.all([ref.startGateway(), run.startGateway(withStreamLimits({}, Object.fromEntries(Object.keys(STREAMS).map((n) => [n, REPLICAS]))))]);

    // mutation: fewer replicas accepted by a service's check (streamDifferences 'at-least') → this process starts and the test fails.
    const overReplicated = run.spawn('directory', { NATS_STREAM_REPLICAS_INGEST: '5' });
    for (const app of ['sync-orchestrator', ...INGEST_APPS] as const) ref.spawn(app);
    for (const app of APPS) for (let i = 0; i < 2; i += 1) run.spawn(app, REPLICATED_ENV);
    expect(await overReplicated.waitForExit(180_000)).toEqual({ code: 1, signal: null });
    expect(overReplicated.output()).toMatch(/stream .*INGEST differs from its definition .*num_replicas is 3, expected at least 5/);
    await Promise.all([ref.started(), run.started()]);

    await ref.connect();
    const refSync = await ref.createSync();
    const refInternal = await ref.createInternalRun();
    expect(await ref.settled(refSync, ROUND_TIMEOUT_MS)).toMatchObject({ status: 'completed', progress: 100 });
    expect(await ref.settledInternal(refInternal, ROUND_TIMEOUT_MS)).toMatchObject({ status: 'completed', failureReason: null });
    const reference = await ref.dump();
    expect(reference).toContain('# directory.vehicle (3)');
    expect(reference).toMatch(/# telemetry\.observations \([1-9]\d*\)/);
    await ref.stop();

    await run.connect();
    const syncId = await run.createSync();
    const internalId = await run.createInternalRun();
    const ingest = ns.stream('INGEST');
    // During the sync: the collectors have published into INGEST.
    const first = await pollUntil(async () => ((await streamInfo(ingest))?.state.messages ?? 0) > 0 && (await streamInfo(ingest)), { timeoutMs: ROUND_TIMEOUT_MS, intervalMs: 20, description: 'a batch in INGEST' });
    const streamLeader = first.cluster?.leader;
    if (!streamLeader) throw new Error('INGEST has no leader');
    const units = await run.sql<{ state: string; n: number }>(`select state, count(*)::int as n from "${run.schemas['sync-orchestrator']}".sync_unit where sync_id = ? group by state order by state`, [syncId]);
    const progress = units.map((u) => `${u.n} ${u.state}`).join(', ');

    let killedAt = Date.now();
    await cluster.node(streamLeader).stop();
    const newLeader = await pollUntil(
      async () => {
        const leader = (await streamInfo(ingest))?.cluster?.leader;
        return leader !== undefined && leader !== streamLeader ? leader : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 20, description: `a new INGEST leader after ${streamLeader} was killed` },
    );
    const streamFailoverMs = Date.now() - killedAt;
    console.log(`[jetstream-cluster] stream leader failover: INGEST ${streamLeader} → ${newLeader} in ${streamFailoverMs} ms (killed ${ingest} leader with ${first.state.messages} messages stored, the sync's units then: ${progress})`);
    await cluster.node(streamLeader).start();
    await fullyReplicated(run.namespace);

    const metaLeader = await pollUntil(() => cluster.metaLeader(), { timeoutMs: 30_000, intervalMs: 50, description: 'a meta leader' });
    killedAt = Date.now();
    await cluster.node(metaLeader).stop();
    const newMeta = await pollUntil(
      async () => {
        const leader = await cluster.metaLeader();
        // Elected and answering JetStream API requests (stream create/update/info go through it).
        return leader !== undefined && leader !== metaLeader && (await jsm.getAccountInfo().then(() => leader, () => undefined));
      },
      { timeoutMs: 60_000, intervalMs: 20, description: `a new meta leader after ${metaLeader} was killed` },
    );
    const metaFailoverMs = Date.now() - killedAt;
    console.log(`[jetstream-cluster] meta leader failover: ${metaLeader} → ${newMeta} in ${metaFailoverMs} ms`);
    await cluster.node(metaLeader).start();

    const sync = await run.settled(syncId, ROUND_TIMEOUT_MS);
    expect(sync).toMatchObject({ status: 'completed', progress: 100 });
    expect(sync.failureReason).toBeUndefined();
    expect(await run.settledInternal(internalId, ROUND_TIMEOUT_MS)).toMatchObject({ status: 'completed', failureReason: null });
    const dump = await run.dump();
    expect(dumpDifference(reference, dump)).toBe('');
    expect(dump).toBe(reference);
    expect(await run.deadLetters()).toEqual([]);
    console.log(`[jetstream-cluster] round completed after both kills: dump equals the fault-free reference, no dead letter`);
    await run.stop();
  }, 600_000);
});
