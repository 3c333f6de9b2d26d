/**
 * Stored-read seeding for the read scenarios (trips-page, vehicle-read): a gateway fixture
 * (lib/gateway-fixture.mjs) with one connection and one consumer key granted `read` on it, plus
 * directory data written **through the directory's real ingest**: the parent starts the built
 * directory in-process for the seeding only (migrating its isolated schema), stores the
 * connection's configuration in its projection (ConnectionConfigStore, what the config consumer
 * does on the gateway's event), publishes directory batches on the INGEST stream as the collectors
 * do (msgId = batchId) and waits until the directory committed each, then stops it. The measured
 * directory is a separate child process started afterwards (scenario `support`).
 * The record builders are pure (tested in bench/test/directory-seed.test.mjs) and mirror
 * system-tests/test/reads-fixture.ts: every metadata cell a status, never a zero.
 */
import { startDirectory } from '@switchyard/directory';
import { available, missing } from '@switchyard/domain';
import { INGEST_MAX_RECORDS } from '@switchyard/messaging';
import { ConnectionConfigStore } from '@switchyard/service-kit';
import { ingestAndWait, seedBatch, seedThroughContext } from './context-seed.mjs';
import { dropGatewayFixture } from './gateway-fixture.mjs';

const SRC = 'bench:field';
const HOUR = 3_600_000;

/** Vehicle source ids `v0001`…; `n` of them. */
export const vehicleSourceIds = (n) => Array.from({ length: n }, (_, i) => `v${String(i + 1).padStart(4, '0')}`);

export function vehicleRecord(sourceId, fetchedAt) {
  const m = (k) => missing(`${SRC}.${k}`);
  return {
    provider: 'samsara',
    sourceId,
    name: available(`Truck ${sourceId}`, SRC),
    vin: available('1FUJGLDR7CLBP8834', SRC),
    metadata: {
      make: available('Volvo', SRC),
      model: available('VNL', SRC),
      year: available(2021, SRC),
      status: available('active', SRC),
      providerStatus: m('providerStatus'),
      fuelType: available('diesel', SRC),
      sourceFuelType: m('sourceFuelType'),
      createdAt: available('2024-01-02T03:04:05Z', SRC),
      updatedAt: m('updatedAt'),
      activeFrom: m('activeFrom'),
      activeTo: m('activeTo'),
      licensePlate: available('ABC-123', SRC),
      licensePlateRegion: available('CA', SRC),
      serialNumber: m('serialNumber'),
      groups: available([{ id: 'g1', name: 'Group g1' }], SRC),
    },
    fetchedAt,
  };
}

/**
 * `count` completed trips spread round-robin over `vehicleIds`, one every 10 minutes from `startMs`,
 * 30 minutes long, alternately with and without a distance and an end location (missing, not 0).
 */
export function tripRecords(count, vehicleIds, startMs, fetchedAt) {
  return Array.from({ length: count }, (_, i) => {
    const started = startMs + i * 600_000;
    return {
      provider: 'samsara',
      sourceId: `t${String(i + 1).padStart(6, '0')}`,
      vehicleSourceId: vehicleIds[i % vehicleIds.length],
      driverSourceId: 'd1',
      startedAt: new Date(started).toISOString(),
      endedAt: new Date(started + 30 * 60_000).toISOString(),
      durationMs: 30 * 60_000,
      distanceKm: i % 2 === 0 ? available(12.5 + (i % 7), `${SRC}.distance`) : missing(`${SRC}.distance`),
      distanceBasis: 'odometer',
      startLocation: available({ latitude: 37.77, longitude: -122.42 }, SRC),
      endLocation: i % 2 === 0 ? available({ latitude: 37.8, longitude: -122.4 }, SRC) : missing(`${SRC}.end`),
      fetchedAt,
    };
  });
}

/** Splits `records` into chunks of at most `size`. */
export function chunks(records, size) {
  if (!Number.isInteger(size) || size < 1) throw new Error(`chunk size must be a positive integer, got ${size}`);
  const out = [];
  for (let i = 0; i < records.length; i += size) out.push(records.slice(i, i + size));
  return out;
}

/**
 * Creates the fixture and seeds it: `vehicles` vehicles, `trips` trips of the last days, all in
 * final batches of one unit per kind. Resolves the fixture with `connectionId`, `token`,
 * `vehicleIds` (the directory's `vcl_` ids) and `seeded` counts.
 */
export function createStoredReadFixture({ vehicles, trips }) {
  return seedThroughContext({
    service: 'directory',
    start: (common) => startDirectory(common),
    seed: async ({ fixture, bus, orm, config }) => {
      await new ConnectionConfigStore(orm).apply(config);
      const fetchedAt = new Date().toISOString();
      const vehicleIds = vehicleSourceIds(vehicles);
      const publish = async (kind, records, unitId) => {
        const parts = chunks(records, INGEST_MAX_RECORDS[kind]);
        await ingestAndWait(bus, orm, parts.map((chunk, part) => seedBatch(fixture, { kind, unitId, part, records: chunk, fetchedAt, final: part === parts.length - 1 })));
        return parts.length;
      };
      const vehicleBatches = await publish('vehicles', vehicleIds.map((id) => vehicleRecord(id, fetchedAt)), '1');
      const start = Date.now() - (trips * 600_000 + HOUR);
      const tripBatches = await publish('trips', tripRecords(trips, vehicleIds, start, fetchedAt), '2');
      // Planner statistics as autovacuum would leave them on a long-lived database: without them a
      // fresh table is estimated at a handful of rows and the page sorts all of the connection's
      // trips (bitmap scan + top-N sort, ~9 ms at 3,000) instead of walking trip_window_idx (~0.5 ms).
      for (const table of ['vehicle', 'trip', 'ingest_batch', 'connection_publication', 'connection_config']) {
        await orm.em.fork().getConnection().execute(`analyze "${fixture.schemas.directory}"."${table}"`);
      }
      const rows = await orm.em
        .fork()
        .getConnection()
        .execute(`select id from "${fixture.schemas.directory}"."vehicle" where connection_id = ?::uuid order by source_id`, [fixture.connectionId]);
      fixture.vehicleIds = rows.map((r) => r.id);
      fixture.seeded = { vehicles, trips, vehicleBatches, tripBatches, via: 'directory ingest (INGEST stream → directory consumer)' };
    },
  });
}

export { dropGatewayFixture as dropStoredReadFixture };
