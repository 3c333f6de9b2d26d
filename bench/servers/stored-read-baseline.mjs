/**
 * Bare `node:http` servers for the stored-read scenarios (trips-page, vehicle-read), chosen by the
 * module URL's `?via=`:
 * - `via=sql` (the **baseline**): consumer-key + grant lookup and token check (the SQL and rules of
 *   connection-read-baseline.mjs), then the directory's own statements run here over `pg` (pool of
 *   10): for a trips page the horizon snapshot, the dataset status, the completed-units count, the
 *   connection's configuration and the frame page whose trips PostgreSQL renders — the statement
 *   TripsReadRepository.pageRows and service-kit frameSql build, exported for this (MikroORM's `?`
 *   → `$n` bind parameters); for one vehicle the statement of VehiclesReadRepository.entity, the
 *   configuration and the groups dataset status (vehicles-read.service.ts `get`); the dataset
 *   status by the directory's `deriveDatasetStatus`. The body text goes out as PostgreSQL rendered
 *   it inside the gateway's page frame; a trips page's `next` is an HMAC-signed {h, p} (the
 *   gateway's cursor also binds key, route and filters and carries an expiry: same kind of work,
 *   not the same bytes).
 *   No Nest, no MikroORM, no zod, no logging, no metrics.
 * - `via=nats` (the **hop** side): the same authentication over `pg`, then the directory's RPC
 *   (`directory.read.trips.list` / `directory.read.vehicles.get`) over NATS to the directory
 *   child process, exactly the payload the gateway's controller sends, and the same frame. Against
 *   the baseline it adds the NATS round trip plus the directory service's own path (serveRpc, zod
 *   on both ends, MikroORM); against the gateway it lacks only the gateway's framework.
 * Visibility: the baseline reads the connection's configuration (no configuration → empty page /
 * 404) and hands its lists to the statements, as the directory does.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';
import { consumerKeyFrom, listenOnLoopback, matches, send } from './connection-read-baseline.mjs';

const VIA = new URL(import.meta.url).searchParams.get('via');
const POOL_MAX = 10;
/** Results byte budget: the 4 MiB response limit less the frame (read-query.ts resultsByteBudget); a 100-trip page is ~40 KB, far below. */
const MAX_BYTES = 4_194_304 - 16_384;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const TRIPS = /^\/v1\/connections\/([^/?#]+)\/trips\/?(?:\?(.*))?$/;
const VEHICLE = /^\/v1\/connections\/([^/?#]+)\/vehicles\/([^/?#]+)\/?(?:\?.*)?$/;
const VEHICLE_ID = /^vcl_[0-9A-Za-z]{26}$/;
const iso = (column) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** `"schema"."table"`: the directory's `tableNamer` for a schema. */
const namer = (schema) => (table) => `"${schema.replaceAll('"', '""')}"."${table}"`;

/** MikroORM's `?` placeholders as pg's `$n` (the directory's statements spell a literal `?` as chr(63)). */
const numbered = (sql) => {
  let n = 0;
  return sql.replaceAll('?', () => `$${++n}`);
};

function queries(schemas) {
  const q = namer;
  const g = q(schemas.gateway);
  const t = q(schemas.directory);
  return {
    consumerKey: `select k.id, k.secret_hash, k.revoked_at is not null as revoked, k.credential_version, g.permissions
         from ${g('consumer_key')} k
         left join ${g('consumer_grant')} g on g.consumer_key_id = k.id and g.connection_id = $1::uuid
        where k.lookup_id = $2`,
    horizon: 'select pg_current_snapshot()::text as snapshot',
    datasetStatus: `select ${iso('p.last_fetched_at')} as fetched_at, ${iso('p.last_final_at')} as captured_at, ${iso('p.published_at')} as published_at,
              coalesce(h.last_failure_at > h.last_success_at or (h.last_failure_at is not null and h.last_success_at is null), false) as failing,
              h.last_error_code as error_code
         from (select 1) as one
         left join ${t('connection_publication')} p on p.connection_id = $1::uuid and p.kind = $2
         left join ${t('dataset_health')} h on h.connection_id = $1::uuid and h.dataset = $2 and h.scope = 'core'`,
    completedUnits: `select count(distinct unit_id)::int as n from ${t('ingest_batch')}
        where connection_id = $1::uuid and kind = 'trips' and status = 'committed' and (receipt->>'final')::boolean`,
    config: `select config from ${t('connection_config')} where connection_id = $1::uuid`,
  };
}

const fail = (res, status, code) => send(res, status, { error: code });

const pageStatus = (s) => (s.status === 'stale' ? { ...s, status: 'available' } : s);

/** The gateway's TripPage frame (trips.controller.ts list) around a directory ListTrips reply whose trips are JSON text. */
function tripPage(reply, secret) {
  const { dataset, coverage } = reply;
  const next = reply.hasMore && reply.next ? signCursor(secret, { h: reply.horizon, p: reply.next }) : undefined;
  const head = JSON.stringify({ status: dataset.status, retrieval: 'stored' }).slice(0, -1);
  const tail = JSON.stringify({ ...(next ? { next } : {}), coverage, publishedAt: dataset.publishedAt, errorCode: dataset.errorCode }).slice(1);
  return `${head},"results":${reply.items},${tail}`;
}

/** A JSON body already rendered as text. */
function sendText(res, status, text) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** HMAC-SHA256 over base64url JSON: the stand-in for the gateway's signed cursor (same kind of work). */
export function signCursor(secret, value) {
  const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${payload}.${createHmac('sha256', secret).update(payload).digest('base64url')}`;
}

/** TripsReadService.list and VehiclesReadService.get over bare pg, with the directory's own statements. */
function sqlDirectory(pool, sql, schemas, directory) {
  const t = namer(schemas.directory);
  const status = async (connectionId, kind) => directory.deriveDatasetStatus((await pool.query(sql.datasetStatus, [connectionId, kind])).rows[0], Date.now());
  const rulesOf = async (connectionId) => (await pool.query(sql.config, [connectionId])).rows[0]?.config;
  return {
    async trips(connectionId, limit) {
      const horizon = (await pool.query(sql.horizon)).rows[0].snapshot;
      const [dataset, units, rules] = await Promise.all([status(connectionId, 'trips'), pool.query(sql.completedUnits, [connectionId]), rulesOf(connectionId)]);
      const coverage = { completedUnits: units.rows[0]?.n ?? 0, selection: 'completed_trips_started_in_window', completeness: 'not_established' };
      if (!rules) return { dataset: pageStatus(dataset), horizon, hasMore: false, items: '[]', coverage };
      const rows = directory.TripsReadRepository.pageRows(t, { connectionId, horizon, vehicleIds: [], driverIds: [] }, { rules, expand: { vehicle: false, driver: false }, directoryFetchedAt: null });
      const frame = directory.frameSql(rows, { limit, maxBytes: MAX_BYTES });
      const page = directory.framedPageOf((await pool.query(numbered(frame.sql), frame.params)).rows[0]);
      return { dataset: pageStatus(dataset), horizon, hasMore: page.hasMore, items: page.items, coverage, ...(page.hasMore ? { next: page.last } : {}) };
    },
    async vehicle(connectionId, vehicleId) {
      const [rules, groups] = await Promise.all([rulesOf(connectionId), status(connectionId, 'groups')]);
      if (!rules) return undefined;
      const statement = directory.VehiclesReadRepository.entityStatement(t, connectionId, vehicleId, { rules, expandGroups: false, directoryFetchedAt: groups.fetchedAt });
      return (await pool.query(numbered(statement.sql), statement.params)).rows[0]?.body;
    },
  };
}

/** The JSON text of a framed reply's body (libs/messaging framed-reply.ts). */
const bodyOf = (reply) => Buffer.from(reply.body).toString('utf8');

/** The same two reads as the gateway asks them of the directory over NATS (framed replies; the body text forwarded). */
function natsDirectory(bus, rpcs) {
  return {
    async trips(connectionId, limit) {
      const reply = await bus.request(rpcs.trips.list, { connectionId, limit, maxBytes: MAX_BYTES, vehicleIds: [], driverIds: [], expand: { vehicle: false, driver: false } });
      return { ...reply.meta, items: bodyOf(reply) };
    },
    async vehicle(connectionId, vehicleId) {
      try {
        return bodyOf(await bus.request(rpcs.vehicles.get, { connectionId, vehicleId, expand: { groups: false } }));
      } catch (error) {
        if (error?.code === 'not_found') return undefined;
        throw error;
      }
    },
  };
}

async function directoryFor(fixture, pool) {
  if (VIA === 'sql') {
    const { TripsReadRepository, VehiclesReadRepository, deriveDatasetStatus } = await import('@switchyard/directory');
    const { frameSql, framedPageOf } = await import('@switchyard/service-kit');
    const directory = { TripsReadRepository, VehiclesReadRepository, deriveDatasetStatus, frameSql, framedPageOf };
    return { directory: sqlDirectory(pool, queries(fixture.schemas), fixture.schemas, directory), close: async () => undefined };
  }
  if (VIA === 'nats') {
    const { createBus, RPCS } = await import('@switchyard/messaging');
    const bus = await createBus({ kind: 'jetstream', servers: fixture.natsUrl, name: 'bench-read-hop', namespace: fixture.namespace });
    return { directory: natsDirectory(bus, { trips: RPCS.directory.trips, vehicles: RPCS.directory.vehicles }), close: () => bus.close() };
  }
  throw new Error(`unknown via "${VIA}" (use ?via=sql|nats)`);
}

export async function start(fixture) {
  const pool = new pg.Pool({ connectionString: fixture.databaseUrl, max: POOL_MAX });
  const sql = queries(fixture.schemas);
  const { directory, close } = await directoryFor(fixture, pool);

  async function authorized(req, res, connectionId) {
    const key = consumerKeyFrom(req.headers.authorization);
    if (!key) return fail(res, 401, 'unauthorized');
    const valid = UUID.test(connectionId);
    const row = (await pool.query(sql.consumerKey, [valid ? connectionId : null, key.lookupId])).rows[0];
    if (!row || !matches(key.token, row.secret_hash) || row.revoked) return fail(res, 401, 'unauthorized');
    if (!valid || !row.permissions?.includes('read')) return fail(res, 404, 'not_found');
    return true;
  }

  async function handle(req, res) {
    const url = req.method === 'GET' ? (req.url ?? '') : '';
    const trips = TRIPS.exec(url);
    const vehicle = trips ? null : VEHICLE.exec(url);
    if (!trips && !vehicle) return fail(res, 404, 'not_found');
    const connectionId = decodeURIComponent((trips ?? vehicle)[1]);
    if ((await authorized(req, res, connectionId)) !== true) return;
    if (trips) {
      const limit = Number(new URLSearchParams(trips[2] ?? '').get('limit') ?? 100);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return fail(res, 400, 'invalid_query');
      return sendText(res, 200, tripPage(await directory.trips(connectionId, limit), fixture.cursorSecret));
    }
    const vehicleId = decodeURIComponent(vehicle[2]);
    if (!VEHICLE_ID.test(vehicleId)) return fail(res, 400, 'invalid_path');
    const found = await directory.vehicle(connectionId, vehicleId);
    return found ? sendText(res, 200, found) : fail(res, 404, 'not_found');
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error) => {
      console.error('stored-read server request failed:', error.message);
      // As the gateway's error filter: a slow or absent context is 503, anything else 500.
      const unavailable = error?.name === 'BusTimeoutError' || error?.name === 'BusUnavailableError';
      if (!res.headersSent) fail(res, unavailable ? 503 : 500, unavailable ? 'service_unavailable' : 'internal_error');
      else res.destroy();
    });
  });
  const listening = await listenOnLoopback(server);
  return {
    url: listening.url,
    async close() {
      await listening.close();
      await close();
      await pool.end();
    },
  };
}
