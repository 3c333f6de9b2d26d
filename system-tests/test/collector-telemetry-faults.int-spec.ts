/**
 * Internal collection runs end to end on the real PostgreSQL and NATS: gateway, sync-orchestrator
 * (collectors, receipt consumer), directory, telemetry-ingest and fault-feed, with the Samsara
 * (complete fault snapshots) and Geotab (explicit fault records) simulators as their own processes
 * on a fixed simulated clock, so every provider answer is the same in every call.
 *
 * An internal run (`SyncLifecycleService.createInternal`, what the scheduled collection calls) with
 * drivers, groups, telemetryLatest, telemetryHistory and faults completes only through the owning
 * contexts' receipts; directory then holds the provider's drivers and groups, telemetry-ingest
 * exactly the observations (history and latest) the provider reports for the approved vehicles and
 * the COVERED metrics (Geotab selects odometer only, without the opt-in: no location, no engine
 * hours, nothing optional; Samsara's engine hours and optional metrics need and have the
 * extended-telemetry opt-in), fault-feed the fault occurrences of
 * the approved vehicles. Running the same window again changes no stored row. Internal runs are
 * invisible to `GET /v1/syncs` and `GET /v1/syncs/{id}`, do not move the public default startFrom,
 * and the public API refuses an internal purpose. Telemetry with an extended metric sets the
 * connection's `extended_last_success_at`; a provider refusal of the extended stat types sets its
 * `extended_last_error_code` while the run completes with the core readings (issue 31).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { TELEMETRY_METRICS, type Observation, type Provider, type TelemetryMetric } from '@switchyard/domain';
import { FAULT_INACTIVITY_TIMEOUT_MS } from '@switchyard/contracts';
import { collectPages, createGeotabAdapter, createSamsaraAdapter, type ProviderAdapter } from '@switchyard/providers';
import { pollUntil, spawnSimulator, type NodeProcess } from '@switchyard/testing';
import { INTERNAL_SYNC_PURPOSES, SCHEDULED_ORIGIN, SyncLifecycleService, type InternalRun } from '@switchyard/sync-orchestrator';
import { PipelineStack, type PipelineConnection, type PublicSync } from './pipeline-stack.js';

const samsaraToken = `samsara_api_${randomBytes(20).toString('hex')}`;
const geotab = { database: 'switchyard_demo', userName: 'sandbox@switchyard.example', password: randomBytes(16).toString('hex') };

/** The simulators' fixed clock: a weekday afternoon, so the day before holds driving. */
const SIM_NOW = '2026-06-10T15:00:00.000Z';
const WINDOW = { startFrom: new Date(Date.parse(SIM_NOW) - 86_400_000), intervalEnd: new Date(SIM_NOW) };

const simulators: NodeProcess[] = [];
let stack: PipelineStack;

interface Fleet {
  provider: Provider;
  connection: PipelineConnection;
  connectionId: string;
  adapter: ProviderAdapter;
  approved: string[];
  unapproved: string;
  metrics: TelemetryMetric[];
}
const fleets: Record<'samsara' | 'geotab', Fleet> = {} as Record<'samsara' | 'geotab', Fleet>;

let samsaraUrl: string;

async function runInternal(fleet: Fleet): Promise<InternalRun> {
  const lifecycle = stack.orchestrator.app.get(SyncLifecycleService);
  const result = await lifecycle.createInternal({ connectionId: fleet.connectionId, purposes: [...INTERNAL_SYNC_PURPOSES], ...WINDOW, origin: SCHEDULED_ORIGIN });
  if (!result.created) throw new Error(`internal run not created: ${result.reason} ${result.detail}`);
  let last: InternalRun | undefined;
  await pollUntil(
    async () => {
      last = await lifecycle.getInternal(result.run.id);
      return last?.status === 'completed' || last?.status === 'failed';
    },
    { timeoutMs: 90_000, intervalMs: 250, description: `internal run ${result.run.id} settled` },
  );
  return last!;
}

const obsKey = (vehicle: string, metric: string, observedAtMs: number, source: string) => `${vehicle}|${metric}|${observedAtMs}|${source}`;

/** What the provider reports for the approved vehicles: history of the window plus the latest readings. */
async function expectedObservations(fleet: Fleet): Promise<Observation[]> {
  const history = await collectPages(
    (cursor) => fleet.adapter.telemetryHistory({ from: WINDOW.startFrom.toISOString(), to: WINDOW.intervalEnd.toISOString(), metrics: fleet.metrics, vehicleSourceIds: fleet.approved, cursor }),
    10_000,
  );
  const latest = await collectPages((cursor) => fleet.adapter.latestTelemetry({ metrics: fleet.metrics, vehicleSourceIds: fleet.approved, cursor }), 1_000);
  return [...history.items, ...latest.items].filter((o) => fleet.approved.includes(o.vehicleSourceId));
}

async function storedObservations(fleet: Fleet): Promise<{ vehicle_source_id: string; metric: string; at: string; source: string }[]> {
  return stack.sql(
    `select vehicle_source_id, metric, (extract(epoch from observed_at) * 1000)::bigint::text as at, source from $telemetry.observations where connection_id = ?::uuid`,
    [fleet.connectionId],
  );
}

/** Every stored content column of every context for the connection (fetch bookkeeping excluded). */
async function storedContent(fleet: Fleet): Promise<Record<string, unknown[]>> {
  const id = [fleet.connectionId];
  return {
    observations: await stack.sql(`select vehicle_id, metric, observed_at, source, value, value_num, units from $telemetry.observations where connection_id = ?::uuid order by 1, 2, 3, 4`, id),
    latest: await stack.sql(`select vehicle_id, metric, observed_at, source, value from $telemetry.latest_readings where connection_id = ?::uuid order by 1, 2`, id),
    // A snapshot fault's last_observed_at is our latest read that listed it (docs/faults.md "Times"): the
    // same window read again moves it, as fetched_at; an explicit record's is the provider's and is kept.
    occurrences: await stack.sql(`select id, vehicle_source_id, fault_key, code, opened_at, case when model = 'explicit_records' then last_observed_at end as last_observed_at, cleared_at, cleared_by from $faults.fault_occurrence where connection_id = ?::uuid order by id`, id),
    transitions: await stack.sql(`select sequence, occurrence_id, kind, observed_at from $faults.fault_transition where connection_id = ?::uuid order by sequence`, id),
    drivers: await stack.sql(`select id, source_id, status, display_name, fields, group_ids, modified_at from $directory.driver where connection_id = ?::uuid order by id`, id),
    groups: await stack.sql(`select id, source_id, name, parent_source_id, modified_at from $directory."group" where connection_id = ?::uuid order by id`, id),
  };
}

beforeAll(async () => {
  const simEnv = { SIM_VEHICLES: '3', SIM_SEED: 'telemetry-faults', SIM_CLOCK_FACTOR: '0', SIM_START: SIM_NOW };
  const samsaraSim = await spawnSimulator('samsara', { ...simEnv, SAMSARA_API_TOKENS: samsaraToken });
  simulators.push(samsaraSim.process);
  samsaraUrl = samsaraSim.url;
  const geotabSim = await spawnSimulator('geotab', { ...simEnv, GEOTAB_DATABASE: geotab.database, GEOTAB_USERNAME: geotab.userName, GEOTAB_PASSWORD: geotab.password });
  simulators.push(geotabSim.process);
  stack = await PipelineStack.start({ name: 'telfault', contexts: ['directory', 'telemetry-ingest', 'fault-feed'], providerBaseUrls: { samsara: samsaraSim.url, geotab: geotabSim.url } });

  const setups = [
    {
      provider: 'samsara' as const,
      adapter: createSamsaraAdapter({ provider: 'samsara', baseUrl: samsaraSim.url, credentials: { apiToken: samsaraToken } }),
      providerCredentials: { apiToken: samsaraToken },
      // Four signals with the extended-telemetry opt-in: engine hours and every optional metric Samsara has.
      signals: ['odometer', 'location', 'engineHours', 'faults'] as const,
      extendedTelemetry: true,
      metrics: [...TELEMETRY_METRICS],
    },
    {
      provider: 'geotab' as const,
      adapter: createGeotabAdapter({ provider: 'geotab', baseUrl: geotabSim.url, credentials: geotab }),
      providerCredentials: geotab,
      // Location and engine hours are not selected: they must not be collected.
      signals: ['odometer', 'faults'] as const,
      extendedTelemetry: false,
      metrics: ['odometer'] as TelemetryMetric[],
    },
  ];
  for (const setup of setups) {
    const listed = await collectPages((cursor) => setup.adapter.vehicles(cursor), 100);
    const ids = listed.items.map((v) => v.sourceId).sort();
    expect(ids).toHaveLength(3);
    const connection = await stack.connect({
      provider: setup.provider,
      credentials: setup.providerCredentials,
      config: {
        purposes: { vehicles: true, groupMemberships: false, trips: false },
        approvedVehicleIds: ids.slice(0, 2),
        selectedSignals: [...setup.signals],
        optIns: { groupInventory: false, vehicleMetadata: false, extendedTelemetry: setup.extendedTelemetry },
      },
    });
    fleets[setup.provider] = { provider: setup.provider, connection, connectionId: connection.connectionId, adapter: setup.adapter, approved: ids.slice(0, 2), unapproved: ids[2]!, metrics: setup.metrics };
  }
}, 120_000);

afterAll(async () => {
  await stack?.close();
  for (const sim of simulators) await sim.kill();
});

describe.each(['samsara', 'geotab'] as const)('an internal run on %s', (name) => {
  let run: InternalRun;
  let content: Record<string, unknown[]>;

  it('completes only through the owning contexts’ receipts', async () => {
    const fleet = fleets[name];
    run = await runInternal(fleet);
    expect(run).toMatchObject({ status: 'completed', origin: SCHEDULED_ORIGIN, failureReason: null, startFrom: WINDOW.startFrom.toISOString(), intervalEnd: WINDOW.intervalEnd.toISOString() });
    expect(run.receiptedUnits).toBe(run.admittedUnits);
    const units = await stack.sql<{ purpose: string; vehicle_source_id: string | null; state: string; context: string | null }>(
      `select u.purpose, u.vehicle_source_id, u.state, (select string_agg(r.context, ',') from $orchestrator.sync_receipt r where r.unit_id = u.id) as context
         from $orchestrator.sync_unit u where u.sync_id = ? order by u.seq`,
      [run.id],
    );
    const [a, b] = fleet.approved;
    // One connection-level unit each for drivers and groups; one slice of history (the window is one day).
    expect(units.map((u) => [u.purpose, u.vehicle_source_id])).toEqual([
      ['drivers', null],
      ['groups', null],
      ['telemetryLatest', a],
      ['telemetryLatest', b],
      ['faults', a],
      ['faults', b],
      ['telemetryHistory', a],
      ['telemetryHistory', b],
    ]);
    const contextOf: Record<string, string> = { drivers: 'directory', groups: 'directory', telemetryLatest: 'telemetry-ingest', telemetryHistory: 'telemetry-ingest', faults: 'fault-feed' };
    for (const u of units) expect(u).toMatchObject({ state: 'receipted', context: contextOf[u.purpose] });
  }, 120_000);

  it('stores the provider’s drivers and groups in directory', async () => {
    const fleet = fleets[name];
    const drivers = await collectPages((cursor) => fleet.adapter.drivers(cursor), 100);
    const groups = await collectPages((cursor) => fleet.adapter.groups(cursor), 100);
    expect(drivers.items.length).toBeGreaterThan(0);
    const storedDrivers = await stack.sql<{ source_id: string }>(`select source_id from $directory.driver where connection_id = ?::uuid`, [fleet.connectionId]);
    expect(storedDrivers.map((d) => d.source_id).sort()).toEqual([...new Set(drivers.items.map((d) => d.sourceId))].sort());
    const storedGroups = await stack.sql<{ source_id: string }>(`select source_id from $directory."group" where connection_id = ?::uuid`, [fleet.connectionId]);
    expect(storedGroups.map((g) => g.source_id).sort()).toEqual([...new Set(groups.items.map((g) => g.sourceId))].sort());
  });

  it('stores exactly the covered metrics’ observations of the approved vehicles, history and latest', async () => {
    const fleet = fleets[name];
    const expected = await expectedObservations(fleet);
    expect(expected.length).toBeGreaterThan(0);
    const stored = await storedObservations(fleet);
    expect(stored.map((o) => obsKey(o.vehicle_source_id, o.metric, Number(o.at), o.source)).sort()).toEqual(
      [...new Set(expected.map((o) => obsKey(o.vehicleSourceId, o.metric, Date.parse(o.observedAt), o.source)))].sort(),
    );
    // Only covered metrics (Geotab: odometer only; Samsara: all nine, where its vehicles report them), never the unapproved vehicle.
    expect(stored.every((o) => fleet.metrics.includes(o.metric as TelemetryMetric))).toBe(true);
    if (name === 'samsara') expect(new Set(stored.map((o) => o.metric)).size).toBeGreaterThanOrEqual(8);
    expect(stored.some((o) => o.vehicle_source_id === fleet.unapproved)).toBe(false);

    // The latest table holds the newest reading per vehicle and metric.
    const newest = new Map<string, number>();
    for (const o of expected) {
      const key = `${o.vehicleSourceId}|${o.metric}`;
      newest.set(key, Math.max(newest.get(key) ?? 0, Date.parse(o.observedAt)));
    }
    const latest = await stack.sql<{ vehicle_source_id: string; metric: string; at: string }>(
      `select vehicle_source_id, metric, (extract(epoch from observed_at) * 1000)::bigint::text as at from $telemetry.latest_readings where connection_id = ?::uuid`,
      [fleet.connectionId],
    );
    expect(Object.fromEntries(latest.map((l) => [`${l.vehicle_source_id}|${l.metric}`, Number(l.at)]))).toEqual(Object.fromEntries(newest));
  });

  it('stores the approved vehicles’ faults in fault-feed (snapshots or records, by the provider’s model)', async () => {
    const fleet = fleets[name];
    const occurrences = await stack.sql<{ vehicle_source_id: string; fault_key: string; model: string; cleared_at: string | null }>(
      `select vehicle_source_id, fault_key, model, cleared_at from $faults.fault_occurrence where connection_id = ?::uuid`,
      [fleet.connectionId],
    );
    expect(occurrences.every((o) => o.model === fleet.adapter.capabilities.faultModel)).toBe(true);
    expect(occurrences.some((o) => o.vehicle_source_id === fleet.unapproved)).toBe(false);
    const key = (vehicle: string, faultKey: string) => `${vehicle}|${faultKey}`;
    if (fleet.adapter.capabilities.faultModel === 'complete_snapshot') {
      // The current snapshot's active codes are exactly the open occurrences.
      const page = await collectPages((cursor) => fleet.adapter.faults({ vehicleSourceIds: fleet.approved, cursor }), 100);
      const active = page.items.flatMap((s) => (s.model === 'complete_snapshot' ? s.active.map((c) => key(s.vehicleSourceId, c.faultKey)) : []));
      expect(active.length).toBeGreaterThan(0);
      expect(occurrences.filter((o) => o.cleared_at === null).map((o) => key(o.vehicle_source_id, o.fault_key)).sort()).toEqual([...new Set(active)].sort());
    } else {
      // Every fault key recorded inside what the first pass reads opened an occurrence: the window, widened
      // to FAULT_INACTIVITY_TIMEOUT_MS before its end (a fault active when we start watching, issue 23 item 2).
      const from = new Date(Math.min(WINDOW.startFrom.getTime(), WINDOW.intervalEnd.getTime() - FAULT_INACTIVITY_TIMEOUT_MS));
      const records = await collectPages(
        (cursor) => fleet.adapter.faults({ from: from.toISOString(), to: WINDOW.intervalEnd.toISOString(), vehicleSourceIds: fleet.approved, cursor }),
        1_000,
      );
      const keys = records.items.flatMap((r) => (r.model === 'explicit_records' ? [key(r.vehicleSourceId, r.faultKey)] : []));
      expect(keys.length).toBeGreaterThan(0);
      expect([...new Set(occurrences.map((o) => key(o.vehicle_source_id, o.fault_key)))].sort()).toEqual([...new Set(keys)].sort());
    }
  });

  it('changes no stored row when the same window runs again', async () => {
    const fleet = fleets[name];
    content = await storedContent(fleet);
    // Something of every kind is stored, so an equal second read means something.
    for (const table of ['observations', 'latest', 'occurrences', 'transitions', 'drivers', 'groups']) expect(content[table]!.length).toBeGreaterThan(0);
    const again = await runInternal(fleet);
    expect(again).toMatchObject({ status: 'completed' });
    expect(again.id).not.toBe(run.id);
    expect(await storedContent(fleet)).toEqual(content);
  }, 120_000);
});

describe('internal runs and the public API', () => {
  it('hides internal runs from GET /v1/syncs and GET /v1/syncs/{id}', async () => {
    const [internal] = await stack.sql<{ id: string }>(`select id from $orchestrator.sync where connection_id = ?::uuid and origin = ? limit 1`, [
      fleets.samsara.connectionId,
      SCHEDULED_ORIGIN,
    ]);
    expect(internal).toBeDefined();
    const samsara = fleets.samsara.connection;
    const list = await samsara.request('GET', '/v1/syncs');
    expect(list.status).toBe(200);
    expect((list.body as { syncs: { id: string }[] }).syncs).toEqual([]);
    const one = await samsara.request('GET', `/v1/syncs/${internal!.id}`);
    expect(one.status).toBe(404);
    expect(one.body).toEqual({ error: 'not_found' });
  });

  it('refuses an internal purpose on POST /v1/syncs', async () => {
    const res = await fleets.samsara.connection.request('POST', '/v1/syncs', { purposes: ['telemetryLatest'] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_body' });
  });

  it('leaves the public default startFrom alone: the first public sync still starts now', async () => {
    const samsara = fleets.samsara.connection;
    const res = await samsara.request('POST', '/v1/syncs', {});
    const sync = res.body as PublicSync;
    expect(res.status).toBe(201);
    expect(sync.startFrom).toBe(sync.requestedAt);
    // Let it finish, so its health observation lands before the tests below read health.
    await pollUntil(async () => (await samsara.readSync(sync.id)).status === 'completed', {
      timeoutMs: 60_000,
      description: 'public sync completed',
    });
  });

  it('counts telemetry with an extended metric for the extended health fields', async () => {
    await pollUntil(async () => typeof (await fleets.samsara.connection.health()).extended_last_success_at === 'string', { timeoutMs: 20_000, description: 'extended success' });
    const samsara = await fleets.samsara.connection.health();
    expect(samsara).toMatchObject({ last_error_code: null, extended_last_error_code: null });
    expect(typeof samsara.last_success_at).toBe('string');
    // Geotab collects odometer only (core): no extended observation.
    const geotabRow = await fleets.geotab.connection.health();
    expect(typeof geotabRow.last_success_at).toBe('string');
    expect(geotabRow.extended_last_success_at ?? null).toBeNull();
  });

  // Issue 31: a provider refusal of the extended fields is the extended health's, and costs the core
  // readings nothing. Mutations tried: extendedLaneFailure answering 'fail' for
  // provider_scope_mismatch (the refusal thrown like any failure) fails the run with that code; the
  // collector reporting the extended scope `success` regardless leaves extended_last_error_code
  // null — each fails this test.
  it('a refusal of the extended stat types: the run completes with the core readings, extended_last_error_code reports it', async () => {
    const fleet = fleets.samsara;
    const scenarios = `${samsaraUrl}/_sim/accounts/${samsaraToken}/scenarios`;
    const refuse = [{ kind: 'missing_permission', pathPrefix: '/fleet/vehicles/stats', typeName: 'fuelPercents' }];
    expect((await fetch(scenarios, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(refuse) })).status).toBe(200);
    await stack.sql(`delete from $telemetry.latest_readings where connection_id = ?::uuid and metric in ('odometer', 'fuelPercent')`, [fleet.connectionId]);
    try {
      expect(await runInternal(fleet)).toMatchObject({ status: 'completed', failureReason: null });
      await pollUntil(async () => (await fleet.connection.health()).extended_last_error_code === 'provider_scope_mismatch', { timeoutMs: 20_000, description: 'the refusal in extended health' });
      expect(await fleet.connection.health()).toMatchObject({ last_error_code: null, extended_last_error_code: 'provider_scope_mismatch' });
      // The core lane ran before the refused call: the odometer is back, the fuel level (asked only in the refused call) not.
      const latest = await stack.sql<{ metric: string }>(`select distinct metric from $telemetry.latest_readings where connection_id = ?::uuid`, [fleet.connectionId]);
      expect(latest.map((r) => r.metric)).toContain('odometer');
      expect(latest.map((r) => r.metric)).not.toContain('fuelPercent');
    } finally {
      await fetch(scenarios, { method: 'DELETE' });
    }
    // Granted again: the next run's extended success clears the code.
    expect(await runInternal(fleet)).toMatchObject({ status: 'completed' });
    await pollUntil(async () => (await fleet.connection.health()).extended_last_error_code === null, { timeoutMs: 20_000, description: 'extended health recovered' });
  }, 180_000);

  it('fails a run with the provider’s code on revoked credentials, reports it for both health scopes and erases nothing', async () => {
    const fleet = fleets.samsara;
    const scenarios = `${samsaraUrl}/_sim/accounts/${samsaraToken}/scenarios`;
    const revoke = await fetch(scenarios, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify([{ kind: 'revoke_credential', afterRequests: 0 }]) });
    expect(revoke.status).toBe(200);
    const before = await storedContent(fleet);
    const healthBefore = await fleet.connection.health();
    try {
      const failed = await runInternal(fleet);
      expect(failed).toMatchObject({ status: 'failed', failureReason: 'provider_auth_required' });
      await pollUntil(
        async () => {
          const c = await fleet.connection.health();
          return c.last_error_code === 'provider_auth_required' && c.extended_last_error_code === 'provider_auth_required';
        },
        { timeoutMs: 20_000, description: 'provider_auth_required in core and extended health' },
      );
      const after = await fleet.connection.health();
      expect(after.last_success_at).toBe(healthBefore.last_success_at);
      expect(after.extended_last_success_at).toBe(healthBefore.extended_last_success_at);
      expect(await storedContent(fleet)).toEqual(before);
    } finally {
      await fetch(scenarios, { method: 'DELETE' });
    }
  }, 120_000);

  it('continues an internal run from the previous one, and creates none while the connection is paused', async () => {
    const fleet = fleets.geotab;
    const lifecycle = stack.orchestrator.app.get(SyncLifecycleService);
    const previous = await lifecycle.latestInternal(fleet.connectionId, SCHEDULED_ORIGIN);
    expect(previous?.intervalEnd).toBe(WINDOW.intervalEnd.toISOString());
    const next = await lifecycle.createInternal({ connectionId: fleet.connectionId, purposes: ['drivers', 'faults'], origin: SCHEDULED_ORIGIN });
    if (!next.created) throw new Error(next.detail);
    expect(next.run).toMatchObject({ startFrom: previous!.intervalEnd, purposes: ['drivers', 'faults'], admittedUnits: 1 + fleet.approved.length });
    expect((await lifecycle.latestInternal(fleet.connectionId, SCHEDULED_ORIGIN))?.id).toBe(next.run.id);
    await pollUntil(async () => (await lifecycle.getInternal(next.run.id))?.status === 'completed', { timeoutMs: 60_000, description: 'continued run completed' });

    await fleet.connection.configure({ status: 'paused' });
    expect(await lifecycle.createInternal({ connectionId: fleet.connectionId, purposes: [...INTERNAL_SYNC_PURPOSES], origin: SCHEDULED_ORIGIN })).toMatchObject({ created: false, reason: 'gate_disabled' });
    // Nothing to collect for the asked purposes is no run either.
    await fleet.connection.configure({ status: 'active', selectedSignals: ['odometer'] });
    expect(await lifecycle.createInternal({ connectionId: fleet.connectionId, purposes: ['faults'], origin: SCHEDULED_ORIGIN })).toMatchObject({ created: false, reason: 'gate_disabled' });
  }, 120_000);

  it('logs no provider credential', () => {
    const logs = stack.logLines.join('');
    expect(logs).not.toContain(samsaraToken);
    expect(logs).not.toContain(geotab.password);
  });
});
