/**
 * GET /v1/catalog (spec 2.12) and GET /v1/connections/{id}/capabilities (spec 2.8, 2.2, 2.3) over
 * HTTP: every required key present and every constant exactly the number or word the spec states,
 * so a client reading the catalog is told what the services enforce. Each response also passes the
 * committed OpenAPI document (through `call`).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { CONTRACT_ENDPOINT_KEYS, HISTORY_RETENTION_DAYS } from '@switchyard/contracts';
import { PROVIDERS, TELEMETRY_METRICS } from '@switchyard/domain';
import { capabilitiesFor } from '@switchyard/providers';
import { bearer, startTestGateway, type TestGateway } from './support.js';

const METADATA_KEYS = [
  'make',
  'model',
  'year',
  'status',
  'providerStatus',
  'fuelType',
  'sourceFuelType',
  'createdAt',
  'updatedAt',
  'activeFrom',
  'activeTo',
  'licensePlate',
  'licensePlateRegion',
  'serialNumber',
  'groups',
];

type Json = Record<string, unknown>;

let gw: TestGateway;
let key: string;
let catalog: Json;

beforeAll(async () => {
  gw = await startTestGateway();
  key = (await gw.credentials.createConsumerKey('catalog')).token;
  const res = await gw.call('GET', '/v1/catalog', { headers: bearer(key) });
  expect(res.status).toBe(200);
  catalog = res.body as Json;
});

afterAll(async () => {
  await gw?.close();
});

const entry = (name: string) => catalog[name] as Json;
const expectStrings = (object: Json, keys: string[]) => {
  for (const k of keys) expect({ [k]: typeof object[k] }).toEqual({ [k]: 'string' });
};
const expectStringArray = (value: unknown) => {
  expect(Array.isArray(value)).toBe(true);
  for (const v of value as unknown[]) expect(typeof v).toBe('string');
};

describe('GET /v1/catalog', () => {
  it('carries every required key of spec 2.12, and versions of spec 9', () => {
    for (const k of ['apiVersion', 'catalogVersion', 'fields', 'endpoints', 'roadmap', 'enrichment', 'driverDirectory', 'tripHistory', 'vehicleProfiles', 'vehicleMetadata', 'groupInventory', 'groupDirectory']) {
      expect(catalog).toHaveProperty([k]);
    }
    expect(catalog.apiVersion).toBe('v1');
    expect(catalog.catalogVersion).toBe('1.16.0');
    for (const k of ['endpoints', 'roadmap', 'faults', 'limits']) if (k in catalog) expect(typeof catalog[k]).toBe('object');
    if ('reviewedAt' in catalog) expect(catalog.reviewedAt).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('lists every telemetry metric with its normalized unit and freshness', () => {
    const fields = catalog.fields as Json[];
    expect(fields.map((f) => f.name).sort()).toEqual([...TELEMETRY_METRICS].sort());
    const units = Object.fromEntries(fields.map((f) => [f.name, f.unit]));
    // Spec 2.1: normalized distance meters, duration seconds; 2.10 value shapes for the rest.
    expect(units).toEqual({
      location: 'degrees',
      odometer: 'meters',
      engineHours: 'seconds',
      totalIdleTime: 'seconds',
      speed: 'meters_per_second',
      heading: 'degrees',
      fuelPercent: 'percent',
      batteryVoltage: 'volts',
      // A state (on, off, idle) has no unit: absent, not an invented one.
      engineState: undefined,
    });
    for (const f of fields) {
      expect(Number.isInteger(f.freshnessSeconds) && (f.freshnessSeconds as number) > 0).toBe(true);
      expectStrings(f, ['name', 'label', 'kind', 'valueKey', 'availability']);
    }
    expect(fields.filter((f) => f.availability === 'core').map((f) => f.name)).toEqual(['location', 'odometer']);
    // Support per provider, as each provider's capabilities say.
    const providers = Object.fromEntries(fields.map((f) => [f.name, f.providers]));
    for (const p of PROVIDERS) for (const m of TELEMETRY_METRICS) expect((providers[m] as Record<string, string>)[p]).toBe(capabilitiesFor(p).fields[`telemetry.${m}`]);
    expect(providers.totalIdleTime).toMatchObject({ motive: 'unsupported', geotab: 'unsupported' });
  });

  it('trip history: stored, kilometers and milliseconds, pages of 100, 50 filter ids, 4 MiB responses (2.7)', () => {
    const e = entry('tripHistory');
    expect(Object.keys(e).sort()).toEqual(['authorization', 'coverage', 'gaps', 'maxFilterIds', 'maxPageSize', 'releaseStatus', 'responseByteLimit', 'retrieval', 'units'].sort());
    expectStrings(e, ['releaseStatus', 'authorization', 'coverage']);
    expect(e).toMatchObject({ retrieval: 'stored', units: { distance: 'kilometers', duration: 'milliseconds' }, maxPageSize: 100, maxFilterIds: 50, responseByteLimit: 4194304 });
    expect(e.units).toEqual({ distance: 'kilometers', duration: 'milliseconds' });
    expectStringArray(e.gaps);
    // The trip retention (decision 0030): the TripPage has no field for a reason, the catalog's gaps say it.
    expect(e.gaps).toContainEqual(expect.stringContaining(`more than ${HISTORY_RETENTION_DAYS} days ago are no longer stored`));
  });

  it('vehicle profiles: stored, approved source vehicle ids, pages of 100, 4 MiB responses (2.6)', () => {
    const e = entry('vehicleProfiles');
    expect(Object.keys(e).sort()).toEqual(
      ['releaseStatus', 'authorization', 'query', 'visibility', 'groupRelationships', 'retrieval', 'selection', 'maxPageSize', 'responseByteLimit', 'gaps'].sort(),
    );
    expectStrings(e, ['releaseStatus', 'authorization', 'query', 'visibility', 'groupRelationships']);
    expect(e).toMatchObject({ retrieval: 'stored', selection: 'approved_source_vehicle_ids', maxPageSize: 100, responseByteLimit: 4194304 });
    expectStringArray(e.gaps);
  });

  it('group directory: not transactional, no deletion evidence, 50000 / 100000 / 67108864, 4 MiB responses (2.2)', () => {
    const e = entry('groupDirectory');
    expect(Object.keys(e).sort()).toEqual(
      [
        'releaseStatus',
        'enablement',
        'query',
        'identity',
        'pagination',
        'relations',
        'consistency',
        'deletionEvidence',
        'maxRows',
        'maxReferences',
        'projectedByteLimit',
        'responseByteLimit',
        'gaps',
      ].sort(),
    );
    expectStrings(e, ['releaseStatus', 'enablement', 'query', 'identity', 'pagination', 'relations']);
    expect(e).toMatchObject({
      consistency: 'not_transactional',
      deletionEvidence: 'none',
      maxRows: 50000,
      maxReferences: 100000,
      projectedByteLimit: 67108864,
      responseByteLimit: 4194304,
    });
    expectStringArray(e.gaps);
  });

  it('group inventory: explicit approved ids, at most 100, approved groups only', () => {
    const e = entry('groupInventory');
    expectStrings(e, ['releaseStatus', 'enablement']);
    expect(e).toMatchObject({ selection: 'explicit_approved_ids', maxGroupIds: 100, parentResolution: 'approved_groups_only' });
  });

  it('vehicle metadata: four strings and the 15 metadata keys (2.3, 2.12)', () => {
    const e = entry('vehicleMetadata');
    expect(Object.keys(e).sort()).toEqual(['availability', 'enablement', 'fields', 'interpretation', 'releaseStatus']);
    expectStrings(e, ['releaseStatus', 'enablement', 'availability', 'interpretation']);
    expect(e.fields).toEqual(METADATA_KEYS);
  });

  it('enrichment: five strings and the four products, unique (2.4)', () => {
    const e = entry('enrichment');
    expect(Object.keys(e).sort()).toEqual(['collection', 'enablement', 'images', 'measurements', 'products', 'releaseStatus']);
    expectStrings(e, ['releaseStatus', 'collection', 'enablement', 'measurements', 'images']);
    expect([...(e.products as string[])].sort()).toEqual(['build', 'identity', 'images', 'specifications']);
  });

  it('driver directory: seven strings and gaps (2.5)', () => {
    const e = entry('driverDirectory');
    expect(Object.keys(e).sort()).toEqual(['authorization', 'gaps', 'groupRelations', 'identity', 'membershipCapture', 'modification', 'releaseStatus', 'retrieval'].sort());
    expectStrings(e, ['releaseStatus', 'authorization', 'retrieval', 'identity', 'modification', 'groupRelations', 'membershipCapture']);
    expectStringArray(e.gaps);
  });

  it('the endpoint table marks served exactly the routes the gateway registers, and every unserved one not_released', async () => {
    const endpoints = catalog.endpoints as Record<string, { method: string; path: string; releaseStatus: string }>;
    expect(Object.keys(endpoints).length).toBeGreaterThan(0);
    const fastify = gw.service.app.getHttpAdapter().getInstance();
    const connection = await gw.connections.create({ customerId: 'cust-release', provider: 'samsara', environment: 'sandbox' });
    const granted = await gw.credentials.createConsumerKey('release');
    await gw.credentials.grantConsumer(granted.id, connection.connectionId, ['read']);
    const values: Record<string, string> = { id: connection.connectionId, vehicleId: `vcl_0${'0'.repeat(25)}`, sessionId: randomUUID() };
    for (const [op, e] of Object.entries(endpoints)) {
      const registered = fastify.hasRoute({ method: e.method as 'GET' | 'POST', url: e.path.replace(/\{(\w+)\}/g, ':$1') });
      expect({ op, releaseStatus: e.releaseStatus }).toEqual({ op, releaseStatus: registered ? 'preview' : 'not_released' });
      if (registered) continue;
      // Not served: no route answers it, whatever the key may do on the connection.
      const res = await gw.call(e.method, e.path.replace(/\{(\w+)\}/g, (_m, name: string) => values[name]!), { headers: bearer(granted.token), validate: false });
      expect({ op, status: res.status, body: res.body }).toEqual({ op, status: 404, body: { error: 'not_found' } });
    }
    // The README and docs/architecture.md say so: every one of the contract's 36 operations is served (and the additions beyond them).
    expect(CONTRACT_ENDPOINT_KEYS.map((key) => endpoints[key]?.releaseStatus)).toEqual(Array<string>(36).fill('preview'));
    expect(Object.values(endpoints).map((e) => e.releaseStatus).filter((status) => status !== 'preview')).toEqual([]);
  });

  it('each area entry reports the release status of its routes, and the roadmap lists the routes not served yet', () => {
    const endpoints = Object.values(catalog.endpoints as Record<string, { area: string; releaseStatus: string }>);
    const statusOfArea = (area: string) => {
      const statuses = new Set(endpoints.filter((e) => e.area === area).map((e) => e.releaseStatus));
      return statuses.size > 1 ? 'partial' : [...statuses][0];
    };
    const areas = { enrichment: 'enrichment', driverDirectory: 'drivers', tripHistory: 'trips', vehicleProfiles: 'vehicles', vehicleMetadata: 'vehicleMetadata', groupInventory: 'groups', groupDirectory: 'groups', faults: 'faults' };
    for (const [entryName, area] of Object.entries(areas)) expect({ entryName, releaseStatus: entry(entryName).releaseStatus }).toEqual({ entryName, releaseStatus: statusOfArea(area) });
    const roadmap = catalog.roadmap as Record<string, string>;
    for (const [op, e] of Object.entries(catalog.endpoints as Record<string, { area: string; releaseStatus: string }>)) {
      if (e.releaseStatus === 'not_released') expect(roadmap[e.area]?.split(/: |, /)).toContain(op);
    }
  });

  it('the limits object states the numbers of spec section 8 and the read limits of our own', () => {
    expect(catalog.limits).toMatchObject({
      refreshMinIntervalSeconds: 30,
      connectLinkTtlSeconds: 600,
      syncPage: { min: 1, max: 100, default: 25 },
      syncCursorTtlSeconds: 900,
      syncPlan: { maxUnits: 10000, maxBytes: 4194304 },
      tripPageMax: 100,
      vehicleProfilePageMax: 100,
      driverPageMax: 100,
      tripFilterIds: 50,
      responseByteLimit: 4194304,
      groupDirectory: { maxRows: 50000, maxReferences: 100000, projectedByteLimit: 67108864 },
      groupInventoryMaxIds: 100,
      groupsPerEntity: 1000,
      maxObservationGapSeconds: 1800,
      selectedSignals: { min: 1, max: 4 },
      locationsPage: { min: 1, max: 100, default: 100 },
      historyPage: { min: 1, max: 1000, default: 500 },
      historyWindowMaxDays: 31,
      usageWindowMaxDays: 93,
      usageHourlyIntervalsMaxDays: 31,
      fleetUtilizationPage: { min: 1, max: 100, default: 25 },
      faultsPage: { min: 1, max: 100, default: 100 },
      faultEventsPage: { min: 1, max: 1000, default: 100 },
      faultEventRetentionDays: 90,
    });
  });
});

describe('GET /v1/connections/{id}/capabilities', () => {
  it.each([
    ['samsara', 'complete_snapshot'],
    ['motive', 'complete_snapshot'],
    ['geotab', 'explicit_records'],
  ] as const)('%s: %s faults, the metadata and group inventory opt-ins exactly per spec', async (provider, faultModel) => {
    const { connectionId } = await gw.connections.create({ customerId: `cust-${provider}`, provider, environment: 'sandbox' });
    const k = await gw.credentials.createConsumerKey(`caps-${provider}`);
    await gw.credentials.grantConsumer(k.id, connectionId, ['read']);
    const res = await gw.call('GET', `/v1/connections/${connectionId}/capabilities`, { headers: bearer(k.token) });
    expect(res.status).toBe(200);
    const caps = res.body as Json;

    expect(caps.id).toBe(connectionId);
    expect(caps.faultModel).toBe(faultModel);
    expect(caps.adapterVersion).toMatch(new RegExp(`^${provider}-adapter/\\d+\\.\\d+\\.\\d+$`));
    expect(['native_feed', 'poll']).toContain(caps.collection);
    expectStringArray(caps.authentication);
    expectStringArray(caps.limitations);
    const fields = caps.fields as Record<string, string>;
    expect(Object.keys(fields).length).toBeGreaterThan(0);
    for (const [name, support] of Object.entries(fields)) expect({ name, ok: ['supported', 'conditional', 'unsupported'].includes(support) }).toEqual({ name, ok: true });
    for (const metric of TELEMETRY_METRICS) expect(fields).toHaveProperty([`telemetry.${metric}`]);

    const metadata = caps.vehicleMetadata as { optInConfig: string; defaultEnabled: boolean; fields: Record<string, string> };
    expect(Object.keys(metadata).sort()).toEqual(['defaultEnabled', 'fields', 'optInConfig']);
    expect(metadata.optInConfig).toBe('vehicleMetadata');
    expect(metadata.defaultEnabled).toBe(false);
    expect(Object.keys(metadata.fields).sort()).toEqual([...METADATA_KEYS].sort());
    for (const v of Object.values(metadata.fields)) expect(['conditional', 'unsupported']).toContain(v);

    expect(caps.groupInventory).toEqual({
      optInConfig: 'groupInventory',
      defaultEnabled: false,
      selection: 'explicit_approved_ids',
      maxGroupIds: 100,
      parentResolution: 'approved_groups_only',
      raw: 'unsupported',
      sourceTimestamps: 'unsupported',
    });
  });
});
