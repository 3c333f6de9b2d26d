/**
 * GET …/vehicles/{vehicleId}/telemetry, …/locations and …/vehicles/{vehicleId}/history end to end
 * on the real PostgreSQL and NATS: the Samsara, Motive and Geotab simulators (their own processes,
 * a fixed clock 20 minutes behind the wall clock) collected by internal runs of the
 * sync-orchestrator into telemetry-ingest, read over HTTP through the gateway with every response
 * validated against the OpenAPI document.
 * - unit conversions: Motive's miles odometer and hours engine counter, Samsara's milliseconds idle
 *   counter (collected by the Samsara adapter, stored through the ingest consumer) carry `units`;
 * - every reading equals the provider's newest one; location 20 minutes old is `stale` with its
 *   reading, odometer `available`;
 * - a provider outage during a run: the connection's health reports it, the readings stay (stale
 *   or available by age, never zero or missing);
 * - extended telemetry (issue 31): with the `extendedTelemetry` opt-in every optional metric the
 *   provider supports is collected and served present with the provider's values (Samsara's
 *   checked against the simulator's raw stats); without it none is collected or shown;
 * - an unselected signal: location not selected is `missing` (reading null);
 * - a hidden vehicle: 404 on telemetry and history, absent from locations;
 * - history: a walk under concurrent ingest never repeats a sequence and serves every reading its
 *   snapshot holds (no gaps); the 400 reason codes; a key without the history grant gets 404.
 * Mutation tried: isVisible answering "visible" for every configured connection fails "a hidden
 * vehicle" (before decision 0029 moved the rule into service-kit's SQL; its mutations are named in
 * apps/telemetry-ingest/test/telemetry-read.int-spec.ts and apps/fault-feed/test/fault-reads.int-spec.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { coveredMetrics, vehicleId, type Observation, type Provider, type TelemetryMetric } from '@switchyard/domain';
import { CredentialsAdmin } from '@switchyard/gateway';
import type { MessageBus } from '@switchyard/messaging';
import { capabilitiesFor, collectPages, createGeotabAdapter, createMotiveAdapter, createSamsaraAdapter, mapMotiveLocationPoint, motiveSchemas, type ProviderAdapter } from '@switchyard/providers';
import { pollUntil, spawnSimulator, type NodeProcess } from '@switchyard/testing';
import type { InternalRun } from '@switchyard/sync-orchestrator';
import { validatedCall } from './gateway-client.js';
import { ingestObservations as ingestCommitted, settledInternalRun } from './telemetry-runs.js';
import { PipelineStack, type PipelineConnection } from './pipeline-stack.js';

type Json = Record<string, unknown>;
type Status = { status: string; reading: (Json & { value: Json; source: string; observedAt: string; units?: Json }) | null };
type Telemetry = Json & { vehicleId: string; location: Status; odometer: Status } & Partial<Record<TelemetryMetric, Status>>;
type Point = { sequence: string; observed_at: string; source: string; value: Json };
type History = { readings: Point[]; nextCursor: string; hasMore: boolean; window: Json };

const SECRET = 'sim-secret-not-logged';
const geotabLogin = { database: 'switchyard_demo', userName: 'sandbox@switchyard.example', password: randomBytes(16).toString('hex') };
const SIM_NOW = new Date(Math.floor((Date.now() - 20 * 60_000) / 1000) * 1000).toISOString();
const WINDOW = { startFrom: new Date(Date.parse(SIM_NOW) - 6 * 3600_000), intervalEnd: new Date(SIM_NOW) };
const SIGNALS = ['odometer', 'location', 'engineHours'] as const;
/** What each opted-in connection covers (libs/domain telemetry-coverage.ts): the selected signals and every optional metric the provider supports. */
const metricsOf = (provider: Provider): TelemetryMetric[] => coveredMetrics({ signals: SIGNALS, extendedTelemetry: true, support: capabilitiesFor(provider).fields });
const OPTIONAL: TelemetryMetric[] = ['engineHours', 'totalIdleTime', 'speed', 'heading', 'fuelPercent', 'batteryVoltage', 'engineState'];

interface Fleet {
  provider: Provider;
  connection: PipelineConnection;
  adapter: ProviderAdapter;
  url: string;
  ids: string[];
  /** Headers of a key with `read` and `history`. */
  headers: Record<string, string>;
}

const simulators: NodeProcess[] = [];
const fleets = {} as Record<Provider, Fleet>;
let stack: PipelineStack;
let bus: MessageBus;

const vcl = (f: Fleet, sourceId: string) => vehicleId({ connectionId: f.connection.connectionId, provider: f.provider, sourceId });
const call = (f: Fleet, path: string, headers = f.headers) => validatedCall(stack.gatewayUrl, 'GET', `/v1/connections/${f.connection.connectionId}${path}`, headers);

const runInternal = (f: Fleet, purposes: ('telemetryLatest' | 'telemetryHistory')[] = ['telemetryLatest', 'telemetryHistory']): Promise<InternalRun> =>
  settledInternalRun(stack, { connectionId: f.connection.connectionId, purposes, ...WINDOW }, 90_000);

/** Publishes observations as a collector does and waits until telemetry-ingest committed them. */
const ingestObservations = (f: Fleet, records: Observation[]): Promise<void> => ingestCommitted(stack, bus, { connectionId: f.connection.connectionId, provider: f.provider }, records);

/** The provider's newest reading of each metric of one vehicle over its latest and the window's history (ties by source, as latest_readings keeps). */
async function providerLatest(f: Fleet, sourceId: string, metrics: TelemetryMetric[]): Promise<Map<string, Observation>> {
  const latest = await collectPages((cursor) => f.adapter.latestTelemetry({ metrics, vehicleSourceIds: [sourceId], cursor }), 100);
  const window = { from: WINDOW.startFrom.toISOString(), to: WINDOW.intervalEnd.toISOString() };
  const history = await collectPages((cursor) => f.adapter.telemetryHistory({ ...window, metrics, vehicleSourceIds: [sourceId], cursor }), 10_000);
  const newest = new Map<string, Observation>();
  for (const o of [...latest.items, ...history.items].filter((i) => i.vehicleSourceId === sourceId)) {
    const held = newest.get(o.metric);
    const [t, h] = [Date.parse(o.observedAt), held ? Date.parse(held.observedAt) : -Infinity];
    if (!held || t > h || (t === h && o.source > held.source)) newest.set(o.metric, o);
  }
  return newest;
}

const iso = (t: string) => new Date(t).toISOString();

beforeAll(async () => {
  const common = { SIM_VEHICLES: '3', SIM_CLOCK_FACTOR: '0', SIM_START: SIM_NOW };
  const samsara = await spawnSimulator('samsara', { ...common, SIM_SEED: 'telemetry-samsara', SAMSARA_API_TOKENS: SECRET });
  const motive = await spawnSimulator('motive', { ...common, SIM_SEED: 'telemetry-motive', MOTIVE_API_KEYS: SECRET });
  const geotab = await spawnSimulator('geotab', { ...common, SIM_SEED: 'telemetry-geotab', GEOTAB_DATABASE: geotabLogin.database, GEOTAB_USERNAME: geotabLogin.userName, GEOTAB_PASSWORD: geotabLogin.password });
  simulators.push(samsara.process, motive.process, geotab.process);
  stack = await PipelineStack.start({ name: 'telemetry', contexts: ['directory', 'telemetry-ingest'], providerBaseUrls: { samsara: samsara.url, motive: motive.url, geotab: geotab.url } });
  bus = await stack.bus('telemetry-test');
  const setups: { provider: Provider; url: string; credentials: Record<string, string>; adapter: ProviderAdapter }[] = [
    { provider: 'samsara' as const, url: samsara.url, credentials: { apiToken: SECRET }, adapter: createSamsaraAdapter({ provider: 'samsara', baseUrl: samsara.url, credentials: { apiToken: SECRET } }) },
    { provider: 'motive' as const, url: motive.url, credentials: { apiKey: SECRET }, adapter: createMotiveAdapter({ provider: 'motive', baseUrl: motive.url, credentials: { apiKey: SECRET } }) },
    { provider: 'geotab' as const, url: geotab.url, credentials: geotabLogin, adapter: createGeotabAdapter({ provider: 'geotab', baseUrl: geotab.url, credentials: geotabLogin }) },
  ];
  const admin = new CredentialsAdmin(stack.gateway.runtime.orm);
  for (const s of setups) {
    const ids = (await collectPages((cursor) => s.adapter.vehicles(cursor), 100)).items.map((v) => v.sourceId).sort();
    const connection = await stack.connect({
      provider: s.provider,
      credentials: s.credentials,
      config: {
        purposes: { vehicles: true, groupMemberships: false, trips: false },
        approvedVehicleIds: ids,
        selectedSignals: [...SIGNALS],
        optIns: { groupInventory: false, vehicleMetadata: false, extendedTelemetry: true },
      },
    });
    const key = await admin.createConsumerKey(`telemetry ${s.provider}`);
    await admin.grantConsumer(key.id, connection.connectionId, ['read', 'history']);
    fleets[s.provider] = { provider: s.provider, connection, adapter: s.adapter, url: s.url, ids, headers: { authorization: `Bearer ${key.token}` } };
  }
  for (const f of Object.values(fleets)) expect(await runInternal(f)).toMatchObject({ status: 'completed' });
}, 240_000);

afterAll(async () => {
  await stack?.close();
  for (const sim of simulators) await sim.kill();
});

describe.each(['samsara', 'motive', 'geotab'] as const)('telemetry of %s', (name) => {
  // Issue 31: with the opt-in, speed, heading, fuel, battery, engine state and (Samsara) idle time were
  // always `missing` — the scheduled collection never asked for them. Mutation tried:
  // telemetryMetricsFor keeping only the selected signals fails this test for every provider.
  it('serves the provider’s newest readings of every covered metric, extended ones included, with their units; location 20 minutes old is stale, odometer available', async () => {
    const f = fleets[name];
    const metrics = metricsOf(name);
    // Every optional metric the provider does not mark unsupported is collected (Samsara: all seven).
    expect(metrics.filter((m) => OPTIONAL.includes(m))).toEqual(OPTIONAL.filter((m) => capabilitiesFor(name).fields[`telemetry.${m}`] !== 'unsupported'));
    const present = new Set<string>();
    for (const sourceId of f.ids) {
      const res = await call(f, `/vehicles/${vcl(f, sourceId)}/telemetry`);
      expect(res.status).toBe(200);
      const t = res.body as Telemetry;
      expect(t.vehicleId).toBe(vcl(f, sourceId));
      // Exactly the covered metrics are in the response (an unsupported one, e.g. Motive's and Geotab's totalIdleTime, is absent).
      expect(Object.keys(t).filter((k) => OPTIONAL.includes(k as TelemetryMetric)).sort()).toEqual(metrics.filter((m) => OPTIONAL.includes(m)).sort());
      const expected = await providerLatest(f, sourceId, metrics);
      for (const metric of metrics) {
        const status = t[metric];
        const o = expected.get(metric);
        if (!o) {
          // The provider reports nothing: missing, never a zero.
          expect(status).toEqual({ status: 'missing', reading: null });
          continue;
        }
        present.add(metric);
        expect(status?.reading).toEqual({ value: o.value, source: o.source, observedAt: iso(o.observedAt), fetchedAt: expect.any(String), ...(o.units && o.units.source !== o.units.normalized ? { units: o.units } : {}) });
      }
      if (t.location.reading) expect(t.location.status).toBe('stale');
      if (t.odometer.reading) expect(t.odometer.status).toBe('available');
    }
    // The simulators report every covered metric for some vehicle: each is served present somewhere.
    expect([...present].sort()).toEqual([...metrics].sort());
  });

  it('lists the latest location of every vehicle in pages', async () => {
    const f = fleets[name];
    const first = await call(f, '/locations?limit=2');
    expect(first.status).toBe(200);
    const a = first.body as { locations: { vehicleId: string; location: Status }[]; nextCursor: string | null; retrieval: string };
    expect(a.retrieval).toBe('stored');
    expect(a.locations).toHaveLength(2);
    const second = (await call(f, `/locations?limit=2&cursor=${a.nextCursor}`)).body as typeof a;
    expect(second.nextCursor).toBeNull();
    expect([...a.locations, ...second.locations].map((l) => l.vehicleId)).toEqual(f.ids.map((id) => vcl(f, id)).sort());
    for (const l of [...a.locations, ...second.locations]) {
      const own = (await call(f, `/vehicles/${l.vehicleId}/telemetry`)).body as Telemetry;
      expect(l.location).toEqual(own.location);
    }
  });
});

describe('telemetry reads', () => {
  it('records the unit conversions: a Motive miles odometer, Motive hours engine counter, Samsara milliseconds idle counter', async () => {
    const motive = fleets.motive;
    const stored = await stack.sql<{ metric: string; units: Json | null }>(`select metric, units from $telemetry.latest_readings where connection_id = ?::uuid`, [motive.connection.connectionId]);
    // The adapter asks Motive for metric units: kilometers and hours, both converted.
    expect(stored.filter((u) => u.metric === 'odometer').map((u) => u.units?.source)).toContain('kilometers');
    expect(stored.filter((u) => u.metric === 'engineHours').map((u) => u.units?.source)).toContain('hours');
    const hours = (await call(motive, `/vehicles/${vcl(motive, motive.ids[0]!)}/telemetry`)).body as Telemetry;
    expect(hours.engineHours?.reading?.units).toEqual({ source: 'hours', normalized: 'seconds', factor: 3600 });
    // Motive answers miles to a request without X-Metric-Units: its readings mapped by the adapter's mapper, stored through the ingest consumer.
    const res = await fetch(`${motive.url}/v1/vehicle_locations?per_page=100&page_no=1`, { headers: { 'x-api-key': SECRET } });
    const body = (await res.json()) as { vehicles: { vehicle: unknown }[] };
    const later = new Date(Date.now() - 60_000).toISOString();
    const imperial = body.vehicles.flatMap((w) => {
      const v = motiveSchemas.vehicleLocationSchema.parse(w.vehicle);
      if (!v.current_location) return [];
      return mapMotiveLocationPoint(v.current_location, { vehicleSourceId: String(v.id), mode: 'imperial', metrics: new Set<TelemetryMetric>(['odometer']), fetchedAt: new Date().toISOString() }).map((o) => ({ ...o, observedAt: later }));
    });
    expect(imperial.length).toBeGreaterThan(0);
    await ingestObservations(motive, imperial);
    const miles = (await call(motive, `/vehicles/${vcl(motive, imperial[0]!.vehicleSourceId)}/telemetry`)).body as Telemetry;
    expect(miles.odometer).toMatchObject({ status: 'available', reading: { observedAt: later, units: { source: 'miles', normalized: 'meters', factor: 1609.344 } } });

    // totalIdleTime is no selectable signal: the Samsara adapter's own reading, stored through the ingest consumer.
    const samsara = fleets.samsara;
    const idle = (await collectPages((cursor) => samsara.adapter.latestTelemetry({ metrics: ['totalIdleTime'], vehicleSourceIds: samsara.ids, cursor }), 100)).items;
    expect(idle.length).toBeGreaterThan(0);
    await ingestObservations(samsara, idle);
    const t = (await call(samsara, `/vehicles/${vcl(samsara, idle[0]!.vehicleSourceId)}/telemetry`)).body as Telemetry;
    expect(t.totalIdleTime?.reading?.units).toEqual({ source: 'milliseconds', normalized: 'seconds', factor: 0.001 });
  });

  it('Samsara’s speed, heading, fuel and engine state are the simulator’s own stats, mph converted to m/s (issue 31’s example)', async () => {
    const f = fleets.samsara;
    const auth = { authorization: `Bearer ${SECRET}` };
    /** The simulator's raw stats item of a vehicle at exactly `time`: a history sample there, else the snapshot of that minute. */
    const rawAt = async (sourceId: string, time: string): Promise<Json> => {
      const types = 'gps,fuelPercents,engineStates';
      const end = new Date(Date.parse(time) + 1).toISOString();
      const history = (await (await fetch(`${f.url}/fleet/vehicles/stats/history?types=${types}&vehicleIds=${sourceId}&startTime=${time}&endTime=${end}`, { headers: auth })).json()) as { data: Json[] };
      const item = history.data[0] as { gps?: Json[]; fuelPercents?: Json[]; engineStates?: Json[] } | undefined;
      if (item?.gps?.[0]) return { gps: item.gps[0], fuelPercent: item.fuelPercents?.[0], engineState: item.engineStates?.[0] };
      return ((await (await fetch(`${f.url}/fleet/vehicles/stats?types=${types}&vehicleIds=${sourceId}&time=${time}`, { headers: auth })).json()) as { data: Json[] }).data[0]!;
    };
    let compared = 0;
    for (const sourceId of f.ids) {
      const t = (await call(f, `/vehicles/${vcl(f, sourceId)}/telemetry`)).body as Telemetry;
      const at = t.speed?.reading?.observedAt;
      if (!at) continue;
      const raw = (await rawAt(sourceId, at)) as { gps: { time: string; speedMilesPerHour: number; headingDegrees: number }; fuelPercent?: { value: number }; engineState?: { value: string } };
      expect(iso(raw.gps.time)).toBe(at);
      expect(t.speed?.reading).toMatchObject({ source: 'samsara:gps.speedMilesPerHour' });
      expect((t.speed?.reading?.value as { value: number }).value).toBeCloseTo(raw.gps.speedMilesPerHour * 0.44704, 9);
      expect(t.speed?.reading).not.toHaveProperty('units');
      expect(t.heading?.reading).toMatchObject({ value: { value: raw.gps.headingDegrees }, observedAt: at });
      if (t.fuelPercent?.reading?.observedAt === at) expect(t.fuelPercent.reading.value).toEqual({ value: raw.fuelPercent?.value });
      if (t.engineState?.reading?.observedAt === at) expect(t.engineState.reading.value).toEqual({ state: raw.engineState?.value.toLowerCase() });
      compared++;
    }
    expect(compared).toBeGreaterThan(0);
  });

  it('keeps serving stored readings through a provider outage: health reports it, readings stay (never zero)', async () => {
    const f = fleets.samsara;
    const path = `/vehicles/${vcl(f, f.ids[0]!)}/telemetry`;
    const before = (await call(f, path)).body as Telemetry;
    const scenarios = `${f.url}/_sim/accounts/${SECRET}/scenarios`;
    expect((await fetch(scenarios, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify([{ kind: 'revoke_credential', afterRequests: 0 }]) })).status).toBe(200);
    try {
      expect(await runInternal(f, ['telemetryLatest'])).toMatchObject({ status: 'failed', failureReason: 'provider_auth_required' });
      await pollUntil(async () => (await f.connection.health()).last_error_code === 'provider_auth_required', { timeoutMs: 20_000, description: 'outage in health' });
      const during = await call(f, path);
      expect(during.status).toBe(200);
      expect(during.body).toEqual(before);
      expect((during.body as Telemetry).location).toMatchObject({ status: 'stale', reading: { value: before.location.reading?.value } });
    } finally {
      await fetch(scenarios, { method: 'DELETE' });
    }
  }, 120_000);

  it('an unselected signal: location not selected is missing; without the opt-in no optional metric is collected or shown', async () => {
    const g = fleets.geotab;
    const connection = await stack.connect({
      provider: 'geotab',
      credentials: geotabLogin,
      customerId: 'fleet-geotab-odometer-only',
      config: { purposes: { vehicles: true, groupMemberships: false, trips: false }, approvedVehicleIds: g.ids, selectedSignals: ['odometer'], optIns: { groupInventory: false, vehicleMetadata: false, extendedTelemetry: false } },
    });
    const key = await new CredentialsAdmin(stack.gateway.runtime.orm).createConsumerKey('telemetry odometer only');
    await new CredentialsAdmin(stack.gateway.runtime.orm).grantConsumer(key.id, connection.connectionId, ['read']);
    const f: Fleet = { ...g, connection, headers: { authorization: `Bearer ${key.token}` } };
    expect(await runInternal(f, ['telemetryLatest'])).toMatchObject({ status: 'completed' });
    const res = await call(f, `/vehicles/${vcl(f, f.ids[0]!)}/telemetry`);
    expect(res.status).toBe(200);
    const t = res.body as Telemetry;
    expect(t.location).toEqual({ status: 'missing', reading: null });
    for (const metric of OPTIONAL) expect(t).not.toHaveProperty(metric);
    expect(t.odometer.status).not.toBe('missing');
    // Nothing but the odometer was asked of the provider, so nothing else is stored.
    const stored = await stack.sql<{ metric: string }>(`select distinct metric from $telemetry.observations where connection_id = ?::uuid`, [connection.connectionId]);
    expect(stored.map((r) => r.metric)).toEqual(['odometer']);
  }, 120_000);

  it('a hidden vehicle is 404 on every route and absent from locations', async () => {
    const f = fleets.motive;
    const hidden = f.ids[0]!;
    await f.connection.configure({ excludeVehicleIds: [hidden] });
    try {
      const id = vcl(f, hidden);
      expect((await call(f, `/vehicles/${id}/telemetry`)).status).toBe(404);
      expect((await call(f, `/vehicles/${id}/history?metric=odometer&startTime=${WINDOW.startFrom.toISOString()}&endTime=${WINDOW.intervalEnd.toISOString()}`)).status).toBe(404);
      const page = (await call(f, '/locations')).body as { locations: { vehicleId: string }[] };
      expect(page.locations.map((l) => l.vehicleId)).toEqual(f.ids.slice(1).map((s) => vcl(f, s)).sort());
      // Unknown vehicle and another connection's vehicle: the same 404.
      expect((await call(f, `/vehicles/${vcl(f, 'nope')}/telemetry`)).status).toBe(404);
      expect((await call(f, `/vehicles/${vcl(fleets.samsara, fleets.samsara.ids[0]!)}/telemetry`)).status).toBe(404);
    } finally {
      await f.connection.configure({ excludeVehicleIds: [] });
    }
  }, 60_000);

  it('pages history under concurrent ingest without repeating a sequence or leaving a gap', async () => {
    const f = fleets.samsara;
    const sourceId = f.ids[1]!;
    const id = vcl(f, sourceId);
    const window = `startTime=${WINDOW.startFrom.toISOString()}&endTime=${new Date(Date.now() + 3600_000).toISOString()}`;
    const base = `/vehicles/${id}/history?metric=odometer&${window}`;
    const snapshot = ((await call(f, `${base}&limit=1000`)).body as History).readings;
    expect(snapshot.length).toBeGreaterThan(4);
    const pages: History[] = [];
    let res = (await call(f, `${base}&limit=2`)).body as History;
    pages.push(res);
    let n = 0;
    while (res.hasMore) {
      // Readings committed during the walk: before and after its position.
      await ingestObservations(f, [
        { provider: 'samsara', vehicleSourceId: sourceId, metric: 'odometer', value: { meters: 1_000_000 + n }, source: 'samsara:obdOdometerMeters', observedAt: new Date(WINDOW.startFrom.getTime() + 1000 + n).toISOString(), fetchedAt: new Date().toISOString() },
        { provider: 'samsara', vehicleSourceId: sourceId, metric: 'odometer', value: { meters: 2_000_000 + n }, source: 'samsara:obdOdometerMeters', observedAt: new Date(Date.now() - 1000 - n).toISOString(), fetchedAt: new Date().toISOString() },
      ]);
      n++;
      res = (await call(f, `${base}&limit=2&cursor=${res.nextCursor}`)).body as History;
      pages.push(res);
    }
    const walked = pages.flatMap((p) => p.readings);
    expect(new Set(walked.map((r) => r.sequence)).size).toBe(walked.length);
    expect(walked).toEqual(snapshot);
    expect(walked.map((r) => r.observed_at)).toEqual([...walked.map((r) => r.observed_at)].sort());
    // The last page's cursor continues with readings committed since, after its position.
    const after = (await call(f, `${base}&limit=1000&cursor=${res.nextCursor}`)).body as History;
    expect(after.readings.map((r) => (r.value as { meters: number }).meters).sort()).toEqual(Array.from({ length: n }, (_, i) => 2_000_000 + i).sort());
    // A cursor with another window: cursor_parameters_changed; other bad input: its own code.
    const shifted = `/vehicles/${id}/history?metric=odometer&startTime=${new Date(WINDOW.startFrom.getTime() + 1).toISOString()}&endTime=${new Date(Date.now() + 3600_000).toISOString()}&cursor=${pages[0]!.nextCursor}`;
    expect((await call(f, shifted)).body).toEqual({ error: 'cursor_parameters_changed' });
    expect((await call(f, `${base.replace('metric=odometer', 'metric=rpm')}`)).body).toEqual({ error: 'unknown_metric' });
    expect((await call(f, `/vehicles/${id}/history?metric=odometer&startTime=${WINDOW.intervalEnd.toISOString()}&endTime=${WINDOW.startFrom.toISOString()}`)).body).toEqual({ error: 'reversed_window' });
    expect((await call(f, `/vehicles/${id}/history?metric=odometer&startTime=2026-01-01T00:00:00Z&endTime=2026-03-01T00:00:00Z`)).body).toEqual({ error: 'window_too_long' });
    expect((await call(f, `${base}&cursor=abc`)).body).toEqual({ error: 'invalid_cursor' });
    // A key with only `read`: history is 404, telemetry is served.
    const admin = new CredentialsAdmin(stack.gateway.runtime.orm);
    const readOnly = await admin.createConsumerKey('telemetry read only');
    await admin.grantConsumer(readOnly.id, f.connection.connectionId, ['read']);
    const reader = { authorization: `Bearer ${readOnly.token}` };
    expect((await call(f, base, reader)).status).toBe(404);
    expect((await call(f, `/vehicles/${id}/telemetry`, reader)).status).toBe(200);
  }, 180_000);
});

// Issue 27 item 3: the freshness read, an addition beyond the 36 operations, through the gateway
// (every response validated against the OpenAPI document). The simulators' clock is 20 minutes
// behind, so collected signals are `stale` (data age p95 over interval + 60 s) unless a test above
// ingested fresher readings; a signal without a reading is `missing` with no age — never a zero.
describe('data freshness', () => {
  it.each(['samsara', 'motive', 'geotab'] as const)('%s: GET …/freshness gives every covered metric its figures, stale by its age; 404 without a grant, 400 for a query', async (name) => {
    const f = fleets[name];
    const res = await call(f, '/freshness');
    expect(res.status).toBe(200);
    type Figure = { signal: string; status: string; reason: string | null; dataAge: { status: string; p95Seconds?: number; vehicles?: number }; pipelineLag: Json };
    const body = res.body as { vehicles: number; dataAgeBoundSeconds: number; signals: Figure[] };
    expect(body.vehicles).toBe(f.ids.length);
    expect(body.signals.map((s) => s.signal)).toEqual(metricsOf(name));
    for (const figure of body.signals) {
      if (figure.dataAge.status !== 'available') expect(figure).toMatchObject({ status: 'missing', reason: 'no_readings' });
      else expect({ signal: figure.signal, status: figure.status }).toEqual({ signal: figure.signal, status: (figure.dataAge.p95Seconds ?? 0) > body.dataAgeBoundSeconds ? 'stale' : 'available' });
    }
    // The run collected location and odometer of every vehicle through the pipeline: each has an age, and a pipeline
    // lag from its readings' commit times — unless none of them was observed in the last hour (a parked Geotab fleet).
    for (const signal of ['location', 'odometer']) {
      const figure = body.signals.find((s) => s.signal === signal);
      expect(figure).toMatchObject({ dataAge: { status: 'available', vehicles: f.ids.length } });
      expect([{ status: 'available' }, { status: 'missing', reason: 'no_readings_in_window' }]).toContainEqual(figure?.pipelineLag.status === 'available' ? { status: 'available' } : figure?.pipelineLag);
    }
    expect(body.signals.filter((s) => s.status === 'stale').length).toBeGreaterThan(0);
    const stranger = await new CredentialsAdmin(stack.gateway.runtime.orm).createConsumerKey(`freshness stranger ${name}`);
    expect((await call(f, '/freshness', { authorization: `Bearer ${stranger.token}` })).status).toBe(404);
    expect((await call(f, '/freshness?window=1h')).body).toEqual({ error: 'invalid_query' });
  });
});
