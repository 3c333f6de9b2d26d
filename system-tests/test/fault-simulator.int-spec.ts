/**
 * Fault transitions from the Samsara and Motive simulators (complete snapshots) through the real pipeline (gateway, sync-orchestrator
 * collectors, directory, fault-feed; PostgreSQL + NATS JetStream): the simulator's clock is moved a
 * day at a time over 40 days and a faults collection runs at each step (the collector reads the
 * CURRENT complete snapshot of every approved vehicle). At one step the provider fails every
 * request (scenario `server_errors`): the run fails, no snapshot is stored, nothing clears (at that
 * step a fault of one vehicle is still open and another vehicle's new fault is already active: a
 * failed pass that stored an empty or partial snapshot would clear the first and open the second
 * at the failed step, and the times or steps compared below would not match). The
 * expected transitions come from the simulator's own snapshots at the successful steps (read
 * through the Samsara adapter, the collector's source) by set difference per vehicle — the first
 * snapshot's codes open as bootstrap, a code that appears opens, one that disappears clears, a code
 * that comes back opens a new occurrence. The HTTP feed (validated against the OpenAPI document)
 * and the `fleet.faults` subjects must carry exactly that sequence; the open faults at the end
 * must be the last snapshot's codes. The fleet (seed `fault-sim-3` from 2026-05-10) is checked to contain a
 * bootstrap fault, clears and a re-opened key, so the test covers them.
 * Times (docs/faults.md, issue 31): a complete snapshot is observed when we read it — for both
 * providers every transition's time is the read of its step (Samsara's faultCodes value carries
 * the vehicle's last change on the simulator's clock, weeks before a quiet vehicle's read), a
 * bootstrap fault opens at the first read, and every vehicle's Telemetry `faultsObservedAt` is the
 * last read. Mutation tried: the Samsara adapter keeps the value's own time for the current
 * snapshot → its bootstrap opens fall before the first step and its faultsObservedAt lies weeks
 * before the last read: this test fails for Samsara.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { vehicleId, type Provider } from '@switchyard/domain';
import { collectPages, createMotiveAdapter, createSamsaraAdapter, type ProviderAdapter } from '@switchyard/providers';
import { spawnSimulator, type NodeProcess } from '@switchyard/testing';
import { awaitFaultsObservedAt, collectFaultsRun, recordPipelineSubjects, setSimClock, setSimScenarios, walkPipelineFeed } from './faults-fixture.js';
import { PipelineStack, type PipelineConnection } from './pipeline-stack.js';

const token = `samsara_api_${randomBytes(20).toString('hex')}`;
const motiveKey = randomBytes(20).toString('hex');

/** Per provider: the simulator's credentials variable, the account its scenarios are set on, the adapter, the connection's credentials. */
const PROVIDERS: { provider: Provider; env: Record<string, string>; account: string; adapter: (baseUrl: string) => ProviderAdapter; credentials: Record<string, string> }[] = [
  { provider: 'samsara', env: { SAMSARA_API_TOKENS: token }, account: token, adapter: (baseUrl) => createSamsaraAdapter({ provider: 'samsara', baseUrl, credentials: { apiToken: token } }), credentials: { apiToken: token } },
  { provider: 'motive', env: { MOTIVE_API_KEYS: motiveKey }, account: motiveKey, adapter: (baseUrl) => createMotiveAdapter({ provider: 'motive', baseUrl, credentials: { apiKey: motiveKey } }), credentials: { apiKey: motiveKey } },
];
const DAY_MS = 86_400_000;
const START_MS = Date.parse('2026-05-10T12:00:00.000Z');
const STEPS = 40;
const FAILED_STEP = 17;

type Expected = { kind: 'opened' | 'cleared'; vehicle: string; key: string; bootstrap: boolean; when: number };

describe.each(PROVIDERS)('fault transitions from the $provider simulator, step by step', ({ provider, env, account, adapter: adapterFor, credentials }) => {
  let sim: NodeProcess;
  let simUrl: string;
  let stack: PipelineStack;
  let connection: PipelineConnection;
  let subjects: Awaited<ReturnType<typeof recordPipelineSubjects>>;
  let approved: string[];
  const adapter = () => adapterFor(simUrl);

  beforeAll(async () => {
    const spawned = await spawnSimulator(provider, { SIM_VEHICLES: '4', SIM_SEED: 'fault-sim-3', SIM_CLOCK_FACTOR: '0', SIM_START: new Date(START_MS).toISOString(), ...env });
    sim = spawned.process;
    simUrl = spawned.url;
    stack = await PipelineStack.start({ name: `faultsim-${provider}`, contexts: ['directory', 'fault-feed', 'telemetry-ingest'], providerBaseUrls: { [provider]: simUrl } });
    const ids = (await collectPages((cursor) => adapter().vehicles(cursor), 100)).items.map((v) => v.sourceId).sort();
    approved = ids;
    connection = await stack.connect({
      provider,
      credentials,
      config: { purposes: { vehicles: true, groupMemberships: false, trips: false }, approvedVehicleIds: ids, selectedSignals: ['faults'], optIns: { groupInventory: false, vehicleMetadata: false, extendedTelemetry: false } },
    });
    subjects = await recordPipelineSubjects(stack, `test-fault-sim-${provider}`);
  }, 120_000);

  afterAll(async () => {
    await subjects?.sub.drain();
    await stack?.close();
    await sim?.kill();
  });

  const setClock = (nowMs: number) => setSimClock(simUrl, nowMs);
  const collectFaults = () => collectFaultsRun(stack, connection.connectionId);

  it('serves on the HTTP feed and the subjects exactly the transitions the simulator’s snapshots imply', async () => {
    const expected: Expected[] = [];
    const last = new Map<string, Set<string>>(); // vehicle → codes of its last stored snapshot
    // When a transition happened, on both sides: a snapshot is observed at its read (the wall clock
    // of the fetch), a little later for the collector than for the oracle: compared as the step,
    // the last one the oracle read at or before the event's observed_at.
    const stepAt: { step: number; ms: number }[] = [];
    let lastRead = { from: 0, to: 0 };
    for (let step = 0; step < STEPS; step++) {
      await setClock(START_MS + step * DAY_MS);
      if (step === FAILED_STEP) {
        await setSimScenarios(simUrl, account, [{ kind: 'server_errors', requests: 1000, status: 503 }]);
        expect(await collectFaults()).toBe('failed');
        await setSimScenarios(simUrl, account);
        continue;
      }
      // What the collector will read now (the clock stands still): the oracle's input.
      const current = (await collectPages((cursor) => adapter().faults({ vehicleSourceIds: approved, cursor }), 1000)).items;
      stepAt.push({ step, ms: Math.min(...current.map((c) => Date.parse(c.observedAt))) });
      const from = Date.now();
      expect(await collectFaults()).toBe('completed');
      lastRead = { from, to: Date.now() };
      for (const s of [...current].sort((a, b) => a.vehicleSourceId.localeCompare(b.vehicleSourceId))) {
        if (s.model !== 'complete_snapshot') continue;
        const before = last.get(s.vehicleSourceId);
        const now = new Set(s.active.map((c) => c.faultKey));
        const when = step;
        if (before) for (const key of before) if (!now.has(key)) expected.push({ kind: 'cleared', vehicle: s.vehicleSourceId, key, bootstrap: false, when });
        for (const c of s.active) if (!before?.has(c.faultKey)) expected.push({ kind: 'opened', vehicle: s.vehicleSourceId, key: c.faultKey, bootstrap: before === undefined, when });
        last.set(s.vehicleSourceId, now);
      }
    }
    // The fleet covers what the scenarios must: bootstrap opens, clears, and a key that opened again.
    expect(expected.some((e) => e.bootstrap)).toBe(true);
    expect(expected.some((e) => e.kind === 'cleared')).toBe(true);
    const opens = expected.filter((e) => e.kind === 'opened').map((e) => `${e.vehicle}|${e.key}`);
    expect(new Set(opens).size).toBeLessThan(opens.length);

    // The HTTP feed, walked with its cursor.
    const events = await walkPipelineFeed(connection);
    const keys = new Map((await stack.sql<{ id: string; fault_key: string }>(`select id::text as id, fault_key from $faults.fault_occurrence where connection_id = ?::uuid`, [connection.connectionId])).map((r) => [r.id, r.fault_key]));
    const vcl = (sourceId: string) => vehicleId({ connectionId: connection.connectionId, provider, sourceId });
    // Within one step the order is the pipeline's (vehicles in parallel units, clears before opens per vehicle): compare per step and vehicle, in order.
    const group = <T>(rows: T[], keyOf: (r: T) => string) => rows.reduce((m, r) => m.set(keyOf(r), [...(m.get(keyOf(r)) ?? []), r]), new Map<string, T[]>());
    const stepOf = (observedAt: string) => stepAt.filter((x) => x.ms <= Date.parse(observedAt)).at(-1)?.step ?? -1;
    const actualRows = events.map((e) => ({ kind: e.kind, vehicle: e.vehicle_id, key: keys.get(e.occurrence_id), bootstrap: e.bootstrap, when: stepOf(e.observed_at) }));
    const expectedRows = expected.map((e) => ({ kind: e.kind, vehicle: vcl(e.vehicle), key: e.key, bootstrap: e.bootstrap, when: e.when }));
    expect(actualRows).toHaveLength(expectedRows.length);
    const byVehicle = (rows: typeof actualRows) => group(rows, (r) => r.vehicle);
    const sortWithin = (rows: typeof actualRows) => [...rows].sort((a, b) => a.when - b.when || (a.kind === b.kind ? String(a.key).localeCompare(String(b.key)) : a.kind === 'cleared' ? -1 : 1));
    for (const [vehicle, rows] of byVehicle(expectedRows)) expect({ vehicle, rows: sortWithin(byVehicle(actualRows).get(vehicle) ?? []) }).toEqual({ vehicle, rows: sortWithin(rows) });
    // Per vehicle, the feed is already in time order (sequence = commit order).
    for (const rows of byVehicle(actualRows).values()) expect(rows.map((r) => r.when)).toEqual([...rows.map((r) => r.when)].sort((a, b) => a - b));
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));

    // The subjects: the same transitions, same ids and order.
    const mine = await subjects.of(connection.connectionId, events.length);
    expect(mine.map((p) => [p.transitionId, p.sequence, p.kind])).toEqual(events.map((e) => [e.id, e.sequence, e.kind]));

    // Open faults now: exactly the last stored snapshot's codes.
    const open = await connection.read(`/v1/connections/${connection.connectionId}/faults`);
    expect(open.status).toBe(200);
    const openNow = (open.body as { faults: { vehicle_id: string; fault_key: string }[] }).faults.map((f) => `${f.vehicle_id}|${f.fault_key}`).sort();
    expect(openNow).toEqual([...last].flatMap(([v, codes]) => [...codes].map((k) => `${vcl(v)}|${k}`)).sort());

    // Telemetry faultsObservedAt: every vehicle's faults were last read by the last collection.
    for (const v of approved) await awaitFaultsObservedAt(connection, vcl(v), (at) => at !== null && Date.parse(at) >= lastRead.from && Date.parse(at) <= lastRead.to);
  }, 600_000);
});
