/**
 * Seeding for the usage report scenarios (usage-utilization, fleet-utilization): a gateway fixture
 * (lib/gateway-fixture.mjs) with one Samsara connection approving `vehicles` vehicles and one
 * consumer key granted `read`, and for each vehicle one odometer and one engine-hours observation
 * per minute over `minutes` minutes — driving 08:00-16:00 UTC every day (500 m and 60 engine seconds
 * a minute), parked otherwise (the counters stand still, still observed every minute).
 * The observations are inserted with one `generate_series` statement per metric (a million-row
 * seed through the ingest consumer would take most of an hour); the usage rollups are then built by
 * telemetry-ingest's own rebuild (UsageRollupRepository.refresh, the code each ingest transaction
 * runs) per vehicle, and the rollup epoch is moved before the seeded data (the rollups of every
 * seeded observation exist: a backfill).
 */
import { vehicleId } from '@switchyard/domain';
import { inTransaction } from '@switchyard/persistence';
import { ConnectionConfigStore } from '@switchyard/service-kit';
import { startTelemetryIngest, UsageRollupRepository } from '@switchyard/telemetry-ingest';
import { vehicleSourceIds } from './directory-seed.mjs';
import { publishEmptyHiddenSet, seedThroughContext } from './context-seed.mjs';
import { dropGatewayFixture } from './gateway-fixture.mjs';

const MINUTE = 60_000;

/** `count(driving minutes before minute i)` in SQL for the seeded day pattern (08:00-16:00 UTC driving). */
const DRIVEN = (i) => `(floor(${i} / 1440) * 480 + greatest(0, least(mod(${i}, 1440), 960) - 480))`;

export function createUsageFixture({ vehicles, minutes, window }) {
  return seedThroughContext({
    service: 'telemetry-ingest',
    // The seed's generate_series inserts (1.6 million rows each for the fleet) outlive the 30 s
    // default statement_timeout on a loaded machine; the seed is untimed, so it may take its time.
    start: (common) => startTelemetryIngest({ ...common, databaseTimeouts: { statementMs: 900_000 } }),
    seed: async ({ fixture, bus, orm, config }) => {
      const sourceIds = vehicleSourceIds(vehicles);
      await new ConnectionConfigStore(orm).apply({ ...config, approvedVehicleIds: sourceIds });
      await publishEmptyHiddenSet(fixture, bus, orm);
      const vcl = (sourceId) => vehicleId({ connectionId: fixture.connectionId, provider: 'samsara', sourceId });
      const schema = fixture.schemas['telemetry-ingest'];
      const t = (table) => `"${schema}"."${table}"`;
      const execute = (text, params = []) => orm.em.fork().getConnection().execute(text, params);
      // Start on a day boundary so the driving pattern is the same for every window of the scenarios.
      const startMs = Math.floor((Date.parse(window.startTime) - 3_600_000) / 86_400_000) * 86_400_000;
      const endMs = startMs + minutes * MINUTE;
      for (let m = new Date(startMs); m.getTime() < endMs; m = new Date(Date.UTC(m.getUTCFullYear(), m.getUTCMonth() + 1, 1))) {
        const from = new Date(Date.UTC(m.getUTCFullYear(), m.getUTCMonth(), 1));
        const to = new Date(Date.UTC(m.getUTCFullYear(), m.getUTCMonth() + 1, 1));
        const name = `observations_y${from.getUTCFullYear()}m${String(from.getUTCMonth() + 1).padStart(2, '0')}`;
        await execute(`create table if not exists ${t(name)} partition of ${t('observations')} for values from ('${from.toISOString()}') to ('${to.toISOString()}')`);
      }
      const ids = sourceIds.map((s) => ({ s, v: vcl(s) }));
      const metrics = [
        ['odometer', 'samsara:obdOdometerMeters', `'meters'`, `1000000 + 500 * ${DRIVEN('i')}`],
        ['engineHours', 'samsara:obdEngineSeconds', `'seconds'`, `36000 + 60 * ${DRIVEN('i')}`],
      ];
      for (const [metric, source, key, value] of metrics) {
        await execute(
          `insert into ${t('observations')} (connection_id, vehicle_id, metric, observed_at, source, provider, vehicle_source_id, value, value_num, units, fetched_at, batch_id, seq)
           select ?::uuid, v.id, ?, to_timestamp((?::bigint + i::bigint * 60000) / 1000.0), ?, 'samsara', v.source_id, jsonb_build_object(${key}, ${value}), ${value}, null, now(), 'bench-seed', nextval('${schema}.observation_seq')
           from json_to_recordset(?::json) as v(id text, source_id text), generate_series(0, ?::int - 1) as i`,
          [fixture.connectionId, metric, startMs, source, JSON.stringify(ids.map(({ s, v }) => ({ id: v, source_id: s }))), minutes],
        );
      }
      const rollups = new UsageRollupRepository();
      for (const { v } of ids) {
        await inTransaction(orm, (em) =>
          rollups.refresh(em, [
            { connection_id: fixture.connectionId, vehicle_id: v, metric: 'odometer', observed_at: new Date(startMs).toISOString() },
            { connection_id: fixture.connectionId, vehicle_id: v, metric: 'odometer', observed_at: new Date(endMs - MINUTE).toISOString() },
          ]),
        );
      }
      await execute(`update ${t('usage_rollup_epoch')} set started_at = ?::timestamptz`, [new Date(startMs - 86_400_000).toISOString()]);
      for (const table of ['observations', 'usage_slot', 'usage_excluded_interval', 'connection_config']) await execute(`analyze ${t(table)}`);
      fixture.window = window;
      fixture.vehicleIds = ids.map(({ v }) => v).sort();
      fixture.seeded = { vehicles, minutes, observations: 2 * vehicles * minutes, via: 'SQL generate_series; rollups by UsageRollupRepository.refresh' };
    },
  });
}

/** What both sides must agree on: per vehicle, the figures the hand-written SQL computes (3 decimals). */
export function usageFigures(text) {
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  const r3 = (x) => (typeof x === 'number' ? Math.round(x * 1000) / 1000 : x);
  const counter = (c) => ({ status: c?.status, value: r3(c?.value), coverageSeconds: r3(c?.coverageSeconds) });
  const one = (u) => ({
    vehicleId: u.vehicleId,
    distance: counter(u.distance),
    engineRuntime: counter(u.engineRuntime),
    engineNotRunning: r3(u.engineNotRunning?.value),
    engineOnPercentOfObservedTime: r3(u.engineOnPercentOfObservedTime),
  });
  if (Array.isArray(body?.vehicles)) return JSON.stringify({ vehicles: body.vehicles.map(one), more: body.nextCursor !== null && body.nextCursor !== undefined });
  if (body?.vehicleId) return JSON.stringify(one(body));
  return text;
}

export { dropGatewayFixture as dropUsageFixture };
