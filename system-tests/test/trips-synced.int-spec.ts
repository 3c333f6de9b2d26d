/**
 * Trips synced from the Samsara, Motive and Geotab simulators through the whole pipeline
 * (gateway → orchestrator's collectors → JetStream → directory) and read back over HTTP, every
 * response validated against the OpenAPI document: per provider, the walk returns exactly the
 * stored trips of the approved vehicles, in order, expanded, and each trip reads back by id.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import type { Provider } from '@switchyard/domain';
import { collectPages, createGeotabAdapter, createMotiveAdapter, createSamsaraAdapter, type ProviderAdapter } from '@switchyard/providers';
import { pollUntil, spawnSimulator, type NodeProcess } from '@switchyard/testing';
import { directorySql, readKey } from './reads-fixture.js';
import { createSyncApp, jsonHeaders } from './syncs-fixture.js';
import { startTestGateway, type TestGateway } from './support.js';

type Page = { status: string; coverage: { completedUnits: number }; results: { id: string; sourceId: string; startedAt: string; vehicle: string | { sourceId: string; status: string } }[]; next?: string };

const SIM = { SIM_VEHICLES: '3', SIM_SEED: 'trips-read', SIM_CLOCK_FACTOR: '0' };
const samsaraToken = `samsara_api_${randomBytes(20).toString('hex')}`;
const motiveKey = `motive-${randomBytes(12).toString('hex')}`;
const geotab = { database: 'trips_read', userName: 'reader@switchyard.example', password: randomBytes(16).toString('hex') };

const SIMULATORS: Record<Provider, { env: Record<string, string>; credentials: Record<string, string>; adapter: (baseUrl: string) => ProviderAdapter }> = {
  samsara: { env: { SAMSARA_API_TOKENS: samsaraToken }, credentials: { apiToken: samsaraToken }, adapter: (baseUrl) => createSamsaraAdapter({ provider: 'samsara', baseUrl, credentials: { apiToken: samsaraToken } }) },
  motive: { env: { MOTIVE_API_KEYS: motiveKey }, credentials: { apiKey: motiveKey }, adapter: (baseUrl) => createMotiveAdapter({ provider: 'motive', baseUrl, credentials: { apiKey: motiveKey } }) },
  geotab: {
    env: { GEOTAB_DATABASE: geotab.database, GEOTAB_USERNAME: geotab.userName, GEOTAB_PASSWORD: geotab.password },
    credentials: geotab,
    adapter: (baseUrl) => createGeotabAdapter({ provider: 'geotab', baseUrl, credentials: geotab }),
  },
};
const PROVIDERS = Object.keys(SIMULATORS) as Provider[];

describe('trips synced from the simulators', () => {
  let gw: TestGateway;
  const processes: NodeProcess[] = [];
  const urls = {} as Record<Provider, string>;

  beforeAll(async () => {
    await Promise.all(
      PROVIDERS.map(async (provider) => {
        const sim = await spawnSimulator(provider, { ...SIM, ...SIMULATORS[provider].env });
        processes.push(sim.process);
        urls[provider] = sim.url;
      }),
    );
    gw = await startTestGateway({ syncOrchestrator: true, directory: true, collectors: { providerBaseUrls: urls }, rpcTimeoutMs: 10_000 });
  }, 90_000);

  afterAll(async () => {
    await gw?.close();
    await Promise.all(processes.map((p) => p.kill()));
  });

  it.each(PROVIDERS)('%s: serves exactly the synced trips of the approved vehicles, in order, expanded and by id', async (provider) => {
    const roster = await collectPages((cursor) => SIMULATORS[provider].adapter(urls[provider]).vehicles(cursor), 100);
    const approved = [...new Set(roster.items.map((v) => v.sourceId))].sort().slice(0, 2);
    const connectionId = (await gw.connections.create({ customerId: `fleet-${provider}`, provider, environment: 'sandbox', providerCredentials: SIMULATORS[provider].credentials })).connectionId;
    // Vehicles and trips: what a trip read needs (group memberships are not a Motive purpose).
    const config = await gw.connections.configure(connectionId, { unifiedCollection: true, purposes: { vehicles: true, groupMemberships: false, trips: true }, approvedVehicleIds: approved });
    await gw.flushOutbox();
    for (const service of [gw.orchestrator!, gw.directory!]) {
      const schema = service.runtime.orm.config.get('schema');
      await pollUntil(
        async () => (await service.runtime.orm.em.fork().execute<{ revision: number }[]>(`select revision from "${schema}".connection_config where connection_id = ?::uuid`, [connectionId]))[0]?.revision === config.revision,
        { timeoutMs: 15_000, description: 'config projected' },
      );
    }
    const app = await createSyncApp(gw, connectionId);
    const created = await gw.call('POST', '/v1/syncs', { headers: jsonHeaders(app), body: JSON.stringify({ lookbackDays: 3 }) });
    expect({ status: created.status, body: created.status === 201 ? 'created' : created.body }).toEqual({ status: 201, body: 'created' });
    const syncId = (created.body as { id: string }).id;
    await pollUntil(async () => ((await gw.call('GET', `/v1/syncs/${syncId}`, { headers: app.headers })).body as { status: string }).status === 'completed', {
      timeoutMs: 90_000,
      intervalMs: 250,
      description: `${provider} sync completed`,
    });
    const stored = await directorySql<{ id: string }>(gw, (t) => `select id from ${t('trip')} where connection_id = ?::uuid order by started_at, id`, [connectionId]);
    expect(stored.length).toBeGreaterThan(0);

    const orchestratorEm = gw.orchestrator!.runtime.orm.em.fork();
    const [units] = await orchestratorEm.execute<{ n: number }[]>(
      `select count(*)::int as n from "${orchestratorEm.config.get('schema')}".sync_unit where sync_id = ? and purpose = 'trips'`,
      [syncId],
    );

    const key = await readKey(gw, [connectionId]);
    const seen: Page['results'] = [];
    let query = '?limit=3&expand=vehicle,driver';
    for (;;) {
      const res = await gw.call('GET', `/v1/connections/${connectionId}/trips${query}`, { headers: key.headers });
      expect(res.status).toBe(200);
      const page = res.body as Page;
      expect(page.status).toBe('available');
      // Every trip unit of the completed sync has its final page committed.
      expect(page.coverage.completedUnits).toBe(units!.n);
      seen.push(...page.results);
      if (!page.next) break;
      query = `?limit=3&expand=vehicle,driver&cursor=${page.next}`;
    }
    expect(seen.map((t) => t.id)).toEqual(stored.map((r) => r.id));
    // Every trip's vehicle is expanded. Samsara supplies no vehicle status: the sync's complete vehicles
    // pass listed the approved vehicles, so theirs is derived `active` (decision 0011); without the
    // derivation they would be no VehicleEntity and stay ids — mutation tried: this then fails.
    for (const trip of seen) {
      expect(typeof trip.vehicle).toBe('object');
      const vehicle = trip.vehicle as { sourceId: string; status: string };
      expect(approved).toContain(vehicle.sourceId);
      if (provider === 'samsara') expect(vehicle.status).toBe('active');
    }

    const one = await gw.call('GET', `/v1/connections/${connectionId}/trips/${seen[0]!.id}`, { headers: key.headers });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: seen[0]!.id, startedAt: seen[0]!.startedAt, vehicle: expect.stringMatching(/^vcl_/) });
  }, 150_000);
});
