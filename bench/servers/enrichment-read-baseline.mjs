/**
 * The bare `node:http` + `pg` baseline of the vehicle-profile scenario: the consumer-key + grant
 * lookup and token check of connection-read-baseline.mjs (`read`), then ONE statement over `pg`
 * (pool of 10) on the enrichment schema doing the same primary-key reads as apps/enrichment
 * ProfileReadService (the vehicle by id and connection, the connection's hidden set, the four
 * product rows) and building the VehicleProfile JSON in SQL. No Nest, no MikroORM, no zod, no
 * NATS, no logging, no metrics.
 */
import pg from 'pg';
import { consumerKeyFrom, matches, send, serveOnLoopback } from './connection-read-baseline.mjs';

const POOL_MAX = 10;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const VEHICLE_ID = /^vcl_[0-9A-Za-z]{26}$/;
const PROFILE = /^\/v1\/connections\/([^/?#]+)\/vehicles\/([^/?#]+)\/profile\/?$/;
const iso = (column) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const PRODUCTS = ['identity', 'images', 'specifications', 'build'];

function queries(schema, gateway) {
  const t = (table) => `"${schema.replaceAll('"', '""')}"."${table}"`;
  const value = (product) => `(select jsonb_build_object('status', p.status, 'data', p.data, 'source', p.source, 'adapterVersion', p.adapter_version, 'fetchedAt', ${iso('p.fetched_at')}, 'errorCode', p.error_code)
      from ${t('enrichment_product')} p where p.vehicle_id = v.vehicle_id and p.product = '${product}')`;
  return {
    consumerKey: `select k.secret_hash, k.revoked_at is not null as revoked, g.permissions
         from "${gateway}"."consumer_key" k
         left join "${gateway}"."consumer_grant" g on g.consumer_key_id = k.id and g.connection_id = $1::uuid
        where k.lookup_id = $2`,
    profile: `select jsonb_build_object('vehicleId', v.vehicle_id, 'vin', v.vin, ${PRODUCTS.map((p) => `'${p}', ${value(p)}`).join(', ')}) as body,
         (select hidden from ${t('vehicle_visibility')} where connection_id = $1::uuid) as hidden
       from ${t('enrichment_vehicle')} v where v.vehicle_id = $2 and v.connection_id = $1::uuid`,
  };
}

const fail = (res, status, code) => send(res, status, { error: code });

export async function start(fixture) {
  const pool = new pg.Pool({ connectionString: fixture.databaseUrl, max: POOL_MAX });
  const sql = queries(fixture.schemas.enrichment, fixture.schemas.gateway.replaceAll('"', '""'));

  async function handle(req, res) {
    const match = req.method === 'GET' ? PROFILE.exec(req.url ?? '') : null;
    if (!match) return fail(res, 404, 'not_found');
    const connectionId = decodeURIComponent(match[1]);
    const key = consumerKeyFrom(req.headers.authorization);
    if (!key) return fail(res, 401, 'unauthorized');
    const valid = UUID.test(connectionId);
    const row = (await pool.query(sql.consumerKey, [valid ? connectionId : null, key.lookupId])).rows[0];
    if (!row || !matches(key.token, row.secret_hash) || row.revoked) return fail(res, 401, 'unauthorized');
    if (!valid || !row.permissions?.includes('read')) return fail(res, 404, 'not_found');
    const vehicleId = decodeURIComponent(match[2]);
    if (!VEHICLE_ID.test(vehicleId)) return fail(res, 400, 'invalid_path');
    const found = (await pool.query(sql.profile, [connectionId, vehicleId])).rows[0];
    if (!found || found.hidden === null || found.hidden === undefined || found.hidden.some((h) => h.vehicleId === vehicleId)) return fail(res, 404, 'not_found');
    return send(res, 200, found.body);
  }

  return serveOnLoopback('enrichment baseline', handle, (res) => fail(res, 500, 'internal_error'), () => pool.end());
}
