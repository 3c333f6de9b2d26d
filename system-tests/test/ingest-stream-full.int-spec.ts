/**
 * A full INGEST stream paces collection instead of failing the sync (decision 0026): the stream's
 * byte limit is set below one batch, so every publish of the sync's collectors is refused
 * (`stream_full` → `bus_unavailable`); the units are put back one lease period later without an
 * error attempt counted — more times than COLLECTOR_MAX_ATTEMPTS (2 here) would allow — the sync
 * stays open, and once the stream has room again it completes with every unit receipted. Real
 * pipeline: gateway, orchestrator with collectors, directory, Samsara simulator, PostgreSQL, NATS.
 * Figures printed with `[ingest-stream-full]`.
 * Mutation tried: `bus_unavailable` left out of the collector's pacing (collector.service.ts
 * `fail`): each refusal counts an error attempt and the sync fails `bus_unavailable` after two
 * leases, before the stream has room.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Namespace, STREAMS } from '@switchyard/messaging';
import { pollUntil, spawnSimulator, type NodeProcess } from '@switchyard/testing';
import { PipelineStack, type PipelineConnection } from './pipeline-stack.js';

const DAY_MS = 86_400_000;
const SIM_START = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - 2 * DAY_MS);
const LEASE_MS = 1_000;
const MAX_ATTEMPTS = 2;
const apiToken = `samsara_api_${randomBytes(20).toString('hex')}`;

let simulator: NodeProcess | undefined;
let stack: PipelineStack;
let connection: PipelineConnection;
let nc: NatsConnection;

beforeAll(async () => {
  const sim = await spawnSimulator('samsara', { SAMSARA_API_TOKENS: apiToken, SIM_VEHICLES: '2', SIM_SEED: 'ingest-stream-full', SIM_CLOCK_FACTOR: '0', SIM_START: SIM_START.toISOString() });
  simulator = sim.process;
  stack = await PipelineStack.start({
    name: 'ingest-full',
    providerBaseUrls: { samsara: sim.url },
    orchestratorEnv: { LEASE_MS: String(LEASE_MS), COLLECTOR_MAX_ATTEMPTS: String(MAX_ATTEMPTS) },
  });
  const listed = await fetch(`${sim.url}/fleet/vehicles`, { headers: { authorization: `Bearer ${apiToken}` } });
  const roster = ((await listed.json()) as { data: { id: string }[] }).data.map((v) => v.id);
  connection = await stack.connect({ provider: 'samsara', credentials: { apiToken }, config: { approvedVehicleIds: roster } });
  nc = await connect({ servers: stack.natsUrl, name: 'ingest-stream-full' });
}, 120_000);

afterAll(async () => {
  await nc?.close();
  await stack?.close();
  await simulator?.kill();
});

describe('a full INGEST stream', () => {
  it('paces the units without spending their attempts and completes the sync once the stream has room', async () => {
    const jsm = await jetstreamManager(nc);
    const name = new Namespace(stack.namespace).stream(STREAMS.INGEST.name);
    const before = await jsm.streams.info(name);
    expect(before.config.discard).toBe('new');
    // Below any batch (and at least what it stores, so nothing stored is deleted by the update).
    await jsm.streams.update(name, { ...before.config, max_bytes: before.state.bytes + 200 });

    const sync = await connection.createSync({ startFrom: new Date(SIM_START.getTime() - DAY_MS).toISOString() });
    const paced = await pollUntil(
      async () => {
        const units = await connection.units(sync.id);
        const unit = units.find((u) => u.last_error_code === 'bus_unavailable' && u.throttle_requeues > MAX_ATTEMPTS + 1);
        return unit && { unit, units };
      },
      { timeoutMs: 60_000, intervalMs: 200, description: `a unit put back more than ${MAX_ATTEMPTS + 1} times for bus_unavailable` },
    );
    // Pacing, not failure: no error attempt counted, the sync still open, nothing stored in the stream.
    expect(paced.units.every((u) => u.error_attempts === 0)).toBe(true);
    const open = await connection.readSync(sync.id);
    expect(['requested', 'in_progress']).toContain(open.status);
    expect((await jsm.streams.info(name)).state.messages).toBe(before.state.messages);

    // Room again: the same sync completes.
    const refusedFor = Date.now();
    await jsm.streams.update(name, { ...before.config });
    const settled = await connection.settled(sync.id, 120_000);
    console.log(
      `[ingest-stream-full] stream limit ${before.state.bytes + 200} bytes: a unit was put back ${paced.unit.throttle_requeues} times (lease ${LEASE_MS} ms, max attempts ${MAX_ATTEMPTS}) with 0 error attempts; after room was made the sync ${settled.status} in ${Date.now() - refusedFor} ms`,
    );
    expect(settled).toMatchObject({ status: 'completed', progress: 100 });
  }, 240_000);
});
