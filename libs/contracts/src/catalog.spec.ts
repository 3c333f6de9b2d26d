import { describe, expect, it } from '@jest/globals';
import { TELEMETRY_METRICS } from '@switchyard/domain';
import { CATALOG_ENDPOINTS, CONTRACT_ENDPOINT_KEYS, ENDPOINT_AREAS, type CatalogEndpoint } from './catalog-endpoints.js';
import { areaReleaseStatus, buildCatalog, unreleasedAreas } from './catalog.js';
import { LIMITS } from './limits.js';
import { VEHICLE_METADATA_KEYS } from './vehicle-metadata.js';

const catalog = buildCatalog();

describe('catalog (spec 2.12)', () => {
  it('has every required top-level key', () => {
    for (const key of ['apiVersion', 'catalogVersion', 'fields', 'endpoints', 'roadmap', 'enrichment', 'driverDirectory', 'tripHistory', 'vehicleProfiles', 'vehicleMetadata', 'groupInventory', 'groupDirectory']) {
      expect(catalog).toHaveProperty(key);
    }
    expect(catalog.apiVersion).toBe('v1');
    expect(catalog.catalogVersion).toBe('1.16.0');
    expect(catalog.reviewedAt).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(catalog.releaseStatus).toBe('preview');
  });

  it('lists one field per telemetry metric of spec 2.10', () => {
    expect(catalog.fields.map((f) => f.name)).toEqual([...TELEMETRY_METRICS]);
    const unit = Object.fromEntries(catalog.fields.map((f) => [f.name, f.unit]));
    expect(unit).toMatchObject({ odometer: 'meters', engineHours: 'seconds', totalIdleTime: 'seconds', speed: 'meters_per_second' });
    for (const f of catalog.fields) expect(Number.isInteger(f.freshnessSeconds) && f.freshnessSeconds > 0).toBe(true);
    expect(catalog.fields.filter((f) => f.availability === 'core').map((f) => f.name)).toEqual(['location', 'odometer']);
  });

  it('states each field\'s support per provider when the capabilities are handed in (unsupported when a provider names none)', () => {
    const fields = buildCatalog({ providerSupport: { samsara: { 'telemetry.odometer': 'conditional' }, geotab: { 'telemetry.odometer': 'supported' } } }).fields;
    expect(fields.find((f) => f.name === 'odometer')?.providers).toEqual({ samsara: 'conditional', geotab: 'supported' });
    expect(fields.find((f) => f.name === 'speed')?.providers).toEqual({ samsara: 'unsupported', geotab: 'unsupported' });
    expect(catalog.fields[0]).not.toHaveProperty('providers');
  });

  it('has the enrichment entry of spec 2.4', () => {
    expect(catalog.enrichment.products).toEqual(['identity', 'images', 'specifications', 'build']);
    for (const k of ['releaseStatus', 'collection', 'enablement', 'measurements', 'images'] as const) expect(typeof catalog.enrichment[k]).toBe('string');
  });

  it('has the drivers entry of spec 2.5', () => {
    for (const k of ['releaseStatus', 'authorization', 'retrieval', 'identity', 'modification', 'groupRelations', 'membershipCapture'] as const) {
      expect(typeof catalog.driverDirectory[k]).toBe('string');
    }
    expect(Array.isArray(catalog.driverDirectory.gaps)).toBe(true);
  });

  it('has the trip history constants of spec 2.7', () => {
    expect(catalog.tripHistory).toMatchObject({
      retrieval: 'stored',
      units: { distance: 'kilometers', duration: 'milliseconds' },
      maxPageSize: 100,
      maxFilterIds: 50,
      responseByteLimit: 4194304,
    });
  });

  it('has the vehicle profile constants of spec 2.6', () => {
    expect(catalog.vehicleProfiles).toMatchObject({ retrieval: 'stored', selection: 'approved_source_vehicle_ids', maxPageSize: 100, responseByteLimit: 4194304 });
    for (const k of ['releaseStatus', 'authorization', 'query', 'visibility', 'groupRelationships'] as const) expect(typeof catalog.vehicleProfiles[k]).toBe('string');
    // A derived status is a named gap, never silent (decision 0011).
    expect(catalog.vehicleProfiles.gaps.filter((g) => g.startsWith('status is derived_from_roster '))).toHaveLength(1);
  });

  it('lists the 15 metadata keys of spec 2.3', () => {
    expect(catalog.vehicleMetadata.fields).toEqual([...VEHICLE_METADATA_KEYS]);
    expect(catalog.vehicleMetadata.fields).toHaveLength(15);
  });

  it('has the group inventory and directory constants of spec 2.2', () => {
    expect(catalog.groupInventory).toMatchObject({ selection: 'explicit_approved_ids', maxGroupIds: 100, parentResolution: 'approved_groups_only' });
    expect(catalog.groupDirectory).toMatchObject({
      consistency: 'not_transactional',
      deletionEvidence: 'none',
      maxRows: 50000,
      maxReferences: 100000,
      projectedByteLimit: 67108864,
      responseByteLimit: 4194304,
    });
    for (const k of ['releaseStatus', 'enablement', 'query', 'identity', 'pagination', 'relations'] as const) expect(typeof catalog.groupDirectory[k]).toBe('string');
  });

  it('reports the spec 8 limits', () => {
    expect(catalog.limits).toBe(LIMITS);
    expect(LIMITS).toMatchObject({
      refreshMinIntervalSeconds: 30,
      connectLinkTtlSeconds: 600,
      syncPage: { min: 1, max: 100, default: 25 },
      syncCursorTtlSeconds: 900,
      syncPlan: { maxUnits: 10000, maxBytes: 4194304 },
      tripPageMax: 100,
      vehicleProfilePageMax: 100,
      driverPageMax: 100,
      tripFilterIds: 50,
      groupInventoryMaxIds: 100,
      groupsPerEntity: 1000,
      maxObservationGapSeconds: 1800,
      selectedSignals: { min: 1, max: 4 },
    });
  });

  it('describes every route of spec 4, stored reads marked stored, and the additions beyond it', () => {
    const keys = Object.keys(catalog.endpoints);
    expect(CONTRACT_ENDPOINT_KEYS).toHaveLength(36);
    // Beyond the 36 (each says so in its OpenAPI description): data freshness (issue 27).
    expect(keys.filter((k) => !CONTRACT_ENDPOINT_KEYS.includes(k))).toEqual(['GET /v1/connections/{id}/freshness']);
    // Spec 5: sync routes need the application secret and the Connection-Token header.
    for (const e of Object.values(catalog.endpoints)) expect({ path: e.path, auth: e.auth }).toEqual({ path: e.path, auth: e.path.startsWith('/v1/syncs') ? 'application_secret_and_connection_token' : 'consumer_key' });
    expect(catalog.endpoints['GET /v1/connections/{id}/drivers']).toMatchObject({ auth: 'consumer_key', retrieval: 'stored' });
    expect(catalog.endpoints['POST /v1/connections/{id}/vehicles/{vehicleId}/refresh']).toMatchObject({ retrieval: 'provider_on_demand' });
    for (const e of Object.values(catalog.endpoints)) expect(e.path.startsWith('/v1/')).toBe(true);
  });

  it('derives each area\'s releaseStatus from the release status of its endpoints', () => {
    const byEntry = {
      enrichment: catalog.enrichment,
      drivers: catalog.driverDirectory,
      trips: catalog.tripHistory,
      vehicles: catalog.vehicleProfiles,
      vehicleMetadata: catalog.vehicleMetadata,
      groups: catalog.groupInventory,
      faults: catalog.faults!,
    } as const;
    for (const [area, entry] of Object.entries(byEntry)) {
      const statuses = new Set(Object.values(catalog.endpoints).filter((e) => e.area === area).map((e) => e.releaseStatus));
      const expected = statuses.size === 2 ? 'partial' : statuses.has('preview') ? 'preview' : 'not_released';
      expect({ area, releaseStatus: entry.releaseStatus }).toEqual({ area, releaseStatus: expected });
    }
    expect(catalog.groupDirectory.releaseStatus).toBe(catalog.groupInventory.releaseStatus);
  });

  it('gives every endpoint an area, and every area at least one endpoint', () => {
    for (const area of ENDPOINT_AREAS) expect({ area, endpoints: Object.values(CATALOG_ENDPOINTS).some((e) => e.area === area) }).toEqual({ area, endpoints: true });
    for (const e of Object.values(CATALOG_ENDPOINTS)) expect(ENDPOINT_AREAS).toContain(e.area);
  });

  it('says partial for an area with served and unserved endpoints, and puts every unserved operation on the roadmap', () => {
    const endpoint = (method: 'GET' | 'POST', path: string, releaseStatus: CatalogEndpoint['releaseStatus']): [string, CatalogEndpoint] => [
      `${method} ${path}`,
      { method, path, area: 'faults', auth: 'consumer_key', retrieval: 'stored', releaseStatus },
    ];
    const mixed = Object.fromEntries([endpoint('GET', '/v1/a', 'preview'), endpoint('GET', '/v1/b', 'not_released'), endpoint('POST', '/v1/b', 'not_released')]);
    expect(areaReleaseStatus('faults', mixed)).toBe('partial');
    expect(unreleasedAreas(mixed)).toEqual({ faults: 'partial: GET /v1/b, POST /v1/b' });
    expect(() => areaReleaseStatus('syncs', mixed)).toThrow(/syncs/);

    for (const area of ENDPOINT_AREAS) {
      const unserved = Object.entries(catalog.endpoints).filter(([, e]) => e.area === area && e.releaseStatus !== 'preview').map(([key]) => key);
      const listed = catalog.roadmap[area]?.replace(/^[a-z_]+: /, '').split(', ') ?? [];
      expect({ area, listed }).toEqual({ area, listed: unserved });
    }
  });

  it('is plain JSON', () => {
    expect(JSON.parse(JSON.stringify(catalog))).toEqual(catalog);
  });
});
