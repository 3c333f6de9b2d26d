/**
 * Fault transitions from the Geotab simulator (explicit FaultData records) through the real
 * pipeline (sync-orchestrator collectors, directory, fault-feed, telemetry-ingest; PostgreSQL +
 * NATS JetStream): a connection starts watching with the scheduler's first window (five minutes),
 * then catches up 23 days in day-long windowed `faults` passes (internal runs of the scheduler's
 * kind), the simulator's clock moved to each window's end. One pass fails (FaultData refused):
 * nothing is stored, and the next pass collects its window again (startFrom = the end of the last
 * good window), so no record is lost.
 *
 * The first pass is the shape of issue 23: faults already active when we start watching, whose
 * records (one per ignition cycle) all lie before the five-minute window. The collector's first
 * fault pass reads 7 days back (the inactivity timeout), so they are found; the test checks the
 * fleet has such a fault.
 *
 * The expected transitions are derived here, from the records the simulator serves for each good
 * window (read through the Geotab adapter, the collector's source; the first pass over the 7-day
 * look-back), by the rules of docs/faults.md (Model 2) — written from the doc, not a call into
 * fault-derivation.ts: the first record of a key opens at its dateTime unless it is not later than
 * the key's last clear; a repeat moves last_observed_at; `dismissDateTime` clears; an occurrence
 * without a repeat for 7 days, measured against the end of the window read, clears at
 * last_observed_at + 7 days; the first pass says what was active when we started watching — what
 * it leaves open opens `bootstrap` at its window's end, what opened and cleared inside it is
 * history (no transition). Later a repeat before a clear is a late duplicate, a later record
 * re-opens a new occurrence, and the last week's faults stay open.
 * The HTTP feed (validated against the OpenAPI document) and the `fleet.faults` subjects must carry
 * exactly those transitions; the open faults at the end must be the oracle's open set (with their
 * `opened_at`); every vehicle's Telemetry `faultsObservedAt` is the last window's end (docs/faults.md:
 * the time its faults were read up to), also for a vehicle without any record.
 *
 * Mutations tried: no first-pass look-back in the collector (purpose-fetchers runFaults) → the
 * faults active before the first window are missing from the feed and the open faults; bootstrap
 * opens at their first record (no `watchedFrom` in fault-derivation) → opened_at and the history's
 * transitions differ; no `read` on the batches → fault-feed loses the window's end (the timeout
 * falls back to the fetch's wall clock: the transitions differ; faultsObservedAt would stay null
 * for a vehicle without records); bootstrap only for the connection's first batch (fault-feed before the
 * `explicit-bootstrap:<syncId>` mark) → the first pass's faults of all but one vehicle lose
 * `bootstrap`; the late-duplicate rule removed → extra opens and clears.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { vehicleId, type FaultRecord } from '@switchyard/domain';
import { collectPages, createGeotabAdapter } from '@switchyard/providers';
import { spawnSimulator, type NodeProcess } from '@switchyard/testing';
import { awaitFaultsObservedAt, collectFaultsRun, recordPipelineSubjects, setSimClock, setSimScenarios, walkPipelineFeed } from './faults-fixture.js';
import { PipelineStack, type PipelineConnection } from './pipeline-stack.js';

const login = { database: 'switchyard_faults', userName: 'faults@switchyard.example', password: randomBytes(16).toString('hex') };
const DAY_MS = 86_400_000;
/** docs/faults.md: an occurrence with no repeat for 7 days clears at last_observed_at + 7 days. */
const INACTIVITY_MS = 7 * DAY_MS;
const STEPS = 24;
/** The scheduler's first window (one five-minute window); the collector reads 7 days back from its end. */
const FIRST_WINDOW_MS = 5 * 60_000;
/** Simulated history before the first window (the fleet's faults run from its epoch in 2025). */
const HISTORY_DAYS = 10;
const FAILED_STEP = 6;
/**
 * Fixed simulated times (the fleet is a function of seed and time, and every rule is measured on
 * the simulator's clock — window ends — not on the fetch's wall clock), so the fleet's shapes at
 * the first window are the same on every run.
 */
const START_MS = Date.parse('2026-05-10T12:00:00.000Z');

type Expected = { kind: 'opened' | 'cleared'; vehicle: string; key: string; bootstrap: boolean; at: number; clearedBy: 'dismissed' | 'inactivity_timeout' | null };
type Open = { openedAt: number; lastObservedAt: number };

/** The doc's Model 2 over the passes, in order: state per (vehicle, key). */
class ExplicitRecordsOracle {
  readonly transitions: Expected[] = [];
  readonly open = new Map<string, Open & { vehicle: string; key: string }>();
  private readonly lastCleared = new Map<string, number>();
  private passes = 0;

  /** One successful pass: its records and the end of the window it read. */
  pass(records: readonly FaultRecord[], windowEnd: number): void {
    const bootstrap = this.passes++ === 0;
    const from = this.transitions.length;
    const ordered = [...records].sort((a, b) => Date.parse(a.observedAt) - Date.parse(b.observedAt) || a.sourceId.localeCompare(b.sourceId));
    for (const r of ordered) {
      const id = `${r.vehicleSourceId}|${r.faultKey}`;
      const at = Date.parse(r.observedAt);
      let occurrence = this.open.get(id);
      if (occurrence) occurrence.lastObservedAt = Math.max(occurrence.lastObservedAt, at);
      else if (!(at <= (this.lastCleared.get(id) ?? -Infinity))) {
        occurrence = { vehicle: r.vehicleSourceId, key: r.faultKey, openedAt: at, lastObservedAt: at };
        this.open.set(id, occurrence);
        this.transitions.push({ kind: 'opened', vehicle: r.vehicleSourceId, key: r.faultKey, bootstrap, at, clearedBy: null });
      }
      if (occurrence && r.dismissedAt !== null && Date.parse(r.dismissedAt) >= occurrence.openedAt) this.clear(id, Date.parse(r.dismissedAt), 'dismissed');
    }
    for (const [id, o] of [...this.open]) {
      const expires = o.lastObservedAt + INACTIVITY_MS;
      if (expires < windowEnd) this.clear(id, expires, 'inactivity_timeout');
    }
    if (!bootstrap) return;
    // What was active when we started watching opens then; what opened and cleared before is history.
    const pass = this.transitions.splice(from);
    const cleared = new Set(pass.filter((t) => t.kind === 'cleared').map((t) => `${t.vehicle}|${t.key}`));
    for (const t of pass) if (!cleared.has(`${t.vehicle}|${t.key}`)) this.transitions.push({ ...t, at: windowEnd });
    for (const o of this.open.values()) o.openedAt = windowEnd;
  }

  private clear(id: string, at: number, clearedBy: 'dismissed' | 'inactivity_timeout'): void {
    const o = this.open.get(id)!;
    this.open.delete(id);
    this.lastCleared.set(id, at);
    this.transitions.push({ kind: 'cleared', vehicle: o.vehicle, key: o.key, bootstrap: false, at, clearedBy });
  }
}

describe('fault transitions from the geotab simulator, window by window', () => {
  let sim: NodeProcess;
  let simUrl: string;
  let stack: PipelineStack;
  let connection: PipelineConnection;
  let approved: string[];
  let subjects: Awaited<ReturnType<typeof recordPipelineSubjects>>;
  /** One adapter (one session: Authenticate is limited to 10 a minute per user). */
  let oracleAdapter: ReturnType<typeof createGeotabAdapter> | undefined;
  const adapter = () => (oracleAdapter ??= createGeotabAdapter({ provider: 'geotab', baseUrl: simUrl, credentials: login }));

  beforeAll(async () => {
    const spawned = await spawnSimulator('geotab', {
      SIM_VEHICLES: '4',
      SIM_SEED: 'fault-sim-geotab-1',
      SIM_CLOCK_FACTOR: '0',
      SIM_START: new Date(START_MS).toISOString(),
      GEOTAB_DATABASE: login.database,
      GEOTAB_USERNAME: login.userName,
      GEOTAB_PASSWORD: login.password,
    });
    sim = spawned.process;
    simUrl = spawned.url;
    stack = await PipelineStack.start({ name: 'faultsim-geotab', contexts: ['directory', 'fault-feed', 'telemetry-ingest'], providerBaseUrls: { geotab: simUrl } });
    approved = (await collectPages((cursor) => adapter().vehicles(cursor), 100)).items.map((v) => v.sourceId).sort();
    connection = await stack.connect({
      provider: 'geotab',
      credentials: login,
      config: { purposes: { vehicles: true, groupMemberships: false, trips: false }, approvedVehicleIds: approved, selectedSignals: ['faults'], optIns: { groupInventory: false, vehicleMetadata: false, extendedTelemetry: false } },
    });
    subjects = await recordPipelineSubjects(stack, 'test-fault-sim-geotab');
  }, 120_000);

  afterAll(async () => {
    await subjects?.sub.drain();
    await stack?.close();
    await sim?.kill();
  });

  it('serves on the HTTP feed and the subjects exactly the transitions the FaultData records imply', async () => {
    const oracle = new ExplicitRecordsOracle();
    const readRecords = async (from: number, to: number) =>
      (await collectPages((cursor) => adapter().faults({ from: new Date(from).toISOString(), to: new Date(to).toISOString(), vehicleSourceIds: approved, cursor }), 1000)).items.filter((r) => r.model === 'explicit_records');
    // The first pass: the scheduler's five-minute first window; the collector reads 7 days back.
    const firstEnd = START_MS + HISTORY_DAYS * DAY_MS;
    await setSimClock(simUrl, firstEnd);
    const firstRecords = await readRecords(firstEnd - INACTIVITY_MS, firstEnd);
    expect(await collectFaultsRun(stack, connection.connectionId, { startFrom: new Date(firstEnd - FIRST_WINDOW_MS), intervalEnd: new Date(firstEnd) })).toBe('completed');
    oracle.pass(firstRecords, firstEnd);
    // Issue 23's shape: a fault active when we start watching without a record in the first window.
    const beforeWindow = [...oracle.open.values()].filter((o) => !firstRecords.some((r) => r.vehicleSourceId === o.vehicle && r.faultKey === o.key && Date.parse(r.observedAt) >= firstEnd - FIRST_WINDOW_MS));
    expect(beforeWindow.length).toBeGreaterThan(0);
    let collectedTo = firstEnd;
    let lastRecords: FaultRecord[] = [];
    for (let step = 1; step < STEPS; step++) {
      const windowEnd = firstEnd + step * DAY_MS;
      await setSimClock(simUrl, windowEnd);
      const window = { startFrom: new Date(collectedTo), intervalEnd: new Date(windowEnd) };
      if (step === FAILED_STEP) {
        await setSimScenarios(simUrl, login.database, [{ kind: 'missing_permission', typeName: 'FaultData' }]);
        expect(await collectFaultsRun(stack, connection.connectionId, window)).toBe('failed');
        await setSimScenarios(simUrl, login.database);
        continue;
      }
      // What the collector reads for this window (the clock stands still): the oracle's input.
      const records = await readRecords(collectedTo, windowEnd);
      expect(await collectFaultsRun(stack, connection.connectionId, window)).toBe('completed');
      oracle.pass(records, windowEnd);
      collectedTo = windowEnd;
      lastRecords = records;
    }
    const expected = oracle.transitions;
    // The history covers what the rules must: bootstrap opens, inactivity clears, a key re-opened, faults still open.
    expect(expected.some((e) => e.bootstrap)).toBe(true);
    expect(expected.some((e) => e.clearedBy === 'inactivity_timeout')).toBe(true);
    const opens = expected.filter((e) => e.kind === 'opened').map((e) => `${e.vehicle}|${e.key}`);
    expect(new Set(opens).size).toBeLessThan(opens.length);
    expect(oracle.open.size).toBeGreaterThan(0);

    const events = await walkPipelineFeed(connection);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    const mine = await subjects.of(connection.connectionId, events.length);
    // The subjects: the same transitions, same ids and order, and the key and clear reason of each.
    expect(mine.map((p) => [p.transitionId, p.sequence, p.kind, p.occurrenceId, p.observedAt, p.bootstrap])).toEqual(events.map((e) => [e.id, e.sequence, e.kind, e.occurrence_id, e.observed_at, e.bootstrap]));
    const vcl = (sourceId: string) => vehicleId({ connectionId: connection.connectionId, provider: 'geotab', sourceId });
    const row = (r: { kind: string; vehicle: string; key: string; bootstrap: boolean; at: number; clearedBy: string | null }) => `${r.vehicle} ${new Date(r.at).toISOString()} ${r.kind} ${r.key} ${r.clearedBy ?? '-'}${r.bootstrap ? ' bootstrap' : ''}`;
    const actualRows = mine.map((p) => ({ kind: p.kind, vehicle: p.vehicleId, key: p.faultKey, bootstrap: p.bootstrap, at: Date.parse(p.observedAt), clearedBy: p.clearedBy }));
    const expectedRows = expected.map((e) => ({ ...e, vehicle: vcl(e.vehicle) }));
    // Vehicles are collected as parallel units, so passes interleave across vehicles: per vehicle, the
    // feed's order is the oracle's (a pass's opens in record order, then its clears).
    const perVehicle = (rows: typeof actualRows) => [...new Set(rows.map((r) => r.vehicle))].sort().map((v) => rows.filter((r) => r.vehicle === v).map(row));
    expect(perVehicle(actualRows).map((rows) => [...rows].sort())).toEqual(perVehicle(expectedRows).map((rows) => [...rows].sort()));
    // The structured code travels the whole way (adapter, collector batch, fault-feed, payload): the simulator's FaultData `count` is always 1.
    for (const p of mine) expect(p.structured).toMatchObject({ standard: 'geotab', diagnosticId: p.faultKey.split('|')[1], occurrenceCount: 1 });
    // Each occurrence: opened, then (maybe) cleared, in sequence order.
    const byOccurrence = new Map<string, string[]>();
    for (const p of mine) byOccurrence.set(p.occurrenceId, [...(byOccurrence.get(p.occurrenceId) ?? []), p.kind]);
    for (const kinds of byOccurrence.values()) expect(['opened', 'opened,cleared']).toContain(kinds.join(','));

    // Open faults now: exactly the oracle's open occurrences.
    const open = await connection.read(`/v1/connections/${connection.connectionId}/faults`);
    expect(open.status).toBe(200);
    const openNow = (open.body as { faults: { vehicle_id: string; fault_key: string; opened_at: string }[] }).faults.map((f) => `${f.vehicle_id}|${f.fault_key}|${f.opened_at}`).sort();
    expect(openNow).toEqual([...oracle.open.values()].map((o) => `${vcl(o.vehicle)}|${o.key}|${new Date(o.openedAt).toISOString()}`).sort());
    const bootstrapOpen = (open.body as { faults: { bootstrap: boolean; opened_at: string }[] }).faults.filter((f) => f.bootstrap);
    expect(bootstrapOpen.every((f) => f.opened_at === new Date(firstEnd).toISOString())).toBe(true);

    // Telemetry faultsObservedAt: the time each vehicle's faults were read up to — the last window's end, with or without records.
    expect(approved.some((v) => !lastRecords.some((r) => r.vehicleSourceId === v))).toBe(true);
    for (const v of approved) await awaitFaultsObservedAt(connection, vcl(v), new Date(collectedTo).toISOString());
  }, 300_000);
});
