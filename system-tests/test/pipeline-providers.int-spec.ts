/**
 * The collection pipeline for Motive and Geotab (collector-pipeline.int-spec.ts covers Samsara):
 * a sync created over HTTP of vehicles, groupMemberships and trips is leased, fetched through the
 * provider's adapter from its simulator (own process, fixed clock), published to JetStream,
 * committed by directory and completed by directory's receipts. The purposes are those the
 * provider's capability matrix supports (Motive has no vehicle → group memberships, so its sync is
 * vehicles + trips and a groupMemberships sync is refused; Geotab does all three). The directory then holds exactly
 * what the simulator serves for the approved vehicles — compared with the simulator's roster,
 * groups and trips read directly through the same adapter, never with hard-coded counts.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import type { Provider } from '@switchyard/domain';
import { capabilitiesFor, collectPages, createGeotabAdapter, createMotiveAdapter, type ProviderAdapter } from '@switchyard/providers';
import { spawnSimulator, type NodeProcess } from '@switchyard/testing';
import { PURPOSE_REQUIREMENTS, SYNC_PURPOSES, type SyncPurpose } from '@switchyard/sync-orchestrator';
import { PipelineStack, type PipelineConnection } from './pipeline-stack.js';

/** Three days: any three-day window of the simulated fleet holds a weekday with trips. */
const LOOKBACK_DAYS = 3;
const MAX_PAGES = 1_000;

const motiveKey = `motive_${randomBytes(16).toString('hex')}`;
const geotab = { database: `db_${randomBytes(4).toString('hex')}`, userName: 'pipeline@switchyard.example', password: randomBytes(12).toString('hex') };

const simulators: NodeProcess[] = [];
let stack: PipelineStack;
const fleets = {} as Record<'motive' | 'geotab', { direct: ProviderAdapter; connection: PipelineConnection; approved: string[]; unapproved: string; purposes: SyncPurpose[] }>;

/** The sync purposes whose required fields the provider's capability matrix does not mark unsupported. */
function supportedPurposes(provider: Provider): SyncPurpose[] {
  const fields: Readonly<Record<string, string>> = capabilitiesFor(provider).fields;
  return SYNC_PURPOSES.filter((p) => PURPOSE_REQUIREMENTS[p].every((f) => (fields[f] ?? 'unsupported') !== 'unsupported'));
}

async function simulator(provider: Provider, env: Record<string, string>): Promise<string> {
  const { process, url } = await spawnSimulator(provider, { SIM_VEHICLES: '3', SIM_SEED: `pipeline-${provider}`, SIM_CLOCK_FACTOR: '0', ...env });
  simulators.push(process);
  return url;
}

beforeAll(async () => {
  const motiveUrl = await simulator('motive', { MOTIVE_API_KEYS: motiveKey });
  const geotabUrl = await simulator('geotab', { GEOTAB_DATABASE: geotab.database, GEOTAB_USERNAME: geotab.userName, GEOTAB_PASSWORD: geotab.password });
  stack = await PipelineStack.start({ providerBaseUrls: { motive: motiveUrl, geotab: geotabUrl } });
  const setups = [
    { provider: 'motive' as const, direct: createMotiveAdapter({ provider: 'motive', baseUrl: motiveUrl, credentials: { apiKey: motiveKey } }), credentials: { apiKey: motiveKey } },
    { provider: 'geotab' as const, direct: createGeotabAdapter({ provider: 'geotab', baseUrl: geotabUrl, credentials: geotab }), credentials: geotab },
  ];
  for (const setup of setups) {
    const roster = (await collectPages((c) => setup.direct.vehicles(c), MAX_PAGES)).items.map((v) => v.sourceId).sort();
    expect(roster).toHaveLength(3);
    const approved = roster.slice(0, 2);
    const purposes = supportedPurposes(setup.provider);
    expect(purposes).toContain('vehicles');
    expect(purposes).toContain('trips');
    const connection = await stack.connect({
      provider: setup.provider,
      credentials: setup.credentials,
      config: {
        approvedVehicleIds: approved,
        purposes: { vehicles: purposes.includes('vehicles'), groupMemberships: purposes.includes('groupMemberships'), trips: purposes.includes('trips') },
      },
    });
    fleets[setup.provider] = { direct: setup.direct, connection, approved, unapproved: roster[2]!, purposes };
  }
}, 120_000);

afterAll(async () => {
  await stack?.close();
  for (const p of simulators) await p.kill();
});

describe.each(['motive', 'geotab'] as const)('the %s pipeline', (provider) => {
  it('completes a sync of vehicles, groupMemberships (where supported) and trips through directory receipts, and directory holds what the simulator serves for the approved vehicles', async () => {
    const { direct, connection, approved, unapproved, purposes } = fleets[provider];
    const sync = await connection.createSync({ lookbackDays: LOOKBACK_DAYS });
    const done = await connection.settled(sync.id);
    expect(done).toMatchObject({ status: 'completed', progress: 100 });
    expect(done.failureReason).toBeUndefined();

    const units = await connection.units(sync.id);
    expect(new Set(units.map((u) => u.purpose))).toEqual(new Set(purposes));
    for (const u of units) expect(u).toMatchObject({ state: 'receipted', error_attempts: 0 });

    const id = connection.connectionId;
    const vehicles = await stack.sql<{ source_id: string; name: string | null; vin: string | null }>('select source_id, name, vin from $directory.vehicle where connection_id = ?::uuid order by source_id', [id]);
    const roster = (await collectPages((c) => direct.vehicles(c), MAX_PAGES)).items.filter((v) => approved.includes(v.sourceId));
    expect(vehicles.map((v) => v.source_id)).toEqual(approved);
    expect(vehicles.map((v) => v.source_id)).not.toContain(unapproved);
    // The stored names and VINs are the provider's (present values, or null where it has none).
    for (const v of roster) {
      const stored = vehicles.find((s) => s.source_id === v.sourceId)!;
      expect(stored.name).toBe(v.name.status === 'available' ? v.name.value : null);
    }

    // Groups are collected by the groupMemberships purpose only.
    const groups = await stack.sql<{ source_id: string }>('select source_id from $directory."group" where connection_id = ?::uuid', [id]);
    const simGroups = purposes.includes('groupMemberships') ? (await collectPages((c) => direct.groups(c), MAX_PAGES)).items.map((g) => g.sourceId).sort() : [];
    expect(groups.map((g) => g.source_id).sort()).toEqual(simGroups);
    if (purposes.includes('groupMemberships')) expect(simGroups.length).toBeGreaterThan(0);

    const expected = (await collectPages((cursor) => direct.trips({ from: done.startFrom, to: done.requestedAt, vehicleSourceIds: approved, cursor }), MAX_PAGES)).items
      .filter((t) => approved.includes(t.vehicleSourceId))
      .map((t) => t.sourceId)
      .sort();
    const trips = await stack.sql<{ source_id: string; vehicle_source_id: string }>('select source_id, vehicle_source_id from $directory.trip where connection_id = ?::uuid', [id]);
    expect(trips.map((t) => t.source_id).sort()).toEqual(expected);
    expect(expected.length).toBeGreaterThan(0);
    for (const t of trips) expect(approved).toContain(t.vehicle_source_id);

    const health = await connection.health();
    expect(health.last_error_code ?? null).toBeNull();
  }, 180_000);
});

describe('credentials', () => {
  it('logs no provider credential', () => {
    const logs = stack.logLines.join('');
    expect(logs).not.toContain(motiveKey);
    expect(logs).not.toContain(geotab.password);
  });
});
