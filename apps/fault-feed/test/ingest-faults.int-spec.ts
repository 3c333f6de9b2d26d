/**
 * The fault ingest consumer on real PostgreSQL and NATS: snapshots open, clear and reopen
 * occurrences with transitions numbered per connection, the first snapshot's opens are bootstrap,
 * the same snapshot twice (redelivery or a republished copy) adds nothing, explicit records open
 * and clear by dismissal and by the inactivity timeout, every transition is published on
 * `fleet.faults.<connectionId>.<kind>` after the commit and before the receipt, and two processes
 * share the work without duplicating transitions.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { newSyncId, vehicleId } from '@switchyard/domain';
import { EVENTS, type FaultBatchV1, type FaultRecordV1, type FaultSnapshotV1, type FaultTransitionV1, ingestBatchId, subjectFor, type Subscription } from '@switchyard/messaging';
import { pollUntil, receiptsFor, sleep, startIngestHarness, type IngestHarness } from '@switchyard/testing';
import { faultFeedService, startFaultFeed } from '../src/index.js';

let counter = 0;
const code = (key: string) => ({ faultKey: key, code: key.toUpperCase(), description: `fault ${key}` });

function snapshot(vehicle: string, observedAt: string, keys: string[]): FaultSnapshotV1 {
  return { model: 'complete_snapshot', provider: 'samsara', vehicleSourceId: vehicle, observedAt, active: keys.map(code), fetchedAt: observedAt };
}

function batch(connectionId: string, kind: FaultBatchV1['kind'], records: FaultBatchV1['records'], extra: Partial<FaultBatchV1> = {}): FaultBatchV1 {
  const unitId = String(++counter);
  return {
    batchId: ingestBatchId({ connectionId, kind, unitId, fencingToken: '1', pageKey: `p${counter}`, part: 0 }),
    connectionId,
    provider: 'samsara',
    syncId: newSyncId(), // each batch its own pass: explicit records bootstrap every batch of the first sync
    unitId,
    fencingToken: '1',
    kind,
    records,
    fetchedAt: '2026-03-01T00:00:00.000Z',
    providerCursor: null,
    final: true,
    ...extra,
  } as FaultBatchV1;
}

describe('fault ingest', () => {
  let x: IngestHarness;
  let sub: Subscription;
  const published: { subject: string; payload: FaultTransitionV1; at: number }[] = [];
  beforeAll(async () => {
    x = await startIngestHarness(faultFeedService, startFaultFeed);
    sub = await x.h.client.consume(
      { durable: 'test-fault-transitions', event: EVENTS.faultTransition, ackWaitMs: 30_000, maxDeliver: 3, maxAckPending: 256 },
      async ({ payload, subject }) => {
        published.push({ subject, payload, at: Date.now() });
      },
    );
  });
  afterAll(async () => {
    await sub?.drain();
    await x?.close();
  });

  const publish = (b: FaultBatchV1, msgId = b.batchId) => x.h.client.publish(EVENTS.faultBatch, subjectFor(EVENTS.faultBatch.subject, b.connectionId), b, { msgId });
  const transitions = (connectionId: string) =>
    x.sql<{ sequence: string; kind: string; fault_key: string; bootstrap: boolean; observed_at: string; published: boolean }>(
      `select t.sequence, t.kind, o.fault_key, t.bootstrap, to_char(t.observed_at at time zone 'UTC', 'HH24:MI') as observed_at, t.published_at is not null as published
         from ${x.t('fault_transition')} t join ${x.t('fault_occurrence')} o on o.id = t.occurrence_id where t.connection_id = ? order by t.sequence`,
      [connectionId],
    );
  const publishedFor = (connectionId: string, count: number) =>
    pollUntil(() => {
      const found = published.filter((p) => p.payload.connectionId === connectionId);
      return found.length >= count ? found : undefined;
    }, { timeoutMs: 10_000 });

  it('snapshots open (bootstrap first), clear and reopen, numbered per connection, published before the receipt', async () => {
    const { connectionId } = await x.connect();
    const first = batch(connectionId, 'fault_snapshots', [snapshot('v1', '2026-03-01T10:00:00.000Z', ['a', 'b'])]);
    await publish(first);
    const [r1] = await receiptsFor(x, first.batchId);
    expect(r1).toMatchObject({ context: 'fault-feed', kind: 'fault_snapshots', status: 'committed', records: 1 });
    // The relay ran before the receipt was sent: both opens are already marked published.
    expect(await transitions(connectionId)).toEqual([
      { sequence: '1', kind: 'opened', fault_key: 'a', bootstrap: true, observed_at: '10:00', published: true },
      { sequence: '2', kind: 'opened', fault_key: 'b', bootstrap: true, observed_at: '10:00', published: true },
    ]);
    // a clears, c opens (not bootstrap); then a reopens as a new occurrence.
    const second = batch(connectionId, 'fault_snapshots', [snapshot('v1', '2026-03-01T11:00:00.000Z', ['b', 'c']), snapshot('v1', '2026-03-01T12:00:00.000Z', ['a', 'b', 'c'])]);
    await publish(second);
    await receiptsFor(x, second.batchId);
    expect((await transitions(connectionId)).slice(2)).toEqual([
      { sequence: '3', kind: 'cleared', fault_key: 'a', bootstrap: false, observed_at: '11:00', published: true },
      { sequence: '4', kind: 'opened', fault_key: 'c', bootstrap: false, observed_at: '11:00', published: true },
      { sequence: '5', kind: 'opened', fault_key: 'a', bootstrap: false, observed_at: '12:00', published: true },
    ]);
    const occurrences = await x.sql<{ fault_key: string; open: boolean }>(
      `select fault_key, cleared_at is null as open from ${x.t('fault_occurrence')} where connection_id = ? order by fault_key, opened_at`,
      [connectionId],
    );
    expect(occurrences).toEqual([
      { fault_key: 'a', open: false },
      { fault_key: 'a', open: true },
      { fault_key: 'b', open: true },
      { fault_key: 'c', open: true },
    ]);
    const sent = await publishedFor(connectionId, 5);
    expect(sent.map((p) => [p.subject, p.payload.sequence, p.payload.faultKey])).toEqual([
      [`fleet.faults.${connectionId}.opened`, 1, 'a'],
      [`fleet.faults.${connectionId}.opened`, 2, 'b'],
      [`fleet.faults.${connectionId}.cleared`, 3, 'a'],
      [`fleet.faults.${connectionId}.opened`, 4, 'c'],
      [`fleet.faults.${connectionId}.opened`, 5, 'a'],
    ]);
    expect(sent[2]?.payload).toMatchObject({ kind: 'cleared', clearedBy: 'snapshot_absent', vehicleId: vehicleId({ connectionId, provider: 'samsara', sourceId: 'v1' }), bootstrap: false, model: 'complete_snapshot' });
  });

  it('the same snapshot twice (redelivered batch, or a new batch carrying it) adds no transitions', async () => {
    const { connectionId } = await x.connect();
    const s = snapshot('v9', '2026-03-02T10:00:00.000Z', ['x']);
    const b = batch(connectionId, 'fault_snapshots', [s]);
    await publish(b);
    const [receipt] = await receiptsFor(x, b.batchId);
    await publish(b, `${b.batchId}:again`);
    const copy = batch(connectionId, 'fault_snapshots', [s]);
    await publish(copy);
    await receiptsFor(x, copy.batchId);
    await sleep(1_000);
    expect(await transitions(connectionId)).toHaveLength(1);
    expect(x.receipts.filter((r) => r.batchId === b.batchId)).toEqual([receipt]);
    expect(await x.sql(`select receipt from ${x.t('ingest_batch')} where batch_id = ?`, [b.batchId])).toEqual([{ receipt }]);
  });

  it('an older snapshot arriving late changes nothing', async () => {
    const { connectionId } = await x.connect();
    const newer = batch(connectionId, 'fault_snapshots', [snapshot('v1', '2026-03-03T12:00:00.000Z', ['a'])]);
    const older = batch(connectionId, 'fault_snapshots', [snapshot('v1', '2026-03-03T08:00:00.000Z', [])]);
    await publish(newer);
    await receiptsFor(x, newer.batchId);
    await publish(older);
    await receiptsFor(x, older.batchId);
    expect((await transitions(connectionId)).map((t) => t.kind)).toEqual(['opened']);
  });

  it('explicit records open on the first record, clear on dismissal and after the inactivity timeout', async () => {
    const { connectionId } = await x.connect({ provider: 'geotab' });
    const record = (id: string, key: string, observedAt: string, dismissedAt: string | null = null): FaultRecordV1 => ({
      ...code(key),
      model: 'explicit_records',
      provider: 'geotab',
      sourceId: id,
      vehicleSourceId: 'b3',
      observedAt,
      providerState: 'Active',
      dismissedAt,
      fetchedAt: '2026-03-05T00:00:00.000Z',
    });
    const first = batch(connectionId, 'fault_records', [record('r1', 'k1', '2026-03-01T07:00:00.000Z'), record('r2', 'k1', '2026-03-02T07:00:00.000Z')], {
      provider: 'geotab',
      fetchedAt: '2026-03-02T08:00:00.000Z',
    });
    await publish(first);
    await receiptsFor(x, first.batchId);
    const second = batch(connectionId, 'fault_records', [record('r3', 'k2', '2026-03-03T07:00:00.000Z', '2026-03-03T09:00:00.000Z')], { provider: 'geotab', fetchedAt: '2026-03-03T10:00:00.000Z' });
    await publish(second);
    await receiptsFor(x, second.batchId);
    // Ten days on, k1 has had no repeat for 7 days: it clears at its last record + 7 days.
    const third = batch(connectionId, 'fault_records', [], { provider: 'geotab', fetchedAt: '2026-03-12T10:00:00.000Z' });
    await publish(third);
    await receiptsFor(x, third.batchId);
    expect(await transitions(connectionId)).toEqual([
      // The first pass's k1 opens when we first watched (the batch's fetch time: it carries no `read`), not at its first record.
      { sequence: '1', kind: 'opened', fault_key: 'k1', bootstrap: true, observed_at: '08:00', published: true },
      { sequence: '2', kind: 'opened', fault_key: 'k2', bootstrap: false, observed_at: '07:00', published: true },
      { sequence: '3', kind: 'cleared', fault_key: 'k2', bootstrap: false, observed_at: '09:00', published: true },
      { sequence: '4', kind: 'cleared', fault_key: 'k1', bootstrap: false, observed_at: '07:00', published: true },
    ]);
    const [k1] = await x.sql<{ cleared_at: string; cleared_by: string }>(
      `select to_char(cleared_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI') as cleared_at, cleared_by from ${x.t('fault_occurrence')} where connection_id = ? and fault_key = 'k1'`,
      [connectionId],
    );
    expect(k1).toEqual({ cleared_at: '2026-03-09T07:00', cleared_by: 'inactivity_timeout' });
    const sent = await publishedFor(connectionId, 4);
    expect(sent.map((p) => p.payload.clearedBy)).toEqual([null, null, 'dismissed', 'inactivity_timeout']);
  });

  it('two processes on one schema: every batch committed once, sequences gap-free per connection', async () => {
    await x.startSecond();
    const { connectionId } = await x.connect();
    // 10 vehicles, 2 snapshots each in separate batches, every batch sent twice.
    const batches = Array.from({ length: 10 }, (_, i) => [
      batch(connectionId, 'fault_snapshots', [snapshot(`v${i}`, '2026-03-04T10:00:00.000Z', ['a'])]),
      batch(connectionId, 'fault_snapshots', [snapshot(`v${i}`, '2026-03-04T11:00:00.000Z', ['b'])]),
    ]).flat();
    for (const b of batches) {
      await publish(b);
      await publish(b, `${b.batchId}:dup`);
    }
    for (const b of batches) await receiptsFor(x, b.batchId);
    await sleep(1_000);
    const rows = await transitions(connectionId);
    // Per vehicle: open a (bootstrap), then clear a + open b — or, if the 11:00 batch won the race, open b alone.
    expect(rows.map((r) => Number(r.sequence))).toEqual(rows.map((_, i) => i + 1));
    expect(rows.filter((r) => r.kind === 'opened' && r.fault_key === 'b')).toHaveLength(10);
    const open = await x.sql<{ n: string }>(`select count(*) as n from ${x.t('fault_occurrence')} where connection_id = ? and cleared_at is null`, [connectionId]);
    expect(open[0]?.n).toBe('10');
    for (const b of batches) expect(x.receipts.filter((r) => r.batchId === b.batchId)).toHaveLength(1);
    await publishedFor(connectionId, rows.length);
  }, 60_000);
});
