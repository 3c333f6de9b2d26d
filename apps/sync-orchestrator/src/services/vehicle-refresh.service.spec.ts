/**
 * refreshVehicle with faked ports (the SQL of the slot is refresh-slot.int-spec.ts; the route end to
 * end is system-tests telemetry-refresh.int-spec.ts): which outcome each provider answer gives,
 * that core and optional metrics are asked apart, that nothing is asked past a refused slot, an
 * unknown vehicle or a paused connection, and what is published.
 * Mutation tried: asking every metric in one call (core + extended together) fails "an optional
 * metric's failure" — odometer and location are lost with it and the outcome becomes failed.
 */
import { describe, expect, it } from '@jest/globals';
import { vehicleId, type TelemetryMetric } from '@switchyard/domain';
import { RpcError, type ConnectionConfigV1, type ObservationV1, type TelemetryBatchV1 } from '@switchyard/messaging';
import { ProviderError, type ProviderAdapter } from '@switchyard/providers';
import { createLogger } from '@switchyard/service-kit';
import { Writable } from 'node:stream';
import type { SlotClaim } from '../db/repositories/refresh-slot.repository.js';
import { refreshVehicle, type RefreshPorts } from './vehicle-refresh.service.js';

const connectionId = '3f0c2b7e-54a1-4c55-9d51-3a2b3c4d5e6f';
const vcl = (sourceId: string) => vehicleId({ connectionId, provider: 'samsara', sourceId });
const NOW = new Date('2026-11-26T03:00:00.000Z');

const config = (patch: Partial<ConnectionConfigV1> = {}): ConnectionConfigV1 => ({
  connectionId,
  provider: 'samsara',
  environment: 'sandbox',
  status: 'active',
  unifiedCollection: true,
  purposes: { vehicles: true, groupMemberships: true, trips: true },
  approvedVehicleIds: ['a1', 'a2'],
  includeVehicleIds: [],
  excludeVehicleIds: [],
  includeStatuses: [],
  optIns: { groupInventory: false, vehicleMetadata: false, extendedTelemetry: true },
  approvedGroupIds: [],
  selectedSignals: ['odometer', 'location', 'engineHours'],
  revision: 3,
  updatedAt: NOW.toISOString(),
  ...patch,
});

function reading(metric: TelemetryMetric, vehicleSourceId = 'a1'): ObservationV1 {
  const base = { provider: 'samsara' as const, vehicleSourceId, observedAt: '2026-11-26T02:59:00.000Z', fetchedAt: NOW.toISOString(), source: `samsara:${metric}` };
  if (metric === 'location') return { ...base, metric, value: { latitude: 1, longitude: 2 } };
  if (metric === 'odometer') return { ...base, metric, value: { meters: 1000 } };
  if (metric === 'engineHours' || metric === 'totalIdleTime') return { ...base, metric, value: { seconds: 3600 } };
  if (metric === 'engineState') return { ...base, metric, value: { state: 'on' } };
  return { ...base, metric, value: { value: 12 } };
}

/** Samsara's optional metrics with the opt-in and engineHours selected (libs/domain telemetry-coverage.ts). */
const OPTIONAL: TelemetryMetric[] = ['engineHours', 'totalIdleTime', 'speed', 'heading', 'fuelPercent', 'batteryVoltage', 'engineState'];

interface Harness {
  ports: RefreshPorts;
  asked: TelemetryMetric[][];
  published: TelemetryBatchV1[];
  claims: number;
}

function harness(options: { config?: ConnectionConfigV1; claim?: SlotClaim; fail?: (metrics: readonly TelemetryMetric[]) => ProviderError | undefined; answer?: (metrics: readonly TelemetryMetric[]) => ObservationV1[] } = {}): Harness {
  const h: Harness = { asked: [], published: [], claims: 0, ports: undefined as unknown as RefreshPorts };
  const adapter = {
    latestTelemetry: ({ metrics }: { metrics: readonly TelemetryMetric[] }) => {
      h.asked.push([...metrics]);
      const error = options.fail?.(metrics);
      if (error) return Promise.reject(error);
      // A reading of another vehicle on the page is never attributed to this one.
      return Promise.resolve({ items: [...(options.answer ?? ((m) => m.map((x) => reading(x))))(metrics), reading('odometer', 'a2')], next: null });
    },
  } as unknown as ProviderAdapter;
  h.ports = {
    config: () => Promise.resolve(options.config ?? config()),
    claim: () => {
      h.claims += 1;
      return Promise.resolve(options.claim ?? { granted: true });
    },
    adapter: () => Promise.resolve(adapter),
    publish: (batch) => {
      h.published.push(batch);
      return Promise.resolve();
    },
    logger: createLogger({ service: 'test', level: 'warn', destination: new Writable({ write: (_c, _e, cb) => cb() }) }),
    now: () => NOW,
  };
  return h;
}

describe('refreshVehicle', () => {
  it('asks core and optional metrics apart, publishes the readings as one observations batch without a sync, and reports fetched', async () => {
    const h = harness();
    const reply = await refreshVehicle(h.ports, { connectionId, vehicleId: vcl('a1') });
    expect(h.asked).toEqual([['location', 'odometer'], OPTIONAL]);
    expect(reply).toEqual({ outcome: 'fetched', failureReason: null, optionalFailure: null, fetchedAt: NOW.toISOString(), observations: ['location', 'odometer', ...OPTIONAL].map((m) => reading(m as TelemetryMetric)), failedMetrics: [] });
    expect(h.published).toHaveLength(1);
    expect(h.published[0]).toMatchObject({ kind: 'observations', syncId: null, unitId: null, fencingToken: null, final: true, providerCursor: null, records: reply.outcome === 'rate_limited' ? [] : reply.observations });
  });

  it("an optional metric's failure leaves odometer and location fetched and names only that metric", async () => {
    const h = harness({ fail: (m) => (m.includes('engineHours') ? new ProviderError('provider_scope_mismatch', { status: 403 }) : undefined) });
    const reply = await refreshVehicle(h.ports, { connectionId, vehicleId: vcl('a1') });
    expect(reply).toMatchObject({ outcome: 'fetched', failureReason: null, optionalFailure: 'provider_scope_mismatch', failedMetrics: OPTIONAL });
    expect(reply.outcome !== 'rate_limited' && reply.observations.map((o) => o.metric)).toEqual(['location', 'odometer']);
  });

  it('a failed core read is failed with the provider code; the optional readings that came back are still used', async () => {
    const h = harness({ fail: (m) => (m.includes('odometer') ? new ProviderError('provider_unavailable', { status: 503 }) : undefined) });
    const reply = await refreshVehicle(h.ports, { connectionId, vehicleId: vcl('a1') });
    expect(reply).toMatchObject({ outcome: 'failed', failureReason: 'provider_unavailable', optionalFailure: null, failedMetrics: ['location', 'odometer'] });
    expect(reply.outcome !== 'rate_limited' && reply.observations.map((o) => o.metric)).toEqual(OPTIONAL);
  });

  it('no odometer in the answer is no_new_odometer', async () => {
    const h = harness({ answer: (m) => m.filter((x) => x !== 'odometer').map((x) => reading(x)) });
    expect(await refreshVehicle(h.ports, { connectionId, vehicleId: vcl('a1') })).toMatchObject({ outcome: 'no_new_odometer', failedMetrics: [] });
  });

  it('a refused slot asks the provider nothing and says when to come back', async () => {
    const h = harness({ claim: { granted: false, retryAfterSeconds: 17 } });
    expect(await refreshVehicle(h.ports, { connectionId, vehicleId: vcl('a1') })).toEqual({ outcome: 'rate_limited', retryAfterSeconds: 17 });
    expect(h.asked).toEqual([]);
    expect(h.published).toEqual([]);
  });

  it('a vehicle the connection does not approve, and a disconnected connection, are not_found before the slot is claimed', async () => {
    const h = harness();
    await expect(refreshVehicle(h.ports, { connectionId, vehicleId: vcl('zz') })).rejects.toEqual(new RpcError('not_found'));
    const gone = harness({ config: config({ status: 'disconnected' }) });
    await expect(refreshVehicle(gone.ports, { connectionId, vehicleId: vcl('a1') })).rejects.toEqual(new RpcError('not_found'));
    expect(h.claims + gone.claims).toBe(0);
  });

  it('a paused connection is failed with collection_paused without contacting the provider', async () => {
    const h = harness({ config: config({ status: 'paused' }) });
    expect(await refreshVehicle(h.ports, { connectionId, vehicleId: vcl('a1') })).toEqual({
      outcome: 'failed',
      failureReason: 'collection_paused',
      optionalFailure: null,
      fetchedAt: null,
      observations: [],
      failedMetrics: ['location', 'odometer', ...OPTIONAL],
    });
    expect(h.asked).toEqual([]);
  });

  it('without the extended-telemetry opt-in asks the selected core metrics only', async () => {
    const h = harness({ config: config({ optIns: { groupInventory: false, vehicleMetadata: false, extendedTelemetry: false } }) });
    expect(await refreshVehicle(h.ports, { connectionId, vehicleId: vcl('a1') })).toMatchObject({ outcome: 'fetched', failedMetrics: [] });
    expect(h.asked).toEqual([['location', 'odometer']]);
  });
});
