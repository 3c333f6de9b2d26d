/**
 * The telemetry ingest consumer on real PostgreSQL and NATS: observation batches land in monthly
 * partitions created on demand (across a month boundary), latest_readings moves only forward,
 * re-ingest is a no-op with the same receipt, and two processes share the durable without
 * committing a batch twice. Batches that wait while a group commits are committed together in one
 * transaction, and a poison batch among them is dead-lettered alone (decision 0038). The
 * repository's COPY paths (straight into the table, and through the stage when a reading is
 * stored already): text that needs COPY escaping round-trips exactly, a rolled-back write leaves
 * nothing behind for the next one on the same pool, and a write outside a transaction is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { vehicleId } from '@switchyard/domain';
import { type DeadLetterV1, deadLetterSubject, EVENTS, ingestBatchId, type ObservationV1, subjectFor, type TelemetryBatchV1 } from '@switchyard/messaging';
import { ledgerHas, pollUntil, receiptsFor, sleep, startIngestHarness, type IngestHarness } from '@switchyard/testing';
import { inTransaction, query } from '@switchyard/persistence';
import { ObservationRepository, type ObservationRow } from '../src/db/repositories/observation.repository.js';
import { startTelemetryIngest, telemetryIngestService } from '../src/index.js';

let counter = 0;
const FETCHED = '2026-02-01T00:10:00.000Z';

function odometer(vehicle: string, observedAt: string, meters: number): ObservationV1 {
  return { provider: 'samsara', vehicleSourceId: vehicle, metric: 'odometer', value: { meters }, source: 'samsara:obdOdometerMeters', observedAt, fetchedAt: FETCHED };
}

function batch(connectionId: string, records: ObservationV1[], extra: Partial<TelemetryBatchV1> = {}): TelemetryBatchV1 {
  const unitId = String(++counter);
  return {
    batchId: ingestBatchId({ connectionId, kind: 'observations', unitId, fencingToken: '3', pageKey: `p${counter}`, part: 0 }),
    connectionId,
    provider: 'samsara',
    syncId: 'sync_01JD0000000000000000000000',
    unitId,
    fencingToken: '3',
    kind: 'observations',
    records,
    fetchedAt: FETCHED,
    providerCursor: null,
    final: false,
    ...extra,
  };
}

describe('telemetry ingest', () => {
  let x: IngestHarness;
  beforeAll(async () => {
    x = await startIngestHarness(telemetryIngestService, startTelemetryIngest);
  });
  afterAll(() => x?.close());

  const publish = (b: TelemetryBatchV1, msgId = b.batchId) =>
    x.h.client.publish(EVENTS.telemetryBatch, subjectFor(EVENTS.telemetryBatch.subject, b.connectionId), b, { msgId });
  const partitions = () =>
    x.sql<{ name: string }>(
      `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
        join pg_namespace n on n.oid = p.relnamespace where n.nspname = ? and p.relname = 'observations' order by 1`,
      [x.h.schema],
    );

  it('creates monthly partitions across a month boundary, stores history and the latest reading, then receipts', async () => {
    const { connectionId } = await x.connect();
    const b = batch(connectionId, [
      odometer('v1', '2026-01-31T23:59:00.000Z', 1_000),
      odometer('v1', '2026-02-01T00:01:00.000Z', 1_100),
      { provider: 'samsara', vehicleSourceId: 'v1', metric: 'location', value: { latitude: 52.1, longitude: 4.3 }, source: 'samsara:gps', observedAt: '2026-02-01T00:01:00.000Z', fetchedAt: FETCHED },
    ]);
    await publish(b);
    const [receipt] = await receiptsFor(x, b.batchId);
    expect(receipt).toMatchObject({ context: 'telemetry-ingest', kind: 'observations', status: 'committed', records: 3, final: false, fencingToken: '3' });
    expect((await partitions()).map((p) => p.name)).toEqual(['observations_y2026m01', 'observations_y2026m02']);
    const history = await x.sql<{ part: string; metric: string; value_num: number | null }>(
      `select tableoid::regclass::text as part, metric, value_num from ${x.t('observations')} where connection_id = ? order by observed_at, metric`,
      [connectionId],
    );
    expect(history.map((h) => [h.part.replace(/^.*\./, '').replaceAll('"', ''), h.metric, h.value_num])).toEqual([
      ['observations_y2026m01', 'odometer', 1_000],
      ['observations_y2026m02', 'location', null],
      ['observations_y2026m02', 'odometer', 1_100],
    ]);
    const latest = await x.sql(`select vehicle_id, metric, value_num, observed_at from ${x.t('latest_readings')} where connection_id = ? order by metric`, [connectionId]);
    const vcl = vehicleId({ connectionId, provider: 'samsara', sourceId: 'v1' });
    expect(latest).toEqual([
      { vehicle_id: vcl, metric: 'location', value_num: null, observed_at: '2026-02-01 00:01:00+00' },
      { vehicle_id: vcl, metric: 'odometer', value_num: 1_100, observed_at: '2026-02-01 00:01:00+00' },
    ]);
  });

  it('latest_readings moves only forward: an older batch adds history but never replaces the latest', async () => {
    const { connectionId } = await x.connect();
    const newer = batch(connectionId, [odometer('v1', '2026-02-01T10:00:00.000Z', 5_000)]);
    const older = batch(connectionId, [odometer('v1', '2026-02-01T09:00:00.000Z', 4_000)]);
    await publish(newer);
    await receiptsFor(x, newer.batchId);
    await publish(older);
    await receiptsFor(x, older.batchId);
    expect(await x.sql(`select value_num, batch_id from ${x.t('latest_readings')} where connection_id = ?`, [connectionId])).toEqual([{ value_num: 5_000, batch_id: newer.batchId }]);
    const [count] = await x.sql<{ n: string }>(`select count(*) as n from ${x.t('observations')} where connection_id = ?`, [connectionId]);
    expect(count?.n).toBe('2');
    const later = batch(connectionId, [odometer('v1', '2026-02-01T11:00:00.000Z', 6_000)]);
    await publish(later);
    await receiptsFor(x, later.batchId);
    expect(await x.sql(`select value_num from ${x.t('latest_readings')} where connection_id = ?`, [connectionId])).toEqual([{ value_num: 6_000 }]);
  });

  // mutation: the COPY's conflict fallback removed (a unique violation rethrown) → `again` is never committed: this fails.
  it('re-ingest is a no-op: the same readings in another batch add nothing; the same batch re-sends its receipt', async () => {
    const { connectionId } = await x.connect();
    const records = [odometer('v2', '2026-02-02T10:00:00.000Z', 7_000), odometer('v2', '2026-02-02T10:05:00.000Z', 7_100)];
    const first = batch(connectionId, records);
    await publish(first);
    const [receipt] = await receiptsFor(x, first.batchId);
    await publish(first, `${first.batchId}:again`);
    const again = batch(connectionId, records);
    await publish(again);
    await receiptsFor(x, again.batchId);
    await sleep(1_000);
    const [count] = await x.sql<{ n: string }>(`select count(*) as n from ${x.t('observations')} where connection_id = ?`, [connectionId]);
    expect(count?.n).toBe('2');
    expect(x.receipts.filter((r) => r.batchId === first.batchId)).toEqual([receipt]);
    expect(await x.sql(`select receipt from ${x.t('ingest_batch')} where batch_id = ?`, [first.batchId])).toEqual([{ receipt }]);
    expect(await x.sql(`select publication from ${x.t('connection_publication')} where connection_id = ?`, [connectionId])).toEqual([{ publication: '2' }]);
  });

  // The rollup lock of one vehicle (usage-rollup.repository.ts ROLLUP_LOCK), held by a transaction of the test, stops the
  // first group inside its transaction while the next batches arrive and wait.
  async function holdingRollupLock(connectionId: string, sourceId: string, whileHeld: (blocked: () => Promise<unknown>) => Promise<void>): Promise<void> {
    const key = `${connectionId}:${vehicleId({ connectionId, provider: 'samsara', sourceId })}`;
    const blocked = () =>
      pollUntil(async () => (await x.sql(`select 1 from pg_locks where locktype = 'advisory' and not granted and objid = hashtext(?)::oid`, [key])).length === 1, {
        timeoutMs: 15_000,
        description: 'a group waiting on the rollup lock',
      });
    await inTransaction(x.h.service.runtime.orm, async (em) => {
      await query(em, 'select pg_advisory_xact_lock(?, hashtext(?))', [0x53575552, key]);
      await whileHeld(blocked);
    });
  }

  // Before the second process starts (next test): one consumer takes every delivery.
  // mutation: GroupLimits.maxBatches 1 → every batch its own transaction, 11 commit times: this fails.
  it('commits the batches that wait while a group commits in one transaction, and dead-letters a poison batch among them alone', async () => {
    const { connectionId } = await x.connect();
    const at = (minute: number) => `2026-02-03T10:${String(minute).padStart(2, '0')}:00.000Z`;
    const first = batch(connectionId, [odometer('vg', at(0), 1_000)]);
    const waiting = Array.from({ length: 10 }, (_, i) => batch(connectionId, [odometer('vg', at(i + 1), 1_000 + 100 * (i + 1))]));
    await holdingRollupLock(connectionId, 'vg', async (blocked) => {
      await publish(first);
      await blocked();
      for (const b of waiting) await publish(b);
      await sleep(1_000); // every one delivered and waiting behind the first group
    });
    const receipts = await Promise.all([first, ...waiting].map(async (b) => (await receiptsFor(x, b.batchId))[0]));
    expect(receipts.every((r) => r?.status === 'committed')).toBe(true);
    const commitTimes = new Set(receipts.slice(1).map((r) => r?.committedAt));
    expect({ first: receipts[0]?.committedAt === receipts[1]?.committedAt, groups: commitTimes.size }).toEqual({ first: false, groups: 1 });
    const [count] = await x.sql<{ n: string }>(`select count(*) as n from ${x.t('observations')} where connection_id = ?`, [connectionId]);
    expect(count?.n).toBe('11');

    // A record of another provider in a samsara batch is poison (record_provider_mismatch) — inside a group's transaction.
    const dead: DeadLetterV1[] = [];
    const dlq = await x.h.client.consume(
      { durable: `test-dlq-${connectionId.slice(0, 8)}`, event: EVENTS.deadLetter, filterSubject: deadLetterSubject('INGEST', 'telemetry-ingest-ingest'), ackWaitMs: 30_000, maxDeliver: 3, maxAckPending: 16 },
      async ({ payload }) => void dead.push(payload),
    );
    try {
      const second = batch(connectionId, [odometer('vg', at(20), 3_000)]);
      const good = Array.from({ length: 4 }, (_, i) => batch(connectionId, [odometer('vg', at(21 + i), 3_100 + 100 * i)]));
      const poison = batch(connectionId, [{ ...odometer('vg', at(30), 4_000), provider: 'motive' }]);
      await holdingRollupLock(connectionId, 'vg', async (blocked) => {
        await publish(second);
        await blocked();
        for (const b of [good[0], good[1], poison, good[2], good[3]] as TelemetryBatchV1[]) await publish(b);
        await sleep(1_000);
      });
      for (const b of [second, ...good]) expect((await receiptsFor(x, b.batchId))[0]?.status).toBe('committed');
      const [letter] = await pollUntil(() => (dead.some((d) => d.msgId === poison.batchId) ? dead.filter((d) => d.msgId === poison.batchId) : undefined), { timeoutMs: 15_000, description: 'the poison batch dead-lettered' });
      expect(letter).toMatchObject({ reason: 'record_provider_mismatch', deliveryCount: 1 });
      expect(x.receipts.filter((r) => r.batchId === poison.batchId)).toEqual([]);
    } finally {
      await dlq.drain().catch(() => undefined);
    }
  }, 60_000);

  it('two processes on one schema share the durable, create partitions safely and commit each batch once', async () => {
    await x.startSecond();
    const { connectionId } = await x.connect();
    // 12 batches, each touching a different month of 2027 (partitions created under the race) and sent twice.
    const batches = Array.from({ length: 12 }, (_, i) => batch(connectionId, [odometer('v3', `2027-${String(i + 1).padStart(2, '0')}-15T12:00:00.000Z`, 100 * (i + 1))]));
    await Promise.all(batches.flatMap((b) => [publish(b), publish(b, `${b.batchId}:dup`)]));
    for (const b of batches) await ledgerHas(x, b.batchId);
    await sleep(1_000);
    const [count] = await x.sql<{ n: string }>(`select count(*) as n from ${x.t('observations')} where connection_id = ?`, [connectionId]);
    expect(count?.n).toBe('12');
    expect((await partitions()).filter((p) => p.name.startsWith('observations_y2027'))).toHaveLength(12);
    expect(await x.sql(`select value_num from ${x.t('latest_readings')} where connection_id = ?`, [connectionId])).toEqual([{ value_num: 1_200 }]);
    const [pub] = await x.sql<{ publication: string }>(`select publication from ${x.t('connection_publication')} where connection_id = ?`, [connectionId]);
    expect(pub?.publication).toBe('12');
    for (const b of batches) expect(x.receipts.filter((r) => r.batchId === b.batchId)).toHaveLength(1);
  }, 60_000);

  it('COPY paths: escaped text round-trips, a rolled-back write leaves nothing, a stored reading goes through the stage, no write outside a transaction', async () => {
    const { connectionId } = await x.connect();
    await x.h.service.runtime.orm.em.fork().execute(
      `create table if not exists ${x.t('observations_y2028m03')} partition of ${x.t('observations')} for values from ('2028-03-01T00:00:00Z') to ('2028-04-01T00:00:00Z')`,
    );
    const repository = new ObservationRepository();
    const row = (source: string, minute: number): ObservationRow => ({
      connection_id: connectionId,
      vehicle_id: vehicleId({ connectionId, provider: 'samsara', sourceId: 'v\\9' }),
      metric: 'odometer',
      observed_at: `2028-03-01T00:${String(minute).padStart(2, '0')}:00.000Z`,
      source,
      provider: 'samsara',
      vehicle_source_id: 'v\\9',
      value: { meters: minute, note: 'tab\there\nline \\ back' },
      value_num: minute,
      units: null,
      fetched_at: FETCHED,
      batch_id: 'b_copy',
    });
    const orm = x.h.service.runtime.orm;
    // Straight into the table.
    expect(await inTransaction(orm, (em) => repository.write(em, [row('s\tone', 1)]))).toBe(1);
    // A stored reading (minute 1) sends the write through the stage; rolled back, it leaves nothing there.
    await expect(
      inTransaction(orm, async (em) => {
        await repository.write(em, [row('s\tone', 1), row('s\tone', 2)]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    // Every pooled connection sees an empty stage: the rolled-back minute 2 never reaches history.
    const written = await Promise.all([0, 1, 2].map((i) => inTransaction(orm, (em) => repository.write(em, [row('s\tone', 1), row('s\tone', 10 + i)]))));
    expect(written).toEqual([1, 1, 1]);
    // Two staged writes in one transaction: the second starts on an empty stage.
    expect(await inTransaction(orm, async (em) => [await repository.write(em, [row('s\tone', 10), row('s\tone', 13)]), await repository.write(em, [row('s\tone', 1), row('s\tone', 14)])])).toEqual([1, 1]);
    const stored = await x.sql<{ source: string; vehicle_source_id: string; value: unknown; value_num: number }>(
      `select source, vehicle_source_id, value, value_num from ${x.t('observations')} where connection_id = ? order by observed_at`,
      [connectionId],
    );
    expect(stored.map((r) => r.value_num)).toEqual([1, 10, 11, 12, 13, 14]);
    expect(stored[1]).toEqual({ source: 's\tone', vehicle_source_id: 'v\\9', value: { meters: 10, note: 'tab\there\nline \\ back' }, value_num: 10 });
    await expect(repository.write(orm.em.fork(), [row('s', 30)])).rejects.toThrow(/inside the batch transaction/);
  });
});
