/**
 * Retention of observation history (issue 14, item 4; decision 0025; observation-retention.ts) on
 * telemetry-ingest's real schema:
 * - a pass drops the monthly partitions before the boundary (the start of the month holding
 *   now − 401 days) and the usage rollups before it, keeps every later month, and a second pass
 *   drops nothing; a usage report over the dropped time answers `missing` with a null value;
 *   Mutations tried: the boundary without the retention (the start of the current month) — the
 *   399-day-old reading's month goes and "keeps the rest" fails; the rollups not pruned
 *   (pruneBefore skipped) — the old slot and excluded interval stay and the rollup counts fail.
 * - a late batch after the drop: its readings older than the horizon (400 days) move the latest
 *   reading only, recreate no partition and are reported; even a month this process still believes
 *   exists (dropped by "another process", its cache not told) is never written to.
 *   Mutation tried: no horizon filter (prepare and write take every reading) — the dropped month's
 *   partition is recreated and the old reading stored ("no partition recreated" fails), and the
 *   write into the month the cache still lists fails with "no partition of relation … found for row".
 *   Past the one-day margin (clock skew) such a write fails once and the cache forgets the month
 *   (mutation tried: no forgetting in `write` — the partition is not recreated, "toContain" fails).
 * - a usage report whose window starts before the horizon names `window_beyond_retention` in its
 *   `limitations` (the dropped time is unobserved; the reason tells it from never collected).
 * - the DLQ stream (dead letters of every context) is provisioned with its 90-day max age.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { vehicleId } from '@switchyard/domain';
import { ingestBatchId, Namespace, STREAMS, type ObservationV1, type TelemetryBatchV1 } from '@switchyard/messaging';
import { inTransaction } from '@switchyard/persistence';
import { startIngestHarness, type IngestHarness } from '@switchyard/testing';
import { ObservationRepository, type ObservationRow } from '../src/db/repositories/observation.repository.js';
import { startTelemetryIngest, telemetryIngestService } from '../src/index.js';
import { OBSERVATION_RETENTION_DAYS, pruneObservations, retentionBoundary } from '../src/services/observation-retention.js';
import { TelemetryIngestService } from '../src/services/telemetry-ingest.service.js';
import { UsageReportService } from '../src/services/usage-report.service.js';

const DAY = 86_400_000;
const NOW = Date.now();
/** The documented boundary, computed here on its own: the start of the month holding now − 401 days. */
const EDGE = new Date(NOW - 401 * DAY);
const BOUNDARY = Date.UTC(EDGE.getUTCFullYear(), EDGE.getUTCMonth(), 1);
const ago = (ms: number) => new Date(NOW - ms).toISOString();
const FETCHED = new Date(NOW).toISOString();
let counter = 0;

function odometer(vehicle: string, observedAt: string, meters: number): ObservationV1 {
  return { provider: 'samsara', vehicleSourceId: vehicle, metric: 'odometer', value: { meters }, source: 'samsara:obdOdometerMeters', observedAt, fetchedAt: FETCHED };
}

function batch(connectionId: string, records: ObservationV1[]): TelemetryBatchV1 {
  const unitId = String(++counter);
  return {
    batchId: ingestBatchId({ connectionId, kind: 'observations', unitId, fencingToken: '1', pageKey: `r${counter}`, part: 0 }),
    connectionId,
    provider: 'samsara',
    syncId: null,
    unitId: null,
    fencingToken: null,
    kind: 'observations',
    records,
    fetchedAt: FETCHED,
    providerCursor: null,
    final: false,
  };
}

let x: IngestHarness;

beforeAll(async () => {
  x = await startIngestHarness(telemetryIngestService, startTelemetryIngest);
});

afterAll(async () => {
  await x?.close();
});

const month = (iso: string) => iso.slice(0, 7);
const partitions = async () =>
  (await x.sql<{ name: string }>(`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = to_regclass(?) order by 1`, [x.t('observations')])).map((r) =>
    r.name.replace(/^observations_y(\d{4})m(\d{2})$/, '$1-$2'),
  );
const history = async (connectionId: string) =>
  (await x.sql<{ at: string }>(`select to_char(observed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at from ${x.t('observations')} where connection_id = ? order by observed_at`, [connectionId])).map((r) => r.at);

/** Ingests `b` through the consumer's own steps (partitions, then the batch's transaction). */
async function ingest(service: TelemetryIngestService, b: TelemetryBatchV1): Promise<void> {
  const orm = x.h.service.runtime.orm;
  await service.prepare(orm, b);
  await inTransaction(orm, (em) => service.apply(em, b));
}

describe('observation retention', () => {
  it('drops the partitions and rollups before the boundary, keeps the rest; reports over dropped time are missing, not zero', async () => {
    const { connectionId } = await x.connect({ approvedVehicleIds: ['v1'] });
    // Written 90 days ago (the clock of the service), when all of it was within retention.
    const past = new TelemetryIngestService({ now: () => new Date(NOW - 90 * DAY) });
    const dropped = [ago(470 * DAY), ago(470 * DAY - 600_000), new Date(BOUNDARY - 3_600_000).toISOString()];
    const kept = [new Date(BOUNDARY + 3_600_000).toISOString(), ago(399 * DAY), ago(399 * DAY - 600_000), ago(DAY)];
    // Two backwards steps 10 minutes apart: an excluded interval before the boundary, one after it.
    await ingest(past, batch(connectionId, [odometer('v1', dropped[0]!, 9_000), odometer('v1', dropped[1]!, 8_000), odometer('v1', dropped[2]!, 10_000)]));
    await ingest(past, batch(connectionId, [odometer('v1', kept[0]!, 20_000), odometer('v1', kept[1]!, 30_000), odometer('v1', kept[2]!, 29_000), odometer('v1', kept[3]!, 40_000)]));
    const before = await partitions();
    const rollups = async () => {
      const [row] = await x.sql<{ slots: number; old_slots: number; excluded: number; old_excluded: number }>(
        `select (select count(*)::int from ${x.t('usage_slot')} where connection_id = ?) as slots,
                (select count(*)::int from ${x.t('usage_slot')} where connection_id = ? and slot_start < ?::timestamptz) as old_slots,
                (select count(*)::int from ${x.t('usage_excluded_interval')} where connection_id = ?) as excluded,
                (select count(*)::int from ${x.t('usage_excluded_interval')} where connection_id = ? and end_at <= ?::timestamptz) as old_excluded`,
        [connectionId, connectionId, new Date(BOUNDARY).toISOString(), connectionId, connectionId, new Date(BOUNDARY).toISOString()],
      );
      return row!;
    };
    const rollupsBefore = await rollups();
    expect(rollupsBefore.old_slots).toBeGreaterThan(0);
    expect(rollupsBefore.old_excluded).toBe(1);

    const pass = await pruneObservations(x.h.service.runtime.orm, new Date(NOW));
    const after = await partitions();
    const rollupsAfter = await rollups();
    console.log(
      `[retention] observations (${OBSERVATION_RETENTION_DAYS} days, boundary ${new Date(BOUNDARY).toISOString().slice(0, 10)}): dropped partitions ${pass.months.join(', ')}; kept ${after.join(', ')}; ` +
        `rollups deleted ${pass.slots} slot(s) and ${pass.excludedIntervals} excluded interval(s), kept ${rollupsAfter.slots} slot(s) and ${rollupsAfter.excluded} excluded interval(s)`,
    );
    // Keeps the rest: every reading after the boundary, in its partition.
    expect(await history(connectionId)).toEqual(kept);
    expect(pass.months).toEqual([...new Set(dropped.map(month))].sort());
    expect(after).toEqual(before.filter((m) => !pass.months.includes(m)));
    expect(retentionBoundary(new Date(NOW)).getTime()).toBe(BOUNDARY);
    expect(rollupsAfter).toMatchObject({ old_slots: 0, old_excluded: 0, excluded: 1 });
    expect(rollupsAfter.slots).toBe(rollupsBefore.slots - rollupsBefore.old_slots);
    expect(pass.slots).toBe(rollupsBefore.old_slots);
    expect(await pruneObservations(x.h.service.runtime.orm, new Date(NOW))).toEqual({ months: [], slots: 0, excludedIntervals: 0 });

    // The dropped day reads as unobserved: distance `missing`, value null (never 0).
    const reports = new UsageReportService(x.h.service.runtime.orm);
    const { report } = await reports.counter(x.h.service.runtime.orm.em.fork(), {
      connectionId,
      vehicleId: vehicleId({ connectionId, provider: 'samsara', sourceId: 'v1' }),
      report: 'distance',
      startTime: ago(471 * DAY),
      endTime: ago(469 * DAY),
    });
    expect(report.metric).toMatchObject({ status: 'missing', value: null });
    // …and says why (issue 25 item 2): the window reaches past the retention; a recent window does not.
    // mutation: withRetentionLimit left out of the counter and utilization reports → these fail.
    expect(report.limitations).toContain('window_beyond_retention');
    const vehicle = vehicleId({ connectionId, provider: 'samsara', sourceId: 'v1' });
    const old = await reports.utilization(x.h.service.runtime.orm.em.fork(), { connectionId, vehicleId: vehicle, startTime: ago(402 * DAY), endTime: ago(398 * DAY) });
    expect(old.utilization.limitations).toContain('window_beyond_retention');
    const recent = await reports.utilization(x.h.service.runtime.orm.em.fork(), { connectionId, vehicleId: vehicle, startTime: ago(399 * DAY), endTime: ago(397 * DAY) });
    expect(recent.utilization.limitations).not.toContain('window_beyond_retention');
  });

  it('a late batch after the drop: readings past the horizon move the latest reading only and recreate no partition', async () => {
    const { connectionId } = await x.connect();
    const refused: number[] = [];
    const late = new TelemetryIngestService({ onBeyondRetention: (_batchId, readings) => refused.push(readings) });
    const oldAt = ago(460 * DAY);
    // Another process's drop: this process created the month while it was within retention (its
    // cache lists it), then the month went by plain SQL, the cache not told.
    const stale = ago(500 * DAY);
    await ingest(new TelemetryIngestService({ now: () => new Date(NOW - 200 * DAY) }), batch(connectionId, [odometer('v9', stale, 1)]));
    await x.sql(`drop table ${x.t(`observations_y${stale.slice(0, 4)}m${stale.slice(5, 7)}`)}`);
    const kept = ago(3_600_000);
    await ingest(late, batch(connectionId, [odometer('v1', oldAt, 100), odometer('v1', kept, 200), odometer('v2', oldAt, 300), odometer('v9', ago(500 * DAY - 60_000), 2)]));
    const parts = await partitions();
    const latest = await x.sql<{ vehicle_source_id: string; value_num: number }>(`select vehicle_source_id, value_num from ${x.t('latest_readings')} where connection_id = ? order by 1`, [connectionId]);
    console.log(`[retention] late batch: ${refused.join('+')} reading(s) older than ${OBSERVATION_RETENTION_DAYS} days kept as latest readings only; history ${(await history(connectionId)).length} row(s); partitions ${parts.join(', ')}`);
    expect(parts).not.toContain(month(oldAt));
    expect(parts).not.toContain(month(stale));
    expect(await history(connectionId)).toEqual([kept]);
    expect(refused).toEqual([3]);
    // v1's newest is the kept reading; v2 has only the old one, kept as its latest (state, not history).
    expect(latest).toEqual([
      { vehicle_source_id: 'v1', value_num: 200 },
      { vehicle_source_id: 'v2', value_num: 300 },
      { vehicle_source_id: 'v9', value_num: 2 },
    ]);

    // Past the margin (a clock more than a day behind): a history write into the month the cache
    // still lists fails, and the cache forgets, so the retry's partition check sees the catalog.
    const orm = x.h.service.runtime.orm;
    const repository = new ObservationRepository();
    const row: ObservationRow = { connection_id: connectionId, vehicle_id: vehicleId({ connectionId, provider: 'samsara', sourceId: 'v9' }), metric: 'odometer', observed_at: stale, source: 's', provider: 'samsara', vehicle_source_id: 'v9', value: { meters: 3 }, value_num: 3, units: null, fetched_at: FETCHED, batch_id: 'b' };
    await expect(inTransaction(orm, (em) => repository.write(em, [row]))).rejects.toThrow(/no partition of relation/);
    await repository.ensurePartitions(orm, [month(stale)]);
    expect(await partitions()).toContain(month(stale));
    expect((await pruneObservations(orm, new Date(NOW))).months).toEqual([month(stale)]);
  });

  it('provisions the DLQ stream with its 90-day max age', async () => {
    const nc = await connect({ servers: x.h.natsUrl, name: 'test-retention' });
    try {
      const info = await (await jetstreamManager(nc)).streams.info(new Namespace(x.h.namespace).stream('DLQ'));
      const days = info.config.max_age / 1e9 / 86_400;
      console.log(`[retention] dead letters: stream ${info.config.name} max age ${days} days`);
      expect(days).toBe(90);
      expect(info.config.max_age).toBe((STREAMS.DLQ.maxAgeMs ?? 0) * 1e6);
    } finally {
      await nc.close();
    }
  });
});
