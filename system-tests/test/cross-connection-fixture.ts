/**
 * Seeding for the cross-connection generator (cross-connection.int-spec.ts): one connection with
 * real data in every resource kind the API serves — groups, vehicles, drivers and trips (directory
 * batches), telemetry readings (an observations batch: latest, locations, history, usage), open
 * faults and fault events (fault snapshots), syncs of two applications, a connect session — each
 * published as a collector publishes it and awaited until its context committed it (much faster
 * than running simulators). Every string the data carries contains the tenant's `mark`, so a
 * response holding any byte of the tenant's data is found by searching for the mark and the ids.
 */
import { randomBytes } from 'node:crypto';
import { available, driverId, groupId, tripId, vehicleId, type ConnectionConfig, type Observation } from '@switchyard/domain';
import type { FaultSnapshotV1 } from '@switchyard/messaging';
import type { RunningService } from '@switchyard/service-kit';
import { pollUntil } from '@switchyard/testing';
import type { ConnectionConfigPatch } from '@switchyard/gateway';
import { execute } from './gateway-client.js';
import { ingestFaults } from './faults-fixture.js';
import { groupRecord } from './groups-fixture.js';
import { driverRecord, ingest, tripRecord, vehicleRecord } from './reads-fixture.js';
import { ALL_SYNC_OPERATIONS, waitForGrants, type SyncApp } from './syncs-fixture.js';
import type { TestGateway } from './support.js';
import { ingestObservations as ingestCommitted } from './telemetry-runs.js';

/** Every consumer permission: the key may reach every route of its connections. */
const ALL_PERMISSIONS: ('read' | 'history' | 'manage')[] = ['read', 'history', 'manage'];

export interface Tenant {
  connectionId: string;
  /** In every string of the tenant's data (names, VINs, plates, source ids, fault descriptions). */
  mark: string;
  /** A key with every permission on this connection only. */
  key: Record<string, string>;
  /** Ids by path parameter name (`vehicleId`, `driverId`, `groupId`, `tripId`, `sessionId`). */
  ids: Record<string, string[]>;
  /** The VINs of its vehicles. */
  vins: string[];
  /** An application with a Connection-Token for this connection only. */
  app: SyncApp;
  /** Ids of the syncs `app` created on this connection. */
  syncIds: string[];
}

/** Waits until every context started beside the gateway projected the connection's configuration at `config.revision` (and, with the directory running, its visibility set). */
export async function waitProjectedEverywhere(gw: TestGateway, config: ConnectionConfig): Promise<void> {
  await gw.flushOutbox();
  const services = [gw.directory, gw.orchestrator, gw.faultFeed, gw.telemetryIngest].filter((s): s is RunningService => s !== undefined);
  for (const service of services) {
    const schema = service.runtime.orm.em.config.get('schema');
    await pollUntil(
      async () => (await execute<{ revision: number }>(service, `select revision from "${schema}".connection_config where connection_id = ?::uuid`, [config.connectionId]))[0]?.revision === config.revision,
      { timeoutMs: 20_000, description: `config revision ${config.revision} in ${schema}` },
    );
  }
  // Telemetry and faults show nothing of a connection before the directory's first visibility set arrived (decision 0029).
  for (const service of gw.directory ? [gw.faultFeed, gw.telemetryIngest].filter((s): s is RunningService => s !== undefined) : []) {
    const schema = service.runtime.orm.em.config.get('schema');
    await pollUntil(async () => (await execute(service, `select 1 from "${schema}".vehicle_visibility where connection_id = ?::uuid`, [config.connectionId])).length > 0, {
      timeoutMs: 20_000,
      description: `visibility set in ${schema}`,
    });
  }
}

/** An observations batch published as a collector does (telemetry-runs.ts), awaited until telemetry-ingest committed it. */
function ingestObservations(gw: TestGateway, connectionId: string, records: Observation[]): Promise<void> {
  const service = gw.telemetryIngest!;
  const schema = service.runtime.orm.em.config.get('schema');
  const sql = <T>(text: string, params: unknown[] = []) => execute<T>(service, text.replaceAll('$telemetry.', `"${schema}".`), params);
  return ingestCommitted({ sql }, gw.bus, { connectionId, provider: 'samsara' }, records);
}

export async function consumerKey(gw: TestGateway, name: string, connectionIds: string[]): Promise<Record<string, string>> {
  const key = await gw.credentials.createConsumerKey(name);
  for (const connectionId of connectionIds) await gw.credentials.grantConsumer(key.id, connectionId, ALL_PERMISSIONS);
  return { authorization: `Bearer ${key.token}` };
}

/** An application (every sync operation and history) with a Connection-Token for each of `connectionIds`, in that order. */
export async function syncApplication(gw: TestGateway, name: string, connectionIds: string[]): Promise<SyncApp[]> {
  const app = await gw.credentials.createApplication(name, 'sandbox');
  const apps: SyncApp[] = [];
  for (const connectionId of connectionIds) {
    await gw.credentials.grantApplication(app.id, connectionId, ALL_SYNC_OPERATIONS, true);
    const token = await gw.credentials.issueConnectionToken(app.id, connectionId);
    apps.push({ id: app.id, secret: app.token, token: token.token, tokenId: token.id, connectionId, headers: { authorization: `Bearer ${app.token}`, 'connection-token': token.token } });
  }
  await waitForGrants(gw, app.id);
  return apps;
}

/** A connection configured to serve every resource kind (vehicles, groups' inventory, metadata, extended telemetry). */
function servingConfig(sourceIds: string[]): ConnectionConfigPatch {
  return {
    status: 'active',
    unifiedCollection: true,
    purposes: { vehicles: true, groupMemberships: true, trips: true },
    approvedVehicleIds: sourceIds,
    optIns: { groupInventory: true, vehicleMetadata: true, extendedTelemetry: true },
    selectedSignals: ['odometer', 'location', 'engineHours', 'faults'],
  };
}

export async function createSync(gw: TestGateway, app: SyncApp): Promise<string> {
  const res = await fetch(`${gw.url}/v1/syncs`, { method: 'POST', headers: app.headers });
  if (res.status !== 201) throw new Error(`sync create: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/**
 * A connection with data of every kind, its key, and an application with two syncs on it (one
 * cancelled).
 */
export async function seedTenant(gw: TestGateway, tag: string): Promise<Tenant> {
  const mark = `${tag}${randomBytes(4).toString('hex')}`;
  const { connectionId } = await gw.connections.create({ customerId: `cust-${mark}`, provider: 'samsara', environment: 'sandbox' });
  const key = await consumerKey(gw, `key ${mark}`, [connectionId]);
  // A connect session needs the connection paused (spec 4.3 rule 2); it stays readable by its key after the connection is active again.
  await gw.connections.configure(connectionId, { status: 'paused' });
  const session = await fetch(`${gw.url}/v1/connections/${connectionId}/connect-sessions`, { method: 'POST', headers: key });
  if (session.status !== 200) throw new Error(`connect session: ${session.status} ${await session.text()}`);
  const { sessionId } = (await session.json()) as { sessionId: string };

  const source = (kind: string, n: number) => `${mark}-${kind}-${n}`;
  const vehicles = [1, 2, 3].map((n) => source('veh', n));
  const drivers = [1, 2, 3].map((n) => source('drv', n));
  const groups = [1, 2, 3].map((n) => source('grp', n));
  const trips = [1, 2, 3, 4].map((n) => source('trp', n));
  await waitProjectedEverywhere(gw, await gw.connections.configure(connectionId, servingConfig(vehicles)));

  const now = Date.now();
  const fetchedAt = new Date(now).toISOString();
  const ago = (minutes: number) => new Date(now - minutes * 60_000).toISOString();
  const text = <T>(value: T) => available(value, 'test:field');
  const vins = vehicles.map((_v, i) => `1${mark.slice(-8).toUpperCase().replace(/[^0-9A-HJ-NPR-Z]/g, '0')}${String(i).padStart(8, '0')}`.slice(0, 17));
  await ingest(gw, connectionId, 'groups', groups.map((g, i) => groupRecord(g, fetchedAt, i === 0 ? null : groups[0]!, { name: `Group ${g}` })), { fetchedAt });
  await ingest(
    gw,
    connectionId,
    'vehicles',
    vehicles.map((v, i) => {
      const record = vehicleRecord(v, fetchedAt);
      return { ...record, vin: text(vins[i]!), metadata: { ...record.metadata, licensePlate: text(`P-${mark}-${i}`), groups: text([{ id: groups[i]!, name: `Group ${groups[i]}` }]) } } as typeof record;
    }),
    { fetchedAt },
  );
  await ingest(
    gw,
    connectionId,
    'drivers',
    drivers.map((d, i) => {
      const record = driverRecord(d, fetchedAt);
      return { ...record, fields: { ...record.fields, displayName: text(`Driver ${d}`), email: text(`${d}@example.com`), licenseNumber: text(`L-${d}`) }, groupIds: text([groups[i]!]) } as typeof record;
    }),
    { fetchedAt },
  );
  await ingest(
    gw,
    connectionId,
    'trips',
    trips.map((t, i) => tripRecord(t, vehicles[i % vehicles.length]!, ago(180 - i * 40), fetchedAt, { driverSourceId: drivers[i % drivers.length]! })),
    { fetchedAt },
  );

  // Readings every 10 minutes over the last two hours: history pages, locations, usage figures.
  const observations: Observation[] = vehicles.flatMap((v, i) =>
    Array.from({ length: 12 }, (_x, step): Observation[] => {
      const observedAt = ago(120 - step * 10);
      const base = { provider: 'samsara' as const, vehicleSourceId: v, observedAt, fetchedAt };
      return [
        { ...base, metric: 'location', source: 'samsara:gps', value: { latitude: 37 + i / 10 + step / 1000, longitude: -122 - step / 1000 } },
        { ...base, metric: 'odometer', source: 'samsara:obdOdometerMeters', value: { meters: 100_000 + step * 1_500 } },
        { ...base, metric: 'engineHours', source: 'samsara:obdEngineSeconds', value: { seconds: 36_000 + step * 600 } },
        { ...base, metric: 'engineState', source: 'samsara:engineStates', value: { state: 'on' } },
      ] as Observation[];
    }).flat(),
  );
  await ingestObservations(gw, connectionId, observations);

  const snapshot = (v: string, minutesAgo: number, keys: string[]): FaultSnapshotV1 => ({
    model: 'complete_snapshot',
    provider: 'samsara',
    vehicleSourceId: v,
    observedAt: ago(minutesAgo),
    active: keys.map((k) => ({ faultKey: `j1939:0:spn${k}:fmi1`, code: `SPN ${k} FMI 1`, description: `${mark} fault ${k}` })),
    fetchedAt: ago(minutesAgo),
  });
  await ingestFaults(gw, connectionId, 'samsara', [snapshot(vehicles[0]!, 60, ['100', '110']), snapshot(vehicles[1]!, 60, ['190'])]);
  await ingestFaults(gw, connectionId, 'samsara', [snapshot(vehicles[0]!, 30, ['110', '111']), snapshot(vehicles[1]!, 30, ['190', '191'])]);

  const [app] = await syncApplication(gw, `app ${mark}`, [connectionId]);
  const syncIds = [await createSync(gw, app!), await createSync(gw, app!)];
  // One cancelled: the list's status filter and the cancel/retry state checks see more than one state.
  const cancelled = await fetch(`${gw.url}/v1/syncs/${syncIds[0]}/cancel`, { method: 'POST', headers: app!.headers });
  if (cancelled.status !== 200) throw new Error(`sync cancel: ${cancelled.status} ${await cancelled.text()}`);

  const ref = (kind: (r: { connectionId: string; provider: 'samsara'; sourceId: string }) => string, sourceIds: string[]) => sourceIds.map((sourceId) => kind({ connectionId, provider: 'samsara', sourceId }));
  return {
    connectionId,
    mark,
    key,
    ids: { vehicleId: ref(vehicleId, vehicles), driverId: ref(driverId, drivers), groupId: ref(groupId, groups), tripId: ref(tripId, trips), sessionId: [sessionId] },
    vins,
    app: app!,
    syncIds,
  };
}
