/**
 * Data freshness (issue 27 item 3) on real PostgreSQL and NATS: readings ingested through the
 * pipeline, their commit times set exactly in the batch ledger, then the figures of
 * FreshnessService (fixed clock and settings) checked one by one — data age quantiles, provider
 * and pipeline lag, the median sample interval, coverage — and the read over the bus
 * (`telemetry.read.freshness`, a framed ConnectionFreshness that its schema accepts).
 * Missing data is unknown, never zero: a signal without readings is `missing` with no age; a
 * hidden vehicle does not count; a connection with no vehicle says `no_vehicles`.
 * Mutations tried: the visibility rule left out of the read (`visibleFor` not passed) → the hidden
 * vehicle's reading counts and `vehicles` is 4, "figures" fails; gaps of 0 (a second source of one
 * sample) kept as gaps → the median sample interval 240 instead of 270, fails.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { vehicleId } from '@switchyard/domain';
import { connectionFreshnessV1, EVENTS, RPCS, RpcError, subjectFor, type ObservationV1 } from '@switchyard/messaging';
import { receiptsFor, startIngestHarness, telemetryBatchOf, type IngestHarness } from '@switchyard/testing';
import { FreshnessService } from '../src/services/freshness.service.js';
import { startTelemetryIngest, telemetryIngestService } from '../src/index.js';

const T = Math.floor(Date.now() / 1000) * 1000;
const at = (secondsAgo: number) => new Date(T - secondsAgo * 1000).toISOString();
const SETTINGS = { intervalMs: 300_000, windowMs: 3_600_000, maxMetricConnections: 50 };
let counter = 0;
/** Extended telemetry off: the signals are exactly the selected ones. */
const NO_EXTENDED = { groupInventory: false, vehicleMetadata: false, extendedTelemetry: false };

describe('data freshness', () => {
  let x: IngestHarness;
  beforeAll(async () => {
    x = await startIngestHarness(telemetryIngestService, startTelemetryIngest);
  });
  afterAll(() => x?.close());

  /** One reading in a batch of its own, committed `commitAfter` seconds after its fetch. */
  const reading = async (connectionId: string, vehicle: string, metric: 'odometer' | 'location', observedAgo: number, providerLag: number, commitAfter: number, source = `samsara:${metric}`) => {
    const value = metric === 'odometer' ? { meters: 1000 + ++counter } : { latitude: 1, longitude: 2 };
    const o = { provider: 'samsara', vehicleSourceId: vehicle, metric, value, source, observedAt: at(observedAgo), fetchedAt: at(observedAgo - providerLag) } as ObservationV1;
    const b = telemetryBatchOf(connectionId, [o]);
    await x.h.client.publish(EVENTS.telemetryBatch, subjectFor(EVENTS.telemetryBatch.subject, connectionId), b, { msgId: b.batchId });
    await receiptsFor(x, b.batchId);
    await x.sql(`update ${x.t('ingest_batch')} set committed_at = ?::timestamptz where batch_id = ?`, [at(observedAgo - providerLag - commitAfter), b.batchId]);
  };
  const service = () => new FreshnessService(x.h.service.runtime.orm, SETTINGS, undefined, () => T);
  const read = async (connectionId: string) => {
    const reply = await service().read(x.h.service.runtime.orm.em.fork(), connectionId);
    return connectionFreshnessV1.parse(JSON.parse(reply.body as string));
  };
  const vcl = (connectionId: string, sourceId: string) => vehicleId({ connectionId, provider: 'samsara', sourceId });

  it('figures: data age quantiles, provider and pipeline lag, median sample interval and coverage over the vehicles the reads show', async () => {
    const { connectionId } = await x.connect({ approvedVehicleIds: ['v1', 'v2', 'v3', 'v4'], selectedSignals: ['odometer', 'location'], optIns: NO_EXTENDED });
    await x.publishVisibility({ connectionId, sequence: '2', configRevision: 1, computedAt: new Date().toISOString(), hidden: [{ vehicleId: vcl(connectionId, 'v4'), sourceId: 'v4', visibility: 'hidden_by_exclude_list' }] });
    // v1: three readings 300 s and 240 s apart, provider lag 10/20/30 s, committed 1/2/3 s after their fetch;
    // the same sample from a second source is no gap.
    await reading(connectionId, 'v1', 'odometer', 600, 10, 1);
    await reading(connectionId, 'v1', 'odometer', 600, 10, 1, 'samsara:gpsOdometerMeters');
    await reading(connectionId, 'v1', 'odometer', 300, 20, 2);
    await reading(connectionId, 'v1', 'odometer', 60, 30, 3);
    // v2: one reading in the window (lag 5 s, commit 4 s) and one before it (outside every window figure).
    await reading(connectionId, 'v2', 'odometer', 4_000, 5, 9);
    await reading(connectionId, 'v2', 'odometer', 30, 5, 4);
    // v4 is hidden: its fresh reading must count nowhere. v3 has no reading.
    await reading(connectionId, 'v4', 'odometer', 5, 1, 1);

    const f = await read(connectionId);
    expect(f).toMatchObject({ connectionId, provider: 'samsara', measuredAt: at(0), collectionIntervalSeconds: 300, dataAgeBoundSeconds: 360, window: { startTime: at(3600), endTime: at(0) }, vehicles: 3, retrieval: 'stored' });
    expect(f.signals.map((s) => s.signal)).toEqual(['location', 'odometer']);
    const odometer = f.signals.find((s) => s.signal === 'odometer');
    expect(odometer).toEqual({
      signal: 'odometer',
      status: 'available',
      reason: null,
      newestObservedAt: at(30),
      // v1 60 s, v2 30 s.
      dataAge: { status: 'available', newestSeconds: 30, p50Seconds: 45, p95Seconds: 58.5, maxSeconds: 60, vehicles: 2 },
      // 10, 10 (the second source), 20, 30, 5 → p50 10, p95 28 (interpolated between 20 and 30).
      providerLag: { status: 'available', p50Seconds: 10, p95Seconds: 28, readings: 5 },
      pipelineLag: { status: 'available', p50Seconds: 2, p95Seconds: 3.8, readings: 5 },
      sampleInterval: { status: 'available', medianSeconds: 270, gaps: 2 },
      coverage: { status: 'available', vehiclesReporting: 2, vehicles: 3, ratio: 0.6667 },
    });
    // No location stored: missing, no age — never a zero.
    expect(f.signals.find((s) => s.signal === 'location')).toEqual({
      signal: 'location',
      status: 'missing',
      reason: 'no_readings',
      newestObservedAt: null,
      dataAge: { status: 'missing', reason: 'no_readings' },
      providerLag: { status: 'missing', reason: 'no_readings_in_window' },
      pipelineLag: { status: 'missing', reason: 'no_readings_in_window' },
      sampleInterval: { status: 'missing', reason: 'no_readings_in_window' },
      coverage: { status: 'available', vehiclesReporting: 0, vehicles: 3, ratio: 0 },
    });
  });

  it('a signal older than the bound is stale; one reading has no interval; faults have an age and coverage only; no vehicle is no_vehicles', async () => {
    const { connectionId } = await x.connect({ approvedVehicleIds: ['v1'], selectedSignals: ['odometer', 'faults'], optIns: NO_EXTENDED });
    await reading(connectionId, 'v1', 'odometer', 2_000, 1, 1);
    await x.h.client.publish(EVENTS.faultsObserved, subjectFor(EVENTS.faultsObserved.subject, connectionId), { connectionId, batchId: 'fb1', vehicles: [{ vehicleId: vcl(connectionId, 'v1'), observedAt: at(100) }] }, { msgId: `faults-observed:${connectionId}` });
    const projected = async () => (await x.sql<{ n: number }>(`select count(*)::int as n from ${x.t('vehicle_fault_observation')} where connection_id = ?`, [connectionId]))[0]?.n === 1;
    for (let i = 0; i < 100 && !(await projected()); i++) await new Promise((r) => setTimeout(r, 100));
    const f = await read(connectionId);
    expect(f.signals.map((s) => s.signal)).toEqual(['odometer', 'faults']);
    const [odometer, faults] = f.signals;
    expect(odometer).toMatchObject({ status: 'stale', reason: 'data_age_over_bound', dataAge: { p95Seconds: 2000 }, sampleInterval: { status: 'missing', reason: 'fewer_than_two_readings_per_vehicle' }, coverage: { vehiclesReporting: 0, vehicles: 1, ratio: 0 } });
    expect(faults).toEqual({
      signal: 'faults',
      status: 'available',
      reason: null,
      newestObservedAt: at(100),
      dataAge: { status: 'available', newestSeconds: 100, p50Seconds: 100, p95Seconds: 100, maxSeconds: 100, vehicles: 1 },
      providerLag: { status: 'unsupported', reason: 'not_kept_for_faults' },
      pipelineLag: { status: 'unsupported', reason: 'not_kept_for_faults' },
      sampleInterval: { status: 'unsupported', reason: 'not_kept_for_faults' },
      coverage: { status: 'available', vehiclesReporting: 1, vehicles: 1, ratio: 1 },
    });

    const empty = await x.connect({ approvedVehicleIds: [], selectedSignals: ['odometer'], optIns: NO_EXTENDED });
    const none = await read(empty.connectionId);
    expect(none.vehicles).toBe(0);
    expect(none.signals).toEqual([
      expect.objectContaining({ signal: 'odometer', status: 'missing', reason: 'no_vehicles', dataAge: { status: 'missing', reason: 'no_vehicles' }, coverage: { status: 'missing', reason: 'no_vehicles' } }),
    ]);
  });

  it('answers telemetry.read.freshness over the bus as a framed ConnectionFreshness; not_found for a connection it does not know', async () => {
    const { connectionId } = await x.connect({ approvedVehicleIds: ['v1'], selectedSignals: ['location'], optIns: NO_EXTENDED });
    await reading(connectionId, 'v1', 'location', 20, 2, 1);
    const reply = await x.h.client.request(RPCS.telemetry.freshness, { connectionId }, { timeoutMs: 10_000 });
    const body = connectionFreshnessV1.parse(JSON.parse(typeof reply.body === 'string' ? reply.body : Buffer.from(reply.body).toString('utf8')));
    expect(body.signals).toEqual([expect.objectContaining({ signal: 'location', status: 'available', dataAge: expect.objectContaining({ vehicles: 1 }) })]);
    const error = await x.h.client.request(RPCS.telemetry.freshness, { connectionId: '00000000-0000-4000-8000-000000000000' }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).code).toBe('not_found');
  });
});
