/**
 * The stored telemetry reads of telemetry-ingest on real PostgreSQL and NATS, through the RPCs the
 * gateway calls (RPCS.telemetry) and the repository's SQL:
 * - latest: every metric's status (available, stale past the catalog's freshnessSeconds, missing
 *   with reading null — never a zero), units only when the provider unit differed, optional metrics
 *   present exactly when opt-in, selected signals and provider capability cover them;
 * - visibility: the directory's hidden set (highest sequence wins) and the include/exclude lists
 *   make a vehicle not_found and absent from locations;
 * - history: time order, unique sequences, and a walk that keeps to its first page's snapshot while
 *   rows are committed meanwhile (no repeats, no shifts), then continues with a fresh one.
 * - faultsObservedAt: fault-feed's observation events projected, the newest time kept.
 * Mutations tried: dropping the `pg_visible_in_snapshot` condition of historyPage fails "keeps a
 * walk inside its snapshot"; dropping the `sequence <` guard of applyVisibility fails "keeps the
 * newest hidden set"; dropping the `observed_at <` guard of recordFaultObservations fails
 * "keeping the newest".
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { vehicleId } from '@switchyard/domain';
import {
  EVENTS,
  RPCS,
  RpcError,
  subjectFor,
  type FleetLocationV1,
  type HistoryPointV1,
  type HistoryReplyV1,
  type HistoryRequestV1,
  type ListLocationsReplyV1,
  type ListLocationsRequestV1,
  type ObservationV1,
  type TelemetryBatchV1,
  type TelemetryV1,
  type VehicleVisibilityChangedV1,
} from '@switchyard/messaging';
import { arrangeVisibilityCase, openFramed, pollUntil, receiptsFor, startIngestHarness, telemetryBatchOf, VISIBILITY_CASES, type IngestHarness } from '@switchyard/testing';
import { TelemetryReadRepository } from '../src/db/repositories/telemetry-read.repository.js';
import { startTelemetryIngest, telemetryIngestService } from '../src/index.js';

const now = Date.now();
const ago = (ms: number) => new Date(now - ms).toISOString();
const FETCHED = ago(1_000);

function obs(vehicle: string, o: Partial<ObservationV1> & Pick<ObservationV1, 'metric' | 'value'>): ObservationV1 {
  return { provider: 'samsara', vehicleSourceId: vehicle, source: `samsara:${o.metric}`, observedAt: ago(60_000), fetchedAt: FETCHED, ...o } as ObservationV1;
}

const batch = (connectionId: string, records: ObservationV1[]): TelemetryBatchV1 => telemetryBatchOf(connectionId, records, FETCHED);

describe('telemetry reads', () => {
  let x: IngestHarness;
  beforeAll(async () => {
    x = await startIngestHarness(telemetryIngestService, startTelemetryIngest);
  });
  afterAll(() => x?.close());

  const ingest = async (connectionId: string, records: ObservationV1[]) => {
    const b = batch(connectionId, records);
    await x.h.client.publish(EVENTS.telemetryBatch, subjectFor(EVENTS.telemetryBatch.subject, connectionId), b, { msgId: b.batchId });
    await receiptsFor(x, b.batchId);
  };
  // The framed reply's body (the Telemetry as JSON text), opened as `{ telemetry }` for the assertions.
  const latest = async (connectionId: string, vehicle: string) => {
    const { body } = await x.h.client.request(RPCS.telemetry.latest, { connectionId, vehicleId: vehicle }, { timeoutMs: 10_000 });
    return { telemetry: JSON.parse(typeof body === 'string' ? body : Buffer.from(body).toString('utf8')) as TelemetryV1 };
  };
  const notFound = async (p: Promise<unknown>) => {
    const error = await p.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).code).toBe('not_found');
  };
  const vcl = (connectionId: string, sourceId: string) => vehicleId({ connectionId, provider: 'samsara', sourceId });
  const hide = async (set: VehicleVisibilityChangedV1) => {
    await x.h.client.publish(EVENTS.vehicleVisibility, subjectFor(EVENTS.vehicleVisibility.subject, set.connectionId), set, { msgId: `visibility:${set.connectionId}:${set.sequence}` });
  };
  const visibilitySequence = (connectionId: string) => x.sql<{ sequence: string }>(`select sequence::text as sequence from ${x.t('vehicle_visibility')} where connection_id = ?`, [connectionId]);

  it('answers each metric available, stale or missing with units only when converted, and optional metrics only when covered', async () => {
    const { connectionId } = await x.connect({ selectedSignals: ['odometer', 'location', 'engineHours'], optIns: { groupInventory: false, vehicleMetadata: false, extendedTelemetry: true } });
    await ingest(connectionId, [
      obs('v1', { metric: 'odometer', value: { meters: 16_093.44 }, units: { source: 'miles', normalized: 'meters', factor: 1609.344 }, source: 'samsara:obdOdometerMeters' }),
      obs('v1', { metric: 'engineHours', value: { seconds: 7_200 }, units: { source: 'hours', normalized: 'seconds', factor: 3600 }, observedAt: ago(2 * 86_400_000) }),
      obs('v1', { metric: 'totalIdleTime', value: { seconds: 12.5 }, units: { source: 'milliseconds', normalized: 'seconds', factor: 0.001 } }),
      obs('v1', { metric: 'speed', value: { value: 4 }, units: undefined }),
    ]);
    const { telemetry } = await latest(connectionId, vcl(connectionId, 'v1'));
    expect(telemetry.vehicleId).toBe(vcl(connectionId, 'v1'));
    expect(telemetry.odometer).toEqual({
      status: 'available',
      reading: { value: { meters: 16_093.44 }, source: 'samsara:obdOdometerMeters', observedAt: ago(60_000), fetchedAt: FETCHED, units: { source: 'miles', normalized: 'meters', factor: 1609.344 } },
    });
    // Nothing stored: missing with reading null, never a zero.
    expect(telemetry.location).toEqual({ status: 'missing', reading: null });
    // Two days old, freshness one day: stale, with its reading.
    expect(telemetry.engineHours).toMatchObject({ status: 'stale', reading: { value: { seconds: 7_200 }, units: { source: 'hours', factor: 3600 } } });
    expect(telemetry.totalIdleTime).toMatchObject({ status: 'available', reading: { value: { seconds: 12.5 }, units: { source: 'milliseconds' } } });
    expect(telemetry.speed?.reading).not.toHaveProperty('units');
    // Covered but nothing stored.
    expect(telemetry.heading).toEqual({ status: 'missing', reading: null });
    expect(telemetry.faultsObservedAt).toBeNull();
  });

  it('projects fault-feed observation times into faultsObservedAt, keeping the newest', async () => {
    const { connectionId } = await x.connect();
    await ingest(connectionId, [obs('v1', { metric: 'odometer', value: { meters: 1 } })]);
    const v = vcl(connectionId, 'v1');
    const other = vcl(connectionId, 'v2');
    const observed = (batchId: string, vehicles: { vehicleId: string; observedAt: string }[]) =>
      x.h.client.publish(EVENTS.faultsObserved, subjectFor(EVENTS.faultsObserved.subject, connectionId), { connectionId, batchId, vehicles }, { msgId: `faults-observed:${batchId}` });
    const rows = () => x.sql<{ vehicle_id: string }>(`select vehicle_id from ${x.t('vehicle_fault_observation')} where connection_id = ?`, [connectionId]);
    await observed('b2', [{ vehicleId: v, observedAt: '2026-11-02T00:00:00Z' }]);
    await pollUntil(async () => (await latest(connectionId, v)).telemetry.faultsObservedAt === '2026-11-02T00:00:00.000Z', { timeoutMs: 10_000 });
    // An older event arriving later (with a marker vehicle, projected by the same statement) moves nothing back.
    await observed('b1', [
      { vehicleId: v, observedAt: '2026-11-01T00:00:00.000Z' },
      { vehicleId: other, observedAt: '2026-11-01T00:00:00.000Z' },
    ]);
    await pollUntil(async () => (await rows()).length === 2, { timeoutMs: 10_000 });
    expect((await latest(connectionId, v)).telemetry.faultsObservedAt).toBe('2026-11-02T00:00:00.000Z');
  });

  it('leaves out optional metrics without the opt-in, an unselected engineHours, and keeps the core ones', async () => {
    const off = await x.connect({ selectedSignals: ['odometer', 'engineHours'], optIns: { groupInventory: false, vehicleMetadata: false, extendedTelemetry: false } });
    const unselected = await x.connect({ selectedSignals: ['odometer'], optIns: { groupInventory: false, vehicleMetadata: false, extendedTelemetry: true } });
    for (const c of [off, unselected]) await ingest(c.connectionId, [obs('v1', { metric: 'engineHours', value: { seconds: 10 } }), obs('v1', { metric: 'speed', value: { value: 1 } })]);
    const a = (await latest(off.connectionId, vcl(off.connectionId, 'v1'))).telemetry;
    expect(Object.keys(a).sort()).toEqual(['faultsObservedAt', 'location', 'odometer', 'vehicleId']);
    expect(a.odometer).toEqual({ status: 'missing', reading: null });
    const b = (await latest(unselected.connectionId, vcl(unselected.connectionId, 'v1'))).telemetry;
    expect(b).not.toHaveProperty('engineHours');
    expect(b.speed).toMatchObject({ status: 'available' });
  });

  it('is not_found for an unknown vehicle and for a vehicle of another connection; an approved vehicle without readings is all missing', async () => {
    const { connectionId } = await x.connect({ approvedVehicleIds: ['fresh'] });
    const other = await x.connect();
    const fresh = await latest(connectionId, vcl(connectionId, 'fresh'));
    expect(fresh.telemetry).toMatchObject({ location: { status: 'missing', reading: null }, odometer: { status: 'missing', reading: null }, faultsObservedAt: null });
    await ingest(connectionId, [obs('v1', { metric: 'odometer', value: { meters: 1 } })]);
    await notFound(latest(connectionId, vcl(connectionId, 'nope')));
    await notFound(latest(other.connectionId, vcl(connectionId, 'v1')));
    await notFound(latest(other.connectionId, vcl(other.connectionId, 'v1')));
  });

  it('hides vehicles by the include/exclude lists and by the directory hidden set, keeps the newest hidden set, and skips hidden ones in locations', async () => {
    const { connectionId } = await x.connect({ excludeVehicleIds: ['v3'], includeStatuses: ['active'] });
    await ingest(connectionId, ['v1', 'v2', 'v3', 'v4'].map((v, i) => obs(v, { metric: 'location', value: { latitude: 50 + i, longitude: 4 } })));
    // Status filter and no hidden set yet: fail closed.
    await notFound(latest(connectionId, vcl(connectionId, 'v1')));
    const set = (sequence: string, hidden: string[]): VehicleVisibilityChangedV1 => ({
      connectionId,
      sequence,
      configRevision: 1,
      computedAt: new Date().toISOString(),
      hidden: hidden.map((v) => ({ vehicleId: vcl(connectionId, v), sourceId: v, visibility: 'hidden_by_status' as const })),
      shown: ['v1', 'v2', 'v3', 'v4'].filter((v) => !hidden.includes(v)).map((v) => vcl(connectionId, v)),
    });
    await hide(set('2', ['v2']));
    await pollUntil(async () => (await visibilitySequence(connectionId))[0]?.sequence === '2', { timeoutMs: 10_000 });
    await hide(set('1', []));
    await hide(set('3', ['v2']));
    await pollUntil(async () => (await visibilitySequence(connectionId))[0]?.sequence === '3', { timeoutMs: 10_000 });
    expect((await latest(connectionId, vcl(connectionId, 'v1'))).telemetry.location).toMatchObject({ status: 'available', reading: { value: { latitude: 50, longitude: 4 } } });
    await notFound(latest(connectionId, vcl(connectionId, 'v2')));
    await notFound(latest(connectionId, vcl(connectionId, 'v3')));

    const visible = [vcl(connectionId, 'v1'), vcl(connectionId, 'v4')].sort();
    const locations = async (request: ListLocationsRequestV1) => openFramed<FleetLocationV1, 'locations', ListLocationsReplyV1['meta']>(await x.h.client.request(RPCS.telemetry.locations, request, { timeoutMs: 10_000 }), 'locations');
    const first = await locations({ connectionId, limit: 1, maxBytes: 100_000 });
    expect(first.locations.map((l) => l.vehicleId)).toEqual([visible[0]]);
    expect(first.hasMore).toBe(true);
    const second = await locations({ connectionId, limit: 1, maxBytes: 100_000, horizon: first.horizon, after: first.next });
    expect(second.locations.map((l) => l.vehicleId)).toEqual([visible[1]]);
    expect(second.hasMore).toBe(false);
  });

  // The one visibility rule's cases, the same table fault-reads.int-spec.ts answers (libs/testing visibility-cases.ts).
  // Mutations: visibleVehicleSql without `r.arrived` (show until the set arrives, fault-feed's old rule) → the two "not arrived" cases fail here and there;
  // without the `shown_vehicle` condition → "never stored by the directory" and "a set without shown" fail.
  it.each(VISIBILITY_CASES)('visibility: $name', async (c) => {
    const connectionId = await arrangeVisibilityCase(x, c);
    await ingest(connectionId, Object.keys(c.expect).map((v) => obs(v, { metric: 'location', value: { latitude: 50, longitude: 4 } })));
    const page = openFramed<FleetLocationV1, 'locations', ListLocationsReplyV1['meta']>(await x.h.client.request(RPCS.telemetry.locations, { connectionId, limit: 100, maxBytes: 100_000 }, { timeoutMs: 10_000 }), 'locations');
    for (const [sourceId, shown] of Object.entries(c.expect)) {
      const read = await latest(connectionId, vcl(connectionId, sourceId)).then(() => 'shown', (e: unknown) => (e instanceof RpcError ? e.code : e));
      expect({ sourceId, read, listed: page.locations.some((l) => l.vehicleId === vcl(connectionId, sourceId)) }).toEqual({ sourceId, read: shown ? 'shown' : 'not_found', listed: shown });
    }
  });

  it('pages history in time order with unique sequences and keeps a walk inside its snapshot while rows are committed', async () => {
    const { connectionId } = await x.connect();
    const v = vcl(connectionId, 'v1');
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 0, minute)).toISOString();
    await ingest(connectionId, [0, 1, 2, 3, 4].map((m) => obs('v1', { metric: 'odometer', value: { meters: 1000 + m }, observedAt: at(m * 10) })));
    const window = { startTime: at(0), endTime: at(60) };
    const history = async (request: HistoryRequestV1) => openFramed<HistoryPointV1, 'readings', HistoryReplyV1['meta']>(await x.h.client.request(RPCS.telemetry.history, request, { timeoutMs: 10_000 }), 'readings');
    const page = (extra: Partial<HistoryRequestV1>) => history({ connectionId, vehicleId: v, metric: 'odometer', ...window, limit: 2, maxBytes: 100_000, ...extra });
    const p1 = await page({});
    expect(p1.readings.map((r) => r.observed_at)).toEqual([at(0), at(10)]);
    // Committed after the first page: one before and one after the walk's position.
    await ingest(connectionId, [obs('v1', { metric: 'odometer', value: { meters: 1 }, observedAt: at(5) }), obs('v1', { metric: 'odometer', value: { meters: 2 }, observedAt: at(35) })]);
    const seen = [...p1.readings];
    let last = p1;
    while (last.hasMore) {
      last = await page({ horizon: last.horizon, after: last.last });
      seen.push(...last.readings);
    }
    expect(seen.map((r) => r.observed_at)).toEqual([0, 10, 20, 30, 40].map(at));
    expect(new Set(seen.map((r) => r.sequence)).size).toBe(5);
    // A fresh snapshot after the last position: only what was committed since with a later time (none here).
    const more = await page({ after: last.last });
    expect(more.readings).toEqual([]);
    // A new walk sees everything once.
    const all = await history({ connectionId, vehicleId: v, metric: 'odometer', ...window, limit: 100, maxBytes: 100_000 });
    expect(all.readings.map((r) => r.observed_at)).toEqual([0, 5, 10, 20, 30, 35, 40].map(at));
    expect(all.readings[0]).toMatchObject({ metric: 'odometer', source: 'samsara:odometer', value: { meters: 1000 }, units: null, fetched_at: FETCHED });
  });

  it('keeps to the rows visible in the horizon in the repository SQL', async () => {
    const { connectionId } = await x.connect();
    const repo = new TelemetryReadRepository();
    const em = x.h.service.runtime.orm.em.fork();
    const horizon = await repo.horizon(em);
    await ingest(connectionId, [obs('v1', { metric: 'odometer', value: { meters: 5 }, observedAt: '2026-11-02T00:00:00.000Z' })]);
    const q = { connectionId, vehicleId: vcl(connectionId, 'v1'), metric: 'odometer', start: '2026-11-01T00:00:00.000Z', end: '2026-11-03T00:00:00.000Z' } as const;
    const frame = { limit: 10, maxBytes: 100_000 };
    expect(await repo.historyPage(em, { ...q, horizon }, frame)).toMatchObject({ items: '[]', count: 0, hasMore: false });
    const page = await repo.historyPage(em, { ...q, horizon: await repo.horizon(em) }, frame);
    const rows = JSON.parse(page.items) as HistoryPointV1[];
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ observed_at: '2026-11-02T00:00:00.000Z', sequence: expect.stringMatching(/^[1-9]\d*$/) });
    expect(page.last).toEqual({ observedAt: '2026-11-02T00:00:00.000000Z', source: 'samsara:odometer' });
  });
});
