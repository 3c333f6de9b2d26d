/**
 * POST /v1/connections/{id}/vehicles/{vehicleId}/refresh end to end on the real PostgreSQL and
 * NATS: a Samsara simulator (its own process, a fixed clock), the gateway → sync-orchestrator
 * (adapter, shared budget, slot in PostgreSQL) → ingest.telemetry → telemetry-ingest path, and a
 * SECOND gateway process on the same schemas; every response validated against the OpenAPI
 * document.
 * - a refresh of a vehicle with nothing stored answers `fetched` with the provider's newest
 *   readings of every covered metric — with the extended-telemetry opt-in, the optional ones too
 *   (issue 31) — which are then stored like collected ones (the stored read shows them);
 * - the limit holds across gateway processes: the next refresh of that vehicle, from either
 *   gateway, is 429 `rate_limited` with Retry-After; another vehicle is not limited;
 * - a failing provider read is still 200: `failed`, the stored readings marked `fallback: true`;
 * - an unknown vehicle and one hidden by the connection's exclude list are 404 (and claim no
 *   slot), a body is 400 `invalid_body`, a key without a grant on the connection 404;
 * - a disconnected connection is 404 from either gateway, exactly as without a grant, and claims
 *   no slot (system-tests/test/disconnected.int-spec.ts leaves this POST to this suite);
 * - the gateway serves a refresh with ONE bus request, `sync.collection.refresh` (issue 24 item 9,
 *   decision 0019): the second gateway's bus records every subject it requests.
 * Mutations tried: the slot's claim always granted (RefreshSlotRepository.claim returning
 * `{granted: true}`) fails "the limit holds across gateways"; the fallback marking removed
 * (`withFallback` returning the status as it is) fails "a failing provider read".
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { coveredMetrics, vehicleId, type TelemetryMetric } from '@switchyard/domain';
import { CredentialsAdmin, startGateway } from '@switchyard/gateway';
import { capabilitiesFor, collectPages, createSamsaraAdapter, type ProviderAdapter } from '@switchyard/providers';
import { RPCS, type MessageBus } from '@switchyard/messaging';
import { createLogger, type RunningService } from '@switchyard/service-kit';
import { pollUntil, spawnSimulator, type NodeProcess } from '@switchyard/testing';
import { validatedCall } from './gateway-client.js';
import { PipelineStack, type PipelineConnection } from './pipeline-stack.js';

type Json = Record<string, unknown>;
type Status = { status: string; fallback?: boolean; reading: (Json & { value: Json; source: string; observedAt: string }) | null };
type Telemetry = Json & { vehicleId: string; location: Status; odometer: Status; refreshStatus?: string } & Partial<Record<TelemetryMetric, Status>>;

const TOKEN = `samsara_api_${randomBytes(12).toString('hex')}`;
const SIM_NOW = new Date(Math.floor((Date.now() - 20 * 60_000) / 1000) * 1000).toISOString();
const SIGNALS = ['odometer', 'location', 'engineHours'] as const;
const METRICS: TelemetryMetric[] = [...SIGNALS];
/** Everything the opted-in connection covers (libs/domain telemetry-coverage.ts): with Samsara, every metric. */
const COVERED: TelemetryMetric[] = coveredMetrics({ signals: SIGNALS, extendedTelemetry: true, support: capabilitiesFor('samsara').fields });

let simulator: { url: string; process: NodeProcess };
let stack: PipelineStack;
let second: RunningService;
let connection: PipelineConnection;
let adapter: ProviderAdapter;
let ids: string[];
let headers: Record<string, string>;
/** Every subject the second gateway requested on the bus, in order. */
const requested: string[] = [];

const vcl = (sourceId: string) => vehicleId({ connectionId: connection.connectionId, provider: 'samsara', sourceId });
const refreshPath = (sourceId: string) => `/v1/connections/${connection.connectionId}/vehicles/${vcl(sourceId)}/refresh`;
const refresh = (gatewayUrl: string, sourceId: string, h = headers) => validatedCall(gatewayUrl, 'POST', refreshPath(sourceId), h);
const stored = async (sourceId: string) => {
  const res = await validatedCall(stack.gatewayUrl, 'GET', `/v1/connections/${connection.connectionId}/vehicles/${vcl(sourceId)}/telemetry`, headers);
  expect(res.status).toBe(200);
  return res.body as Telemetry;
};

/** The provider's newest reading of each metric of one vehicle, as its latest-telemetry endpoint gives it. */
async function providerLatest(sourceId: string): Promise<Map<string, { value: unknown; observedAt: string }>> {
  const page = await collectPages((cursor) => adapter.latestTelemetry({ metrics: COVERED, vehicleSourceIds: [sourceId], cursor }), 10);
  return new Map(page.items.filter((o) => o.vehicleSourceId === sourceId).map((o) => [o.metric, { value: o.value, observedAt: new Date(o.observedAt).toISOString() }]));
}

beforeAll(async () => {
  const spawned = await spawnSimulator('samsara', { SIM_VEHICLES: '3', SIM_CLOCK_FACTOR: '0', SIM_START: SIM_NOW, SIM_SEED: 'refresh', SAMSARA_API_TOKENS: TOKEN });
  simulator = { url: spawned.url, process: spawned.process };
  stack = await PipelineStack.start({ name: 'refresh', contexts: ['directory', 'telemetry-ingest'], providerBaseUrls: { samsara: simulator.url } });
  adapter = createSamsaraAdapter({ provider: 'samsara', baseUrl: simulator.url, credentials: { apiToken: TOKEN } });
  ids = (await collectPages((cursor) => adapter.vehicles(cursor), 100)).items.map((v) => v.sourceId).sort();
  connection = await stack.connect({
    provider: 'samsara',
    credentials: { apiToken: TOKEN },
    config: {
      purposes: { vehicles: true, groupMemberships: false, trips: false },
      approvedVehicleIds: ids,
      selectedSignals: ['odometer', 'location', 'engineHours'],
      optIns: { groupInventory: false, vehicleMetadata: false, extendedTelemetry: true },
    },
  });
  const admin = new CredentialsAdmin(stack.gateway.runtime.orm);
  const key = await admin.createConsumerKey('refresh caller');
  await admin.grantConsumer(key.id, connection.connectionId, ['read']);
  headers = { authorization: `Bearer ${key.token}` };
  // A second gateway process on the same schemas (its own pool, bus connection and port).
  const sink = new PassThrough();
  sink.resume();
  const bus = await stack.bus('gateway-second');
  const request = bus.request.bind(bus);
  bus.request = ((rpc, payload, options) => {
    requested.push(rpc.subject);
    return request(rpc, payload, options);
  }) as MessageBus['request'];
  second = await startGateway({
    databaseUrl: stack.databaseUrl,
    environment: 'sandbox',
    allServiceSchemas: Object.values(stack.schemas),
    bus,
    schema: stack.schemas.gateway,
    logger: createLogger({ service: 'gateway', level: 'warn', destination: sink }),
    http: { port: 0 },
    gatewaySettings: { masterKey: stack.masterKey, cursorSecret: randomBytes(32).toString('base64url'), rpcTimeoutMs: 30_000 },
  });
}, 180_000);

afterAll(async () => {
  await second?.close();
  await stack?.close();
  await simulator?.process.kill();
});

describe('POST …/vehicles/{vehicleId}/refresh', () => {
  it('fetches the provider’s newest readings of a vehicle with nothing stored, and stores them like collected ones', async () => {
    const sourceId = ids[0]!;
    expect((await stored(sourceId)).odometer).toEqual({ status: 'missing', reading: null });
    const expected = await providerLatest(sourceId);
    const res = await refresh(stack.gatewayUrl, sourceId);
    expect(res.status).toBe(200);
    const body = res.body as Telemetry;
    expect(body.refreshStatus).toBe('fetched');
    // Issue 31: the extended metrics (speed, heading, fuel, battery, engine state, idle time) come back too.
    expect(COVERED).toHaveLength(9);
    for (const metric of COVERED) {
      const status = body[metric] as Status;
      expect(status.fallback).toBeUndefined();
      const o = expected.get(metric);
      if (!o) expect(status).toEqual({ status: 'missing', reading: null });
      else expect(status.reading).toMatchObject({ value: o.value, observedAt: o.observedAt });
    }
    expect(COVERED.filter((m) => expected.has(m) && body[m]?.reading !== null).length).toBeGreaterThanOrEqual(8);
    await pollUntil(async () => (await stored(sourceId)).odometer.reading?.observedAt === expected.get('odometer')!.observedAt, { timeoutMs: 20_000, description: 'the refreshed odometer stored' });
    const after = await stored(sourceId);
    expect(after.refreshStatus).toBeUndefined();
    expect(after.odometer.reading).toMatchObject({ value: expected.get('odometer')!.value });
    expect(after.engineHours?.reading).toMatchObject({ value: expected.get('engineHours')!.value });
    expect(after.speed?.reading).toMatchObject({ value: expected.get('speed')!.value, observedAt: expected.get('speed')!.observedAt });
  }, 60_000);

  it('the limit holds across gateway processes: 429 with Retry-After from either, per vehicle', async () => {
    const sourceId = ids[0]!;
    for (const url of [second.url!, stack.gatewayUrl]) {
      const res = await refresh(url, sourceId);
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ error: 'rate_limited' });
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(30);
    }
    const other = await refresh(second.url!, ids[1]!);
    expect(other.status).toBe(200);
    expect((other.body as Telemetry).refreshStatus).toBe('fetched');
  }, 60_000);

  it('one bus request from the gateway per refresh, answered or rate limited', async () => {
    requested.length = 0;
    const limited = await refresh(second.url!, ids[1]!);
    expect(limited.status).toBe(429);
    expect(requested).toEqual([RPCS.collection.refresh.subject]);
    requested.length = 0;
    await stack.sql(`update $orchestrator.refresh_slot set granted_at = granted_at - interval '31 seconds' where connection_id = ?::uuid and vehicle_source_id = ?`, [connection.connectionId, ids[1]]);
    const answered = await refresh(second.url!, ids[1]!);
    expect(answered.status).toBe(200);
    expect((answered.body as Telemetry).refreshStatus).toBe('fetched');
    expect(requested).toEqual([RPCS.collection.refresh.subject]);
  }, 60_000);

  it('a failing provider read is still 200: failed, the stored readings marked fallback', async () => {
    const sourceId = ids[1]!;
    await pollUntil(async () => (await stored(sourceId)).odometer.reading !== null, { timeoutMs: 20_000, description: 'the first refresh stored' });
    const before = await stored(sourceId);
    const scenarios = `${simulator.url}/_sim/accounts/${TOKEN}/scenarios`;
    const put = await fetch(scenarios, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify([{ kind: 'missing_permission', pathPrefix: '/fleet/vehicles/stats' }]) });
    expect(put.status).toBe(200);
    try {
      // The slot of the first refresh is 30 s old as far as the limit is concerned.
      await stack.sql(`update $orchestrator.refresh_slot set granted_at = granted_at - interval '31 seconds' where connection_id = ?::uuid`, [connection.connectionId]);
      const res = await refresh(stack.gatewayUrl, sourceId);
      expect(res.status).toBe(200);
      const body = res.body as Telemetry;
      expect(body.refreshStatus).toBe('failed');
      for (const metric of METRICS) {
        const status = body[metric] as Status;
        expect(status.fallback).toBe(true);
        expect(['available', 'stale']).toContain(status.status);
        expect(status.reading).toEqual((before[metric] as Status).reading);
      }
    } finally {
      await fetch(scenarios, { method: 'DELETE' });
    }
  }, 60_000);

  it('an unknown or hidden vehicle is 404 and claims no slot; a body is 400; a key without a grant on the connection 404', async () => {
    const unknown = await validatedCall(stack.gatewayUrl, 'POST', `/v1/connections/${connection.connectionId}/vehicles/${vcl('no-such-vehicle')}/refresh`, headers);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'not_found' });
    expect(await stack.sql(`select 1 from $orchestrator.refresh_slot where vehicle_source_id = 'no-such-vehicle'`)).toEqual([]);
    const withBody = await validatedCall(stack.gatewayUrl, 'POST', refreshPath(ids[2]!), headers, {});
    expect(withBody.status).toBe(400);
    expect(withBody.body).toEqual({ error: 'invalid_body' });
    const admin = new CredentialsAdmin(stack.gateway.runtime.orm);
    const stranger = await admin.createConsumerKey('no grant');
    const denied = await refresh(stack.gatewayUrl, ids[2]!, { authorization: `Bearer ${stranger.token}` });
    expect(denied.status).toBe(404);
    expect(await stack.sql(`select 1 from $orchestrator.refresh_slot where vehicle_source_id = ?`, [ids[2]])).toEqual([]);
    await connection.configure({ excludeVehicleIds: [ids[2]!] });
    const hidden = await refresh(second.url!, ids[2]!);
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ error: 'not_found' });
    expect(await stack.sql(`select 1 from $orchestrator.refresh_slot where vehicle_source_id = ?`, [ids[2]])).toEqual([]);
  }, 60_000);

  it('a disconnected connection: 404, byte for byte the answer without a grant, and the provider is not asked (decision 0013)', async () => {
    const admin = new CredentialsAdmin(stack.gateway.runtime.orm);
    const stranger = await admin.createConsumerKey('no grant either');
    await connection.configure({ status: 'disconnected' });
    await stack.sql(`update $orchestrator.refresh_slot set granted_at = granted_at - interval '31 seconds' where connection_id = ?::uuid`, [connection.connectionId]);
    const slots = await stack.sql<{ granted_at: string }>(`select granted_at::text from $orchestrator.refresh_slot where connection_id = ?::uuid order by vehicle_source_id`, [connection.connectionId]);
    for (const url of [stack.gatewayUrl, second.url!]) {
      const mine = await refresh(url, ids[0]!);
      const theirs = await refresh(url, ids[0]!, { authorization: `Bearer ${stranger.token}` });
      expect({ status: mine.status, text: mine.text }).toEqual({ status: 404, text: '{"error":"not_found"}' });
      expect({ status: theirs.status, text: theirs.text }).toEqual({ status: mine.status, text: mine.text });
    }
    // No slot was claimed again: the gateway refused before the orchestrator was asked.
    expect(await stack.sql(`select granted_at::text from $orchestrator.refresh_slot where connection_id = ?::uuid order by vehicle_source_id`, [connection.connectionId])).toEqual(slots);
  }, 60_000);
});
