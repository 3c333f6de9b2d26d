/**
 * The directory ingest consumer on real PostgreSQL and NATS: batches published on
 * `ingest.directory.<connectionId>` are committed with stable ids, the receipt follows the commit,
 * a redelivered batch commits nothing and answers with the same receipt, an older page never
 * overwrites a newer one, the provider cursor is stored with the batch, unknown and disconnected
 * connections get a `rejected` receipt, two processes share one durable without committing a
 * batch twice, and the durable's ack wait follows INGEST_ACK_WAIT_MS (a process started with another
 * value updates the durable in place). A vehicles pass completes only with all its units, and a
 * vehicle status the provider does not report follows the roster it completes.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { available, driverId, groupId, missing, tripId, unsupported, vehicleId, type Provider } from '@switchyard/domain';
import { CONSUMERS, type DirectoryBatchV1, EVENTS, ingestBatchId, subjectFor, type VehicleRecordV1 } from '@switchyard/messaging';
import { loadIngestSettings } from '@switchyard/service-kit';
import { durableState, ledgerHas, receiptsFor, sleep, startIngestHarness, type IngestHarness } from '@switchyard/testing';
import { directoryService, startDirectory } from '../src/index.js';

const SRC = 'test:field';
const miss = { status: 'missing' as const, value: null, source: SRC };
let counter = 0;

function vehicle(sourceId: string, name: string, fetchedAt: string, provider: Provider = 'samsara'): VehicleRecordV1 {
  const m = <T>(k: string) => missing<T>(`${SRC}.${k}`);
  return {
    provider,
    sourceId,
    name: available(name, SRC),
    vin: miss,
    metadata: {
      make: available('Volvo', SRC),
      model: m('model'),
      year: available(2021, SRC),
      status: available('active', SRC),
      providerStatus: m('providerStatus'),
      fuelType: available('diesel', SRC),
      sourceFuelType: m('sourceFuelType'),
      createdAt: m('createdAt'),
      updatedAt: m('updatedAt'),
      activeFrom: m('activeFrom'),
      activeTo: m('activeTo'),
      licensePlate: m('licensePlate'),
      licensePlateRegion: m('licensePlateRegion'),
      serialNumber: m('serialNumber'),
      groups: available([{ id: 'g1', name: 'North' }], SRC),
    },
    fetchedAt,
  } as VehicleRecordV1;
}

function batch<K extends DirectoryBatchV1['kind']>(connectionId: string, kind: K, records: Extract<DirectoryBatchV1, { kind: K }>['records'], extra: Partial<DirectoryBatchV1> = {}): DirectoryBatchV1 {
  const unitId = String(++counter);
  return {
    batchId: ingestBatchId({ connectionId, kind, unitId, fencingToken: '1', pageKey: `page-${counter}`, part: 0 }),
    connectionId,
    provider: 'samsara',
    syncId: 'sync_01JD0000000000000000000000',
    unitId,
    fencingToken: '1',
    kind,
    records,
    fetchedAt: '2026-01-10T10:00:00.000Z',
    providerCursor: null,
    final: true,
    ...extra,
  } as DirectoryBatchV1;
}

describe('directory ingest', () => {
  let x: IngestHarness;
  beforeAll(async () => {
    x = await startIngestHarness(directoryService, startDirectory);
  });
  afterAll(() => x?.close());

  const publish = (b: DirectoryBatchV1, msgId = b.batchId) =>
    x.h.client.publish(EVENTS.directoryBatch, subjectFor(EVENTS.directoryBatch.subject, b.connectionId), b, { msgId });

  it('commits vehicles with stable vcl_ ids, stores the cursor, then sends a committed receipt', async () => {
    const { connectionId } = await x.connect();
    const b = batch(connectionId, 'vehicles', [vehicle('v1', 'Truck 1', '2026-01-10T10:00:00.000Z'), vehicle('v2', 'Truck 2', '2026-01-10T10:00:00.000Z')], { providerCursor: 'cursor-1' });
    await publish(b);
    const [receipt] = await receiptsFor(x, b.batchId);
    expect(receipt).toEqual({
      batchId: b.batchId,
      connectionId,
      syncId: b.syncId,
      unitId: b.unitId,
      fencingToken: '1',
      context: 'directory',
      kind: 'vehicles',
      status: 'committed',
      reason: null,
      records: 2,
      final: true,
      committedAt: expect.any(String),
    });
    const rows = await x.sql<{ id: string; name: string; vin: string | null; status: string; metadata: { year: unknown } }>(
      `select id, name, vin, status, metadata from ${x.t('vehicle')} where connection_id = ? order by source_id`,
      [connectionId],
    );
    expect(rows.map((r) => r.id)).toEqual([vehicleId({ connectionId, provider: 'samsara', sourceId: 'v1' }), vehicleId({ connectionId, provider: 'samsara', sourceId: 'v2' })]);
    expect(rows[0]).toMatchObject({ name: 'Truck 1', vin: null, status: 'active', metadata: { year: { status: 'available', value: 2021 } } });
    const cursor = await x.sql<{ cursor: string }>(`select cursor from ${x.t('provider_cursor')} where connection_id = ? and kind = 'vehicles'`, [connectionId]);
    expect(cursor).toEqual([{ cursor: 'cursor-1' }]);
    const publication = await x.sql<{ publication: string; last_final_at: string | null }>(`select publication, last_final_at from ${x.t('connection_publication')} where connection_id = ?`, [connectionId]);
    expect(publication).toEqual([{ publication: '1', last_final_at: '2026-01-10 10:00:00+00' }]);
  });

  it('a redelivered batch (new msgId) commits nothing and answers with the identical stored receipt', async () => {
    const { connectionId } = await x.connect();
    const b = batch(connectionId, 'vehicles', [vehicle('v1', 'Truck 1', '2026-01-10T10:00:00.000Z')]);
    await publish(b);
    const [first] = await receiptsFor(x, b.batchId);
    const before = await x.sql<{ publication: string; modified_at: Date }>(`select publication, modified_at from ${x.t('vehicle')} where connection_id = ?`, [connectionId]);
    await publish(b, `${b.batchId}:again`);
    // The second delivery is handled when the ledger row is read back; its receipt is deduped by msgId.
    await sleep(1_500);
    const stored = await x.sql<{ receipt: unknown; status: string }>(`select receipt, status from ${x.t('ingest_batch')} where batch_id = ?`, [b.batchId]);
    expect(stored).toEqual([{ receipt: first, status: 'committed' }]);
    expect(x.receipts.filter((r) => r.batchId === b.batchId)).toEqual([first]);
    expect(await x.sql(`select publication, modified_at from ${x.t('vehicle')} where connection_id = ?`, [connectionId])).toEqual(before);
    expect(await x.sql(`select publication from ${x.t('connection_publication')} where connection_id = ?`, [connectionId])).toEqual([{ publication: '1' }]);
  });

  it('an older page never overwrites a newer one, and an older cursor never replaces a newer one', async () => {
    const { connectionId } = await x.connect();
    const newer = batch(connectionId, 'vehicles', [vehicle('v1', 'New name', '2026-01-10T12:00:00.000Z')], { fetchedAt: '2026-01-10T12:00:00.000Z', providerCursor: 'c-new' });
    const older = batch(connectionId, 'vehicles', [vehicle('v1', 'Old name', '2026-01-10T08:00:00.000Z')], { fetchedAt: '2026-01-10T08:00:00.000Z', providerCursor: 'c-old' });
    await publish(newer);
    await receiptsFor(x, newer.batchId);
    await publish(older);
    const [late] = await receiptsFor(x, older.batchId);
    expect(late).toMatchObject({ status: 'committed', records: 1 });
    const [row] = await x.sql<{ name: string; fetched_at: string; first_seen_at: string; batch_id: string }>(
      `select name, fetched_at, first_seen_at, batch_id from ${x.t('vehicle')} where connection_id = ?`,
      [connectionId],
    );
    expect(row).toEqual({ name: 'New name', fetched_at: '2026-01-10 12:00:00+00', first_seen_at: '2026-01-10 08:00:00+00', batch_id: newer.batchId });
    expect(await x.sql(`select cursor from ${x.t('provider_cursor')} where connection_id = ?`, [connectionId])).toEqual([{ cursor: 'c-new' }]);
  });

  it("completes a vehicles roster pass only when every unit of the sync's pass delivered its final page; a status the provider does not report follows the roster (decision 0011)", async () => {
    const { connectionId } = await x.connect();
    const roster = () =>
      x.sql<{ vehicle_id: string; from_seq: string; to_seq: string | null }>(
        `select vehicle_id, from_seq::text as from_seq, to_seq::text as to_seq from ${x.t('vehicle_roster')} where connection_id = ? order by vehicle_id`,
        [connectionId],
      );
    const passes = () => x.sql<{ seq: string }>(`select seq::text as seq from ${x.t('vehicle_pass')} where connection_id = ? order by seq`, [connectionId]);
    const id = (sourceId: string) => vehicleId({ connectionId, provider: 'samsara', sourceId });
    // Samsara's shape: no vehicle status at all (cell `unsupported`), so the directory derives it from the roster.
    const statusless = (s: string, fetchedAt: string): VehicleRecordV1 => {
      const v = vehicle(s, `Truck ${s}`, fetchedAt);
      return { ...v, metadata: { ...v.metadata, status: unsupported('samsara:vehicles') } } as VehicleRecordV1;
    };
    const pass = (syncId: string, sources: readonly string[], fetchedAt: string) =>
      sources.map((s) => batch(connectionId, 'vehicles', [statusless(s, fetchedAt)], { syncId, fetchedAt, pass: { purpose: 'vehicles', units: sources.length } }));
    const statuses = async () =>
      Object.fromEntries(
        (await x.sql<{ source_id: string; status: string | null; modified_at: string }>(`select source_id, status, modified_at from ${x.t('vehicle')} where connection_id = ?`, [connectionId])).map((r) => [
          r.source_id,
          { status: r.status, modifiedAt: r.modified_at },
        ]),
      );
    const first = pass('sync_01JD0000000000000000000001', ['v1', 'v2', 'v3'], '2026-01-11T10:00:00.000Z');
    for (const b of first.slice(0, 2)) await publish(b);
    // The first unit's final page sent again under a new lease counts once.
    const again = { ...first[0]!, batchId: ingestBatchId({ connectionId, kind: 'vehicles', unitId: first[0]!.unitId, fencingToken: '2', pageKey: 'again', part: 0 }), fencingToken: '2' };
    await publish(again);
    for (const b of [first[0]!, first[1]!, again]) await receiptsFor(x, b.batchId);
    expect(await passes()).toEqual([]);
    // Seen only by an unfinished pass: the status is unknown (an asset, no profile).
    expect(await statuses()).toEqual({ v1: { status: null, modifiedAt: '2026-01-11 10:00:00+00' }, v2: { status: null, modifiedAt: '2026-01-11 10:00:00+00' } });
    await publish(first[2]!);
    await receiptsFor(x, first[2]!.batchId);
    expect(await passes()).toEqual([{ seq: '1' }]);
    expect(await roster()).toEqual([id('v1'), id('v2'), id('v3')].sort().map((vehicle_id) => ({ vehicle_id, from_seq: '1', to_seq: null })));
    // The complete pass lists all three: active, v1 and v2 too although their pages came before the final one.
    // mutation: no follow() after the completion → v1 and v2 stay null → this fails.
    const active = { status: 'active', modifiedAt: '2026-01-11 10:00:00+00' };
    expect(await statuses()).toEqual({ v1: active, v2: active, v3: active });
    // The next sync's pass no longer carries v3: only v3 leaves the roster.
    const second = pass('sync_01JD0000000000000000000002', ['v1', 'v2'], '2026-01-11T11:00:00.000Z');
    await publish(second[0]!);
    await receiptsFor(x, second[0]!.batchId);
    // An unfinished pass flips nothing: v3 stays active, and v1's newer page keeps its derived status (unchanged, so not modified).
    // mutation: the batch's rows written without forBatch's derived status → v1 becomes null → this fails.
    expect(await statuses()).toEqual({ v1: active, v2: active, v3: active });
    await publish(second[1]!);
    await receiptsFor(x, second[1]!.batchId);
    expect(await passes()).toEqual([{ seq: '1' }, { seq: '2' }]);
    // The complete pass without v3: inactive, modified at the fetch of the page that completed the pass.
    expect(await statuses()).toEqual({ v1: active, v2: active, v3: { status: 'inactive', modifiedAt: '2026-01-11 11:00:00+00' } });
    expect((await roster()).find((r) => r.vehicle_id === id('v3'))).toEqual({ vehicle_id: id('v3'), from_seq: '1', to_seq: '2' });
    expect((await roster()).filter((r) => r.to_seq === null)).toHaveLength(2);
    expect(await x.sql(`select 1 from ${x.t('vehicle_pass_unit')} where connection_id = ?`, [connectionId])).toEqual([]);
  });

  it('commits drivers, groups and trips with minted ids, availability and distance basis', async () => {
    const { connectionId } = await x.connect();
    const ref = (sourceId: string) => ({ connectionId, provider: 'samsara' as const, sourceId });
    const at = '2026-01-10T10:00:00.000Z';
    const fields = { firstName: available('Ada', SRC), middleName: miss, lastName: available('Lovelace', SRC), displayName: available('Ada L', SRC) };
    const rest = Object.fromEntries(['email', 'phone', 'username', 'licenseNumber', 'licenseState', 'createdAt', 'updatedAt'].map((k) => [k, miss]));
    const drivers = batch(connectionId, 'drivers', [
      { provider: 'samsara', sourceId: 'd1', status: available('active', SRC), fields: { ...fields, ...rest }, groupIds: available(['g1'], SRC), fetchedAt: at },
      { provider: 'samsara', sourceId: 'd2', status: miss, fields: { ...fields, ...rest }, groupIds: miss, fetchedAt: at },
    ] as Extract<DirectoryBatchV1, { kind: 'drivers' }>['records']);
    const groups = batch(connectionId, 'groups', [
      { provider: 'samsara', sourceId: 'g0', name: available('Root', SRC), description: miss, parentSourceId: null, fetchedAt: at },
      { provider: 'samsara', sourceId: 'g1', name: available('North', SRC), description: miss, parentSourceId: 'g0', fetchedAt: at },
    ]);
    const trips = batch(connectionId, 'trips', [
      {
        provider: 'samsara',
        sourceId: 't1',
        vehicleSourceId: 'v1',
        driverSourceId: 'd1',
        startedAt: '2026-01-10T08:00:00.000Z',
        endedAt: '2026-01-10T09:00:00.000Z',
        durationMs: 3_600_000,
        distanceKm: available(42.5, SRC),
        distanceBasis: 'odometer',
        startLocation: miss,
        endLocation: available({ latitude: 1, longitude: 2 }, SRC),
        fetchedAt: at,
      },
      {
        provider: 'samsara',
        sourceId: 't2',
        vehicleSourceId: 'v1',
        driverSourceId: null,
        startedAt: '2026-01-10T09:30:00.000Z',
        endedAt: '2026-01-10T09:40:00.000Z',
        durationMs: 600_000,
        distanceKm: miss,
        distanceBasis: null,
        startLocation: miss,
        endLocation: miss,
        fetchedAt: at,
      },
    ]);
    for (const b of [drivers, groups, trips]) await publish(b);
    for (const b of [drivers, groups, trips]) await receiptsFor(x, b.batchId);
    expect(await x.sql(`select id, status, display_name, group_ids from ${x.t('driver')} where connection_id = ? order by source_id`, [connectionId])).toEqual([
      { id: driverId(ref('d1')), status: 'active', display_name: 'Ada L', group_ids: [groupId(ref('g1'))] },
      { id: driverId(ref('d2')), status: null, display_name: 'Ada L', group_ids: null },
    ]);
    expect(await x.sql(`select id, name, parent_source_id, parent_id from ${x.t('group')} where connection_id = ? order by source_id`, [connectionId])).toEqual([
      { id: groupId(ref('g0')), name: 'Root', parent_source_id: null, parent_id: null },
      { id: groupId(ref('g1')), name: 'North', parent_source_id: 'g0', parent_id: groupId(ref('g0')) },
    ]);
    expect(await x.sql(`select id, vehicle_id, driver_id, duration_ms, distance_km, distance_basis from ${x.t('trip')} where connection_id = ? order by source_id`, [connectionId])).toEqual([
      { id: tripId(ref('t1')), vehicle_id: vehicleId(ref('v1')), driver_id: driverId(ref('d1')), duration_ms: '3600000', distance_km: 42.5, distance_basis: 'odometer' },
      { id: tripId(ref('t2')), vehicle_id: vehicleId(ref('v1')), driver_id: null, duration_ms: '600000', distance_km: null, distance_basis: null },
    ]);
  });

  it('gives a never-analyzed table its first planner statistics after the first commit into it, and only that one', async () => {
    // Manual ANALYZEs only (autovacuum counts in autoanalyze_count): the directory's own.
    const analyzeCount = async (table: string) =>
      Number((await x.sql<{ n: string }>('select analyze_count as n from pg_stat_user_tables where relid = to_regclass(?)', [x.t(table)]))[0]?.n ?? 0);
    const { connectionId } = await x.connect();
    const at = '2026-01-10T10:00:00.000Z';
    const trip = (sourceId: string) => ({
      provider: 'samsara' as const,
      sourceId,
      vehicleSourceId: 'v1',
      driverSourceId: null,
      startedAt: '2026-01-10T08:00:00.000Z',
      endedAt: '2026-01-10T09:00:00.000Z',
      durationMs: 3_600_000,
      distanceKm: miss,
      distanceBasis: null,
      startLocation: miss,
      endLocation: miss,
      fetchedAt: at,
    });
    const batches = [
      batch(connectionId, 'vehicles', [vehicle('v1', 'Truck 1', at)]),
      batch(connectionId, 'groups', [{ provider: 'samsara', sourceId: 'g1', name: available('North', SRC), description: miss, parentSourceId: null, fetchedAt: at }]),
      batch(connectionId, 'trips', [trip('t1')]),
    ];
    for (const b of batches) await publish(b);
    for (const b of batches) await receiptsFor(x, b.batchId);
    // The ANALYZE runs after the commit and before the receipt, so it is done by now.
    for (const table of ['vehicle', 'group', 'trip']) expect(await analyzeCount(table)).toBeGreaterThanOrEqual(1);
    const before = await analyzeCount('trip');
    const more = batch(connectionId, 'trips', [trip('t2')]);
    await publish(more);
    await receiptsFor(x, more.batchId);
    expect(await analyzeCount('trip')).toBe(before);
  });

  it('rejects a disconnected connection at once and writes nothing', async () => {
    const { connectionId } = await x.connect({ status: 'disconnected' });
    const b = batch(connectionId, 'vehicles', [vehicle('v1', 'Truck', '2026-01-10T10:00:00.000Z')]);
    await publish(b);
    const [receipt] = await receiptsFor(x, b.batchId);
    expect(receipt).toMatchObject({ status: 'rejected', reason: 'connection_disconnected', records: 0 });
    expect(await x.sql(`select id from ${x.t('vehicle')} where connection_id = ?`, [connectionId])).toEqual([]);
  });

  it('rejects an unknown connection after a short grace instead of retrying forever', async () => {
    const b = batch('0b6c1d52-7a55-4c3a-9d0e-000000000001', 'vehicles', [vehicle('v1', 'Truck', '2026-01-10T10:00:00.000Z')]);
    await publish(b);
    const [receipt] = await receiptsFor(x, b.batchId);
    expect(receipt).toMatchObject({ status: 'rejected', reason: 'connection_unknown', records: 0 });
  }, 30_000);

  it('two processes on one schema share the durable and commit each batch once', async () => {
    await x.startSecond();
    const { connectionId } = await x.connect();
    const batches = Array.from({ length: 20 }, (_, i) => batch(connectionId, 'vehicles', [vehicle(`v${i}`, `Truck ${i}`, '2026-01-10T10:00:00.000Z')]));
    // Every batch twice under different msgIds: both processes may pick up copies of one batch.
    await Promise.all(batches.flatMap((b) => [publish(b), publish(b, `${b.batchId}:dup`)]));
    for (const b of batches) await ledgerHas(x, b.batchId);
    await sleep(1_000);
    const [count] = await x.sql<{ n: string }>(`select count(*) as n from ${x.t('vehicle')} where connection_id = ?`, [connectionId]);
    expect(count?.n).toBe('20');
    const [pub] = await x.sql<{ publication: string }>(`select publication from ${x.t('connection_publication')} where connection_id = ?`, [connectionId]);
    expect(pub?.publication).toBe('20');
    for (const b of batches) expect(x.receipts.filter((r) => r.batchId === b.batchId)).toHaveLength(1);
  }, 60_000);

  it('provisions its durable with INGEST_ACK_WAIT_MS, and a process started with another value updates it in place', async () => {
    const durable = () => durableState(x.h.natsUrl, x.h.namespace, EVENTS.directoryBatch.stream, CONSUMERS.directoryIngest.durable);
    const before = await durable();
    expect(before.ackWaitMs).toBe(loadIngestSettings(process.env).ackWaitMs);
    await x.startSecond({ INGEST_ACK_WAIT_MS: '7000' });
    // The start did not fail on the differing durable, and did not re-create it (pending deliveries stay).
    expect(await durable()).toEqual({ ackWaitMs: 7_000, created: before.created });
    const { connectionId } = await x.connect();
    const b = batch(connectionId, 'vehicles', [vehicle('v1', 'Truck 1', '2026-01-10T10:00:00.000Z')]);
    await publish(b);
    expect((await receiptsFor(x, b.batchId))[0]).toMatchObject({ status: 'committed', records: 1 });
  }, 60_000);
});
