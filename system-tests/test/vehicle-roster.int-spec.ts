/**
 * The vehicle roster after a completed sync, on each provider (issue 18, decision 0011 "A pass is
 * the sync's units"): the vehicles purpose plans one unit per approved vehicle, and the sync's
 * vehicles pass is all of them — so after the sync completes, EVERY vehicle the list shows (the
 * asset view) has metadata `available` with `rosterSeenAt` set, none `not_in_current_roster` (each unit counted
 * as a pass of its own left one vehicle in the roster). Simulators in their own processes with a
 * fixed clock; every vehicle of the simulated fleet approved; a second sync keeps them all listed.
 * Samsara reports no vehicle status: the directory derives it from this roster (decision 0011, "A
 * status derived from the roster"), so after each sync every Samsara vehicle is an `active` profile
 * and its metadata status cell names `derived_from_roster`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { vehicleId, type Provider } from '@switchyard/domain';
import { capabilitiesFor, collectPages, createGeotabAdapter, createMotiveAdapter, createSamsaraAdapter, type ProviderAdapter } from '@switchyard/providers';
import { spawnSimulator, type NodeProcess } from '@switchyard/testing';
import { PipelineStack, type PipelineConnection } from './pipeline-stack.js';

const FLEET = '4';
const motiveKey = `motive_${randomBytes(16).toString('hex')}`;
const geotab = { database: `db_${randomBytes(4).toString('hex')}`, userName: 'roster@switchyard.example', password: randomBytes(12).toString('hex') };

const simulators: NodeProcess[] = [];
let stack: PipelineStack;
const connections = {} as Record<Provider, PipelineConnection>;

interface Assets {
  vehicles: { provider_id: string }[];
  nextCursor: string | null;
}

async function simulator(provider: Provider, env: Record<string, string>): Promise<string> {
  const { process, url } = await spawnSimulator(provider, { SIM_VEHICLES: FLEET, SIM_SEED: `roster-${provider}`, SIM_CLOCK_FACTOR: '0', ...env });
  simulators.push(process);
  return url;
}

beforeAll(async () => {
  const motiveUrl = await simulator('motive', { MOTIVE_API_KEYS: motiveKey });
  const geotabUrl = await simulator('geotab', { GEOTAB_DATABASE: geotab.database, GEOTAB_USERNAME: geotab.userName, GEOTAB_PASSWORD: geotab.password });
  stack = await PipelineStack.start({ name: 'vehicle-roster', samsaraSimulator: { SIM_VEHICLES: FLEET, SIM_CLOCK_FACTOR: '0' }, providerBaseUrls: { motive: motiveUrl, geotab: geotabUrl } });
  const setups: { provider: Provider; direct: ProviderAdapter; credentials: Record<string, string> }[] = [
    { provider: 'samsara', direct: createSamsaraAdapter({ provider: 'samsara', baseUrl: stack.samsara.url, credentials: { apiToken: stack.samsara.apiToken } }), credentials: { apiToken: stack.samsara.apiToken } },
    { provider: 'motive', direct: createMotiveAdapter({ provider: 'motive', baseUrl: motiveUrl, credentials: { apiKey: motiveKey } }), credentials: { apiKey: motiveKey } },
    { provider: 'geotab', direct: createGeotabAdapter({ provider: 'geotab', baseUrl: geotabUrl, credentials: geotab }), credentials: geotab },
  ];
  for (const setup of setups) {
    const fleet = (await collectPages((c) => setup.direct.vehicles(c), 100)).items.map((v) => v.sourceId).sort();
    expect(fleet).toHaveLength(Number(FLEET));
    const memberships = (capabilitiesFor(setup.provider).fields as Readonly<Record<string, string>>)['vehicle.groups'] !== 'unsupported';
    connections[setup.provider] = await stack.connect({
      provider: setup.provider,
      credentials: setup.credentials,
      config: {
        approvedVehicleIds: fleet,
        purposes: { vehicles: true, groupMemberships: memberships, trips: false },
        optIns: { groupInventory: false, vehicleMetadata: true, extendedTelemetry: false },
      },
    });
  }
}, 180_000);

afterAll(async () => {
  await stack?.close();
  for (const p of simulators) await p.kill();
});

/** The vcl_ id of every vehicle of the asset list, all pages. */
async function listed(connection: PipelineConnection, provider: Provider): Promise<string[]> {
  const { connectionId } = connection;
  const ids: string[] = [];
  let path: string | undefined = `/v1/connections/${connectionId}/vehicles`;
  while (path) {
    const res = await connection.read(path);
    expect(res.status).toBe(200);
    const page = res.body as Assets;
    ids.push(...page.vehicles.map((v) => vehicleId({ connectionId, provider, sourceId: v.provider_id })));
    path = page.nextCursor === null ? undefined : `/v1/connections/${connectionId}/vehicles?cursor=${encodeURIComponent(page.nextCursor)}`;
  }
  return ids;
}

describe.each(['samsara', 'motive', 'geotab'] as const)('the %s vehicle roster', (provider) => {
  it('answers metadata available, with rosterSeenAt, for every listed vehicle after each completed sync', async () => {
    const connection = connections[provider];
    for (let round = 0; round < 2; round++) {
      const sync = await connection.createSync(round === 0 ? { lookbackDays: 1 } : undefined);
      expect(await connection.settled(sync.id)).toMatchObject({ status: 'completed', progress: 100 });
      const ids = await listed(connection, provider);
      expect(ids).toHaveLength(Number(FLEET));
      const statuses: Record<string, unknown> = {};
      for (const id of ids) {
        const res = await connection.read(`/v1/connections/${connection.connectionId}/vehicles/${id}/metadata`);
        expect(res.status).toBe(200);
        const body = res.body as { status: string; rosterSeenAt?: string | null; data: { fields: { status: unknown } } | null };
        statuses[id] = { status: body.status, rosterSeen: typeof body.rosterSeenAt === 'string', ...(provider === 'samsara' ? { cell: body.data?.fields.status } : {}) };
      }
      const derived = provider === 'samsara' ? { cell: { status: 'available', value: 'active', source: 'samsara:vehicles(derived_from_roster)' } } : {};
      expect(statuses).toEqual(Object.fromEntries(ids.map((id) => [id, { status: 'available', rosterSeen: true, ...derived }])));
      if (provider === 'samsara') {
        // The pass of FLEET units listed them all: every one an active profile (one page: FLEET ≤ 100).
        const profiles = await connection.read(`/v1/connections/${connection.connectionId}/vehicles?view=profiles`);
        const results = (profiles.body as { results: { id: string; status: string }[] }).results;
        expect(Object.fromEntries(results.map((v) => [v.id, v.status]))).toEqual(Object.fromEntries(ids.map((id) => [id, 'active'])));
      }
    }
  }, 180_000);
});
