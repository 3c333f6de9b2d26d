/**
 * The bare `node:http` + `pg` baseline of the fault-events-page scenario: the consumer-key + grant
 * lookup and token check of connection-read-baseline.mjs (`read`), the durable cursor decoded and
 * the next one encoded with the same codec as the gateway (libs/contracts cursor.ts, bound to the
 * route and connection, no expiry: apps/gateway services/fault-cursor.ts), then ONE keyset statement
 * on the fault-feed schema (`fault_transition_sequence_unique`, joined to the occurrence for the
 * vehicle, the hidden set and the retention horizon read in the same statement) that builds the
 * events JSON in SQL with limit + 1 rows for `hasMore`. Only `?limit` and `?cursor` are read.
 * No Nest, no MikroORM, no zod, no NATS, no logging, no metrics.
 */
import pg from 'pg';
import { decodeCursor, encodeCursor } from '@switchyard/contracts';
import { consumerKeyFrom, matches, send, serveOnLoopback } from './connection-read-baseline.mjs';

const POOL_MAX = 10;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const EVENTS = /^\/v1\/connections\/([^/?#]+)\/fault-events\/?(?:\?(.*))?$/;
const ROUTE = 'GET /v1/connections/{id}/fault-events';
const iso = (column) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

function queries(faults, gateway) {
  const t = (table) => `"${faults.replaceAll('"', '""')}"."${table}"`;
  return {
    consumerKey: `select k.secret_hash, k.revoked_at is not null as revoked, g.permissions
         from "${gateway.replaceAll('"', '""')}"."consumer_key" k
         left join "${gateway.replaceAll('"', '""')}"."consumer_grant" g on g.consumer_key_id = k.id and g.connection_id = $1::uuid
        where k.lookup_id = $2`,
    events: `with retention as (
         select coalesce((select pruned_through from ${t('fault_retention')} where connection_id = $1::uuid), 0) as pruned),
       hidden as (
         select h->>'vehicleId' as vehicle_id from ${t('vehicle_visibility')} v cross join jsonb_array_elements(v.hidden) h where v.connection_id = $1::uuid),
       page as (
         select t.id, t.sequence, t.occurrence_id, o.vehicle_id, t.kind, t.observed_at, t.bootstrap,
                exists (select 1 from hidden h where h.vehicle_id = o.vehicle_id) as hidden,
                row_number() over (order by t.sequence) as rn
           from ${t('fault_transition')} t join ${t('fault_occurrence')} o on o.id = t.occurrence_id
          where t.connection_id = $1::uuid and t.sequence > coalesce($2::bigint, (select pruned from retention))
          order by t.sequence limit $3 + 1)
       select (select pruned from retention) as pruned,
         coalesce(jsonb_agg(jsonb_build_object('id', id, 'sequence', sequence, 'connection_id', $1::uuid, 'occurrence_id', occurrence_id, 'vehicle_id', vehicle_id,
           'kind', kind, 'observed_at', ${iso('observed_at')}, 'bootstrap', bootstrap) order by sequence) filter (where rn <= $3 and not hidden), '[]'::jsonb) as events,
         max(sequence) filter (where rn <= $3) as last, count(*) > $3 as has_more
       from page`,
  };
}

const fail = (res, status, code) => send(res, status, { error: code });

export async function start(fixture) {
  const pool = new pg.Pool({ connectionString: fixture.databaseUrl, max: POOL_MAX });
  const sql = queries(fixture.schemas['fault-feed'], fixture.schemas.gateway);
  const keys = { secret: fixture.cursorSecret };

  async function handle(req, res) {
    const match = req.method === 'GET' ? EVENTS.exec(req.url ?? '') : null;
    if (!match) return fail(res, 404, 'not_found');
    const connectionId = decodeURIComponent(match[1]);
    const key = consumerKeyFrom(req.headers.authorization);
    if (!key) return fail(res, 401, 'unauthorized');
    const valid = UUID.test(connectionId);
    const row = (await pool.query(sql.consumerKey, [valid ? connectionId : null, key.lookupId])).rows[0];
    if (!row || !matches(key.token, row.secret_hash) || row.revoked) return fail(res, 401, 'unauthorized');
    if (!valid || !row.permissions?.includes('read')) return fail(res, 404, 'not_found');
    const query = new URLSearchParams(match[2] ?? '');
    const limit = Number(query.get('limit') ?? 100);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return fail(res, 400, 'invalid_query');
    const binding = { route: ROUTE, connectionId };
    let after = null;
    if (query.has('cursor')) {
      const decoded = decodeCursor(query.get('cursor'), binding, { ...keys, now: Date.now() });
      if (!decoded.ok || typeof decoded.payload?.s !== 'string') return fail(res, 400, 'invalid_cursor');
      after = decoded.payload.s;
    }
    const page = (await pool.query(sql.events, [connectionId, after, limit])).rows[0];
    if (after !== null && BigInt(after) < BigInt(page.pruned)) return fail(res, 400, 'cursor_beyond_retention');
    const last = String(page.last ?? after ?? page.pruned);
    return send(res, 200, { events: page.events.map((e) => ({ ...e, sequence: Number(e.sequence) })), nextCursor: encodeCursor({ s: last }, binding, { ...keys, now: Date.now() }), hasMore: page.has_more });
  }

  return serveOnLoopback('fault-feed baseline', handle, (res) => fail(res, 500, 'internal_error'), () => pool.end());
}
