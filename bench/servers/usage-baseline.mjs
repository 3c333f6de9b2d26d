/**
 * The bare `node:http` + `pg` baseline of the usage report scenarios (usage-utilization,
 * fleet-utilization): the consumer-key + grant lookup and token check of
 * connection-read-baseline.mjs (`read`), then ONE hand-written SQL window query over the raw
 * observations of the window (± maxObservationGapSeconds): `lag()` pairs consecutive observations
 * per vehicle, metric and source, keeps the valid intervals of docs/metrics.md (at most 1,800 s,
 * not backwards, not implausible), sums them pro rata of their part inside the window, and keeps
 * the series with the most observed time (then observations, then name). It answers the figures the
 * scenarios compare (lib/usage-seed.mjs `usageFigures`): distance and engine runtime (status, value,
 * coverage), engine not running, and the engine-on percentage.
 * Simplifications, valid for the seeded fixture: every vehicle has odometer and engine-hours
 * counters (no engine-state fallback, no idle counter, no visibility rules); the fleet page is the
 * first `limit` approved vehicles in id order. No Nest, no MikroORM, no zod, no logging, no metrics.
 */
import pg from 'pg';
import { vehicleId } from '@switchyard/domain';
import { consumerKeyFrom, matches, send, serveOnLoopback } from './connection-read-baseline.mjs';

const POOL_MAX = 10;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const VEHICLE = /^\/v1\/connections\/([^/?#]+)\/vehicles\/([^/?#]+)\/utilization\/?(?:\?(.*))?$/;
const FLEET = /^\/v1\/connections\/([^/?#]+)\/utilization\/?(?:\?(.*))?$/;
const r3 = (x) => Math.round(x * 1000) / 1000;

function queries(schema, gateway) {
  const t = (table) => `"${schema.replaceAll('"', '""')}"."${table}"`;
  return {
    consumerKey: `select k.secret_hash, k.revoked_at is not null as revoked, g.permissions
         from "${gateway}"."consumer_key" k
         left join "${gateway}"."consumer_grant" g on g.consumer_key_id = k.id and g.connection_id = $1::uuid
        where k.lookup_id = $2`,
    // $1 connection, $2 vehicle ids (text[]), $3 start, $4 end.
    figures: `with o as (
         select vehicle_id, metric, source, observed_at as b, value_num as vb,
                lag(observed_at) over w as a, lag(value_num) over w as va
           from ${t('observations')}
          where connection_id = $1::uuid and vehicle_id = any($2::text[]) and metric in ('odometer', 'engineHours')
            and observed_at >= $3::timestamptz - interval '1800 seconds' and observed_at <= $4::timestamptz + interval '1800 seconds'
         window w as (partition by vehicle_id, metric, source order by observed_at)),
       i as (
         select vehicle_id, metric, source, extract(epoch from b - a) as len, vb - va as d,
                extract(epoch from least(b, $4::timestamptz) - greatest(a, $3::timestamptz)) as inside
           from o where a is not null),
       v as (
         select vehicle_id, metric, source, len, inside,
                case when metric = 'odometer' then d else least(d, len) end as amount
           from i
          where len <= 1800 and d >= 0
            and d <= case when metric = 'odometer' then len * 90 + 500 else len + 360 end
            and inside > 0),
       per as (
         select s.vehicle_id, s.metric, s.source, s.samples,
                coalesce(sum(v.amount * v.inside / v.len), 0) as value,
                coalesce(sum(v.inside), 0) as coverage,
                coalesce(sum((v.len - v.amount) * v.inside / v.len), 0) as not_running
           from (select vehicle_id, metric, source, count(*) filter (where b >= $3::timestamptz and b < $4::timestamptz) as samples
                   from o group by 1, 2, 3) s
           left join v on v.vehicle_id = s.vehicle_id and v.metric = s.metric and v.source = s.source
          group by 1, 2, 3, 4)
       select distinct on (vehicle_id, metric) vehicle_id, metric, value, coverage, not_running
         from per order by vehicle_id, metric, coverage desc, samples desc, source`,
    approved: `select config->'approvedVehicleIds' as approved_vehicle_ids from ${t('connection_config')} where connection_id = $1::uuid`,
  };
}

const fail = (res, status, code) => send(res, status, { error: code });

/** The Utilization figures of one vehicle from its two best series (see the header). */
function utilization(vehicleId, rows, windowSeconds) {
  const counter = (row, value) => {
    if (!row || row.coverage === 0) return { status: row ? 'insufficient_data' : 'missing', value: null, coverageSeconds: 0 };
    return { status: row.coverage < windowSeconds ? 'partial' : 'complete', value: r3(value), coverageSeconds: r3(row.coverage) };
  };
  const odometer = rows.find((r) => r.metric === 'odometer');
  const engine = rows.find((r) => r.metric === 'engineHours');
  const engineRuntime = counter(engine, engine?.value);
  const percent = engineRuntime.value === null || engineRuntime.coverageSeconds === 0 ? null : r3(Math.min(100, (engineRuntime.value / engineRuntime.coverageSeconds) * 100));
  return {
    vehicleId,
    distance: counter(odometer, odometer?.value),
    engineRuntime,
    engineNotRunning: { value: engine && engine.coverage > 0 ? r3(engine.not_running) : null },
    engineOnPercentOfObservedTime: percent,
  };
}

export async function start(fixture) {
  const pool = new pg.Pool({ connectionString: fixture.databaseUrl, max: POOL_MAX });
  pg.types.setTypeParser(pg.types.builtins.NUMERIC, Number);
  const sql = queries(fixture.schemas['telemetry-ingest'], fixture.schemas.gateway.replaceAll('"', '""'));

  async function authorized(req, res, connectionId) {
    const key = consumerKeyFrom(req.headers.authorization);
    if (!key) return fail(res, 401, 'unauthorized');
    const valid = UUID.test(connectionId);
    const row = (await pool.query(sql.consumerKey, [valid ? connectionId : null, key.lookupId])).rows[0];
    if (!row || !matches(key.token, row.secret_hash) || row.revoked) return fail(res, 401, 'unauthorized');
    if (!valid || !row.permissions?.includes('read')) return fail(res, 404, 'not_found');
    return true;
  }

  const windowOf = (query) => {
    const [start, end] = [Date.parse(query.get('startTime') ?? ''), Date.parse(query.get('endTime') ?? '')];
    if (Number.isNaN(start) || Number.isNaN(end) || start >= end) return undefined;
    return { startTime: new Date(start).toISOString(), endTime: new Date(end).toISOString(), seconds: (end - start) / 1000 };
  };

  async function figures(connectionId, vehicleIds, window) {
    const rows = (await pool.query(sql.figures, [connectionId, vehicleIds, window.startTime, window.endTime])).rows.map((r) => ({ ...r, value: Number(r.value), coverage: Number(r.coverage), not_running: Number(r.not_running) }));
    return vehicleIds.map((id) => ({ ...utilization(id, rows.filter((r) => r.vehicle_id === id), window.seconds), window: { startTime: window.startTime, endTime: window.endTime } }));
  }

  let logged = false;
  /** The first answer goes to the child's log (bench/results/logs/<scenario>-baseline.log), so a run shows the figures both sides agreed on. */
  const sendOnce = (res, body) => {
    if (!logged) {
      logged = true;
      console.log(`first answer: ${JSON.stringify(body).slice(0, 600)}`);
    }
    return send(res, 200, body);
  };

  async function handle(req, res) {
    const url = req.method === 'GET' ? (req.url ?? '') : '';
    const one = VEHICLE.exec(url);
    const fleet = one ? null : FLEET.exec(url);
    if (!one && !fleet) return fail(res, 404, 'not_found');
    const connectionId = decodeURIComponent((one ?? fleet)[1]);
    if ((await authorized(req, res, connectionId)) !== true) return;
    const query = new URLSearchParams((one ? one[3] : fleet[2]) ?? '');
    const window = windowOf(query);
    if (!window) return fail(res, 400, 'invalid_query');
    if (one) {
      const [u] = await figures(connectionId, [decodeURIComponent(one[2])], window);
      return sendOnce(res, u);
    }
    const limit = Number(query.get('limit') ?? 25);
    const approved = (await pool.query(sql.approved, [connectionId])).rows[0]?.approved_vehicle_ids ?? [];
    const ids = approved.map((sourceId) => vehicleId({ connectionId, provider: 'samsara', sourceId })).sort();
    const page = ids.slice(0, limit);
    return sendOnce(res, { window: { startTime: window.startTime, endTime: window.endTime }, vehicles: await figures(connectionId, page, window), nextCursor: ids.length > limit ? 'more' : null });
  }

  return serveOnLoopback('usage baseline', handle, (res) => fail(res, 500, 'internal_error'), () => pool.end());
}
