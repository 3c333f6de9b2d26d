/**
 * The bare `node:http` + `pg` baseline of the telemetry read scenarios (telemetry-read,
 * locations-page, history-page): the consumer-key + grant lookup and token check of
 * connection-read-baseline.mjs (`read`; `history` for history), then ONE statement per read over
 * `pg` (pool of 10) on the telemetry-ingest schema that does the same primary-key lookups as
 * apps/telemetry-ingest (configuration, hidden set, latest readings or the observations range,
 * fault observation) and builds the response JSON in SQL: each metric's status from its age and the
 * catalog's freshnessSeconds, `units` only when converted, `missing` with `reading: null` for none.
 * The history and locations pages take limit + 1 rows for `hasMore`; a cursor is an HMAC-signed
 * {h, p} (signCursor: the same kind of work as the gateway's, not the same bytes).
 * Simplifications, valid for the seeded fixture (lib/telemetry-seed.mjs): the connection has no
 * include/exclude lists or status filter and no extended-telemetry opt-in, so the baseline checks
 * that the configuration exists and the vehicle has stored readings, and serves location and
 * odometer only; it does not evaluate visibility rules or optional-metric coverage.
 * No Nest, no MikroORM, no zod, no logging, no metrics.
 */
import pg from 'pg';
import { TELEMETRY_FRESHNESS_S } from '@switchyard/contracts';
import { consumerKeyFrom, matches, send, serveOnLoopback } from './connection-read-baseline.mjs';
import { signCursor } from './stored-read-baseline.mjs';

const POOL_MAX = 10;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const VEHICLE_ID = /^vcl_[0-9A-Za-z]{26}$/;
const TELEMETRY = /^\/v1\/connections\/([^/?#]+)\/vehicles\/([^/?#]+)\/telemetry\/?$/;
const HISTORY = /^\/v1\/connections\/([^/?#]+)\/vehicles\/([^/?#]+)\/history\/?(?:\?(.*))?$/;
const LOCATIONS = /^\/v1\/connections\/([^/?#]+)\/locations\/?(?:\?(.*))?$/;
const iso = (column) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const freshness = `(values ${Object.entries(TELEMETRY_FRESHNESS_S)
  .map(([m, s]) => `('${m}', ${s})`)
  .join(', ')}) as f(metric, seconds)`;
const MISSING = `'{"status": "missing", "reading": null}'::jsonb`;
/** The status object of the latest row `l` (joined with `f`), as telemetry-read.service.ts metricStatus. */
const statusJson = (l) => `jsonb_build_object(
  'status', case when ${l}.observed_at < now() - make_interval(secs => f.seconds) then 'stale' else 'available' end,
  'reading', jsonb_build_object('value', ${l}.value, 'source', ${l}.source, 'observedAt', ${iso(`${l}.observed_at`)}, 'fetchedAt', ${iso(`${l}.fetched_at`)})
    || case when ${l}.units->>'source' in ('kilometers', 'miles', 'milliseconds', 'hours') then jsonb_build_object('units', ${l}.units) else '{}'::jsonb end)`;

function queries(schema) {
  const t = (table) => `"${schema.replaceAll('"', '""')}"."${table}"`;
  return {
    consumerKey: (gateway) => `select k.secret_hash, k.revoked_at is not null as revoked, g.permissions
         from "${gateway}"."consumer_key" k
         left join "${gateway}"."consumer_grant" g on g.consumer_key_id = k.id and g.connection_id = $1::uuid
        where k.lookup_id = $2`,
    telemetry: `with r as (
         select l.metric, ${statusJson('l')} as s from ${t('latest_readings')} l join ${freshness} on f.metric = l.metric
          where l.connection_id = $1::uuid and l.vehicle_id = $2)
       select case when exists (select 1 from ${t('connection_config')} where connection_id = $1::uuid) and exists (select 1 from r) then jsonb_build_object(
         'vehicleId', $2::text,
         'location', coalesce((select s from r where metric = 'location'), ${MISSING}),
         'odometer', coalesce((select s from r where metric = 'odometer'), ${MISSING}),
         'faultsObservedAt', (select ${iso('observed_at')} from ${t('vehicle_fault_observation')} where connection_id = $1::uuid and vehicle_id = $2)) end as body,
         (select hidden from ${t('vehicle_visibility')} where connection_id = $1::uuid) as hidden`,
    locations: `with v as (
         select vehicle_id, row_number() over (order by vehicle_id) as rn from ${t('latest_readings')}
          where connection_id = $1::uuid group by vehicle_id order by vehicle_id limit $2 + 1)
       select exists (select 1 from ${t('connection_config')} where connection_id = $1::uuid) as configured,
         coalesce(jsonb_agg(jsonb_build_object('vehicleId', v.vehicle_id, 'location', coalesce(${statusJson('l')}, ${MISSING})) order by v.vehicle_id) filter (where v.rn <= $2), '[]'::jsonb) as locations,
         count(*) > $2 as has_more, max(v.vehicle_id) filter (where v.rn = $2) as last,
         pg_current_snapshot()::text as horizon
       from v left join ${t('latest_readings')} l on l.connection_id = $1::uuid and l.vehicle_id = v.vehicle_id and l.metric = 'location'
       left join ${freshness} on f.metric = 'location'`,
    history: `with p as (
         select seq, source, observed_at, fetched_at, value, units, row_number() over (order by observed_at, source) as rn
           from ${t('observations')}
          where connection_id = $1::uuid and vehicle_id = $2 and metric = $3 and observed_at >= $4::timestamptz and observed_at < $5::timestamptz
            and pg_visible_in_snapshot(created_xid::text::xid8, pg_current_snapshot())
          order by observed_at, source limit $6 + 1)
       select exists (select 1 from ${t('connection_config')} where connection_id = $1::uuid)
              and exists (select 1 from ${t('latest_readings')} where connection_id = $1::uuid and vehicle_id = $2) as known,
         coalesce(jsonb_agg(jsonb_build_object('sequence', p.seq::text, 'metric', $3::text, 'source', p.source, 'observed_at', ${iso('p.observed_at')}, 'fetched_at', ${iso('p.fetched_at')}, 'value', p.value,
           'units', case when p.units->>'source' in ('kilometers', 'miles', 'milliseconds', 'hours') then p.units end) order by p.rn) filter (where p.rn <= $6), '[]'::jsonb) as readings,
         count(*) > $6 as has_more, pg_current_snapshot()::text as horizon,
         (array_agg(jsonb_build_object('observedAt', to_char(p.observed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), 'source', p.source) order by p.rn desc) filter (where p.rn <= $6))[1] as last
       from p`,
  };
}

const fail = (res, status, code) => send(res, status, { error: code });

export async function start(fixture) {
  const pool = new pg.Pool({ connectionString: fixture.databaseUrl, max: POOL_MAX });
  const sql = queries(fixture.schemas['telemetry-ingest']);
  const keySql = sql.consumerKey(fixture.schemas.gateway.replaceAll('"', '""'));

  async function authorized(req, res, connectionId, permission) {
    const key = consumerKeyFrom(req.headers.authorization);
    if (!key) return fail(res, 401, 'unauthorized');
    const valid = UUID.test(connectionId);
    const row = (await pool.query(keySql, [valid ? connectionId : null, key.lookupId])).rows[0];
    if (!row || !matches(key.token, row.secret_hash) || row.revoked) return fail(res, 401, 'unauthorized');
    if (!valid || !row.permissions?.includes(permission)) return fail(res, 404, 'not_found');
    return true;
  }

  async function telemetry(res, connectionId, vehicleId) {
    if (!VEHICLE_ID.test(vehicleId)) return fail(res, 400, 'invalid_path');
    const row = (await pool.query(sql.telemetry, [connectionId, vehicleId])).rows[0];
    const hidden = (row?.hidden ?? []).some((h) => h.vehicleId === vehicleId);
    return row?.body && !hidden ? send(res, 200, row.body) : fail(res, 404, 'not_found');
  }

  async function locations(res, connectionId, query) {
    const limit = Number(query.get('limit') ?? 100);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return fail(res, 400, 'invalid_query');
    const row = (await pool.query(sql.locations, [connectionId, limit])).rows[0];
    if (!row.configured) return send(res, 200, { locations: [], nextCursor: null, retrieval: 'stored' });
    const nextCursor = row.has_more ? signCursor(fixture.cursorSecret, { h: row.horizon, p: row.last }) : null;
    return send(res, 200, { locations: row.locations, nextCursor, retrieval: 'stored' });
  }

  async function history(res, connectionId, vehicleId, query) {
    if (!VEHICLE_ID.test(vehicleId)) return fail(res, 400, 'invalid_path');
    const metric = query.get('metric');
    if (metric !== 'odometer' && metric !== 'location') return fail(res, 400, 'unknown_metric');
    const [start, end] = [Date.parse(query.get('startTime') ?? ''), Date.parse(query.get('endTime') ?? '')];
    if (Number.isNaN(start) || Number.isNaN(end)) return fail(res, 400, 'invalid_query');
    if (start >= end) return fail(res, 400, 'reversed_window');
    const limit = Number(query.get('limit') ?? 500);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return fail(res, 400, 'invalid_query');
    const window = { startTime: new Date(start).toISOString(), endTime: new Date(end).toISOString() };
    const row = (await pool.query(sql.history, [connectionId, vehicleId, metric, window.startTime, window.endTime, limit])).rows[0];
    if (!row.known) return fail(res, 404, 'not_found');
    const nextCursor = signCursor(fixture.cursorSecret, { ...(row.has_more ? { h: row.horizon } : {}), ...(row.last ? { p: row.last } : {}), v: vehicleId, m: metric, ...window });
    return send(res, 200, { vehicleId, window, readings: row.readings, nextCursor, hasMore: row.has_more });
  }

  async function handle(req, res) {
    const url = req.method === 'GET' ? (req.url ?? '') : '';
    const t = TELEMETRY.exec(url);
    const h = t ? null : HISTORY.exec(url);
    const l = t || h ? null : LOCATIONS.exec(url);
    const match = t ?? h ?? l;
    if (!match) return fail(res, 404, 'not_found');
    const connectionId = decodeURIComponent(match[1]);
    if ((await authorized(req, res, connectionId, h ? 'history' : 'read')) !== true) return;
    if (t) return telemetry(res, connectionId, decodeURIComponent(t[2]));
    if (h) return history(res, connectionId, decodeURIComponent(h[2]), new URLSearchParams(h[3] ?? ''));
    return locations(res, connectionId, new URLSearchParams(l[2] ?? ''));
  }

  return serveOnLoopback('telemetry-read baseline', handle, (res) => fail(res, 500, 'internal_error'), () => pool.end());
}
