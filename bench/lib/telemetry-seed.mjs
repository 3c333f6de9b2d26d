/**
 * Stored-telemetry seeding for the telemetry read scenarios (telemetry-read, locations-page,
 * history-page): a gateway fixture (lib/gateway-fixture.mjs) with one Samsara connection and one
 * consumer key granted `read` and `history` on it, plus observations written **through
 * telemetry-ingest's real ingest**: the parent starts the built telemetry-ingest in-process for the
 * seeding only (migrating its isolated schema), stores the connection's configuration in its
 * projection, publishes observation batches on the INGEST stream as the collectors do and waits
 * until each committed, then stops it. The measured telemetry-ingest is a separate child (scenario
 * `support`).
 * Data: `vehicles` vehicles each with a location and an odometer observed a minute before the seed
 * (so `available` for the whole run: location freshness is 15 minutes), and the history vehicle
 * (`fixture.historyVehicleId`, the 8th) with `historyPoints` odometer readings one second apart in
 * the hour `fixture.window` (default configuration: no extended telemetry, so Telemetry holds
 * location and odometer).
 */
import { vehicleId } from '@switchyard/domain';
import { INGEST_MAX_RECORDS } from '@switchyard/messaging';
import { ConnectionConfigStore } from '@switchyard/service-kit';
import { startTelemetryIngest } from '@switchyard/telemetry-ingest';
import { chunks, vehicleSourceIds } from './directory-seed.mjs';
import { ingestAndWait, publishEmptyHiddenSet, seedBatch, seedThroughContext } from './context-seed.mjs';
import { dropGatewayFixture } from './gateway-fixture.mjs';

const HOUR = 3_600_000;

/** The seeded observations (pure): latest location + odometer per vehicle, and the history vehicle's odometer series. */
export function telemetryRecords({ sourceIds, historySourceId, historyPoints, nowMs, window }) {
  const fetchedAt = new Date(nowMs).toISOString();
  const latestAt = new Date(nowMs - 60_000).toISOString();
  const base = { provider: 'samsara', fetchedAt };
  const latest = sourceIds.flatMap((v, i) => [
    { ...base, vehicleSourceId: v, metric: 'location', value: { latitude: 37 + i / 1000, longitude: -122 - i / 1000 }, source: 'samsara:gps', observedAt: latestAt },
    { ...base, vehicleSourceId: v, metric: 'odometer', value: { meters: 100_000 + i * 10 }, source: 'samsara:obdOdometerMeters', observedAt: latestAt },
  ]);
  const start = Date.parse(window.startTime);
  const history = Array.from({ length: historyPoints }, (_, i) => ({
    ...base,
    vehicleSourceId: historySourceId,
    metric: 'odometer',
    value: { meters: 50_000 + i * 12.5 },
    source: 'samsara:obdOdometerMeters',
    observedAt: new Date(start + i * 1000).toISOString(),
  }));
  return [...latest, ...history];
}

export function createTelemetryReadFixture({ vehicles = 100, historyPoints = 1000 } = {}) {
  return seedThroughContext({
    service: 'telemetry-ingest',
    permissions: ['read', 'history'],
    start: (common) => startTelemetryIngest(common),
    seed: async ({ fixture, bus, orm, config }) => {
      await new ConnectionConfigStore(orm).apply(config);
      await publishEmptyHiddenSet(fixture, bus, orm);
      const nowMs = Date.now();
      const sourceIds = vehicleSourceIds(vehicles);
      const historySourceId = sourceIds[7];
      fixture.window = { startTime: new Date(nowMs - 2 * HOUR).toISOString(), endTime: new Date(nowMs - HOUR).toISOString() };
      const records = telemetryRecords({ sourceIds, historySourceId, historyPoints, nowMs, window: fixture.window });
      const parts = chunks(records, INGEST_MAX_RECORDS.observations);
      for (const [part, chunk] of parts.entries()) {
        await ingestAndWait(bus, orm, [seedBatch(fixture, { kind: 'observations', part, records: chunk, fetchedAt: new Date(nowMs).toISOString(), final: part === parts.length - 1 })]);
      }
      for (const table of ['latest_readings', 'observations', 'connection_config']) await orm.em.fork().getConnection().execute(`analyze "${fixture.schemas['telemetry-ingest']}"."${table}"`);
      const vcl = (sourceId) => vehicleId({ connectionId: fixture.connectionId, provider: 'samsara', sourceId });
      fixture.vehicleIds = sourceIds.map(vcl).sort();
      fixture.historyVehicleId = vcl(historySourceId);
      fixture.seeded = { vehicles, historyPoints, batches: parts.length, via: 'telemetry-ingest ingest (INGEST stream → telemetry-ingest consumer)' };
    },
  });
}

export { dropGatewayFixture as dropTelemetryReadFixture };
