/**
 * Baseline for the connection-read scenario: bare `node:http` + `pg`, doing the same work as the
 * gateway's `GET /v1/connections/{id}` and nothing else — parse the `pt_` bearer token, one
 * consumer-key + grant lookup, SHA-256 of the token compared with `timingSafeEqual`, the `read`
 * permission check, one connection read, `JSON.stringify` of the same fields. No framework, no
 * logging, no metrics, no request ids: the gap to the gateway is what those cost.
 *
 * The SQL is copied from apps/gateway/src/db/repositories/auth.repository.ts (`consumerKey`) and
 * connection.repository.ts (`findById`, with `isoSql` from sql.ts expanded), schema-qualified the
 * same way. One difference is inherent: MikroORM inlines the escaped parameters and sends a simple
 * query, here they travel as `$n` bind parameters (unnamed statements, no prepared-statement cache).
 * The pool has 10 connections, MikroORM's default in libs/persistence (createOrm poolMax).
 * The token rules are copied from apps/gateway/src/services/credential-format.ts and the status
 * rules from auth/auth.service.ts; error bodies are simplified (the benchmark checks only their status).
 * The token parsing, hash check, `send`, `serveOnLoopback` and `listenOnLoopback` are exported for the other bare servers.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';

const POOL_MAX = 10;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const KEY_BODY = /^[0-9A-Za-z]{52}$/; // 12 lookup + 40 secret base62 chars
const ROUTE = /^\/v1\/connections\/([^/?#]+)\/?(?:\?.*)?$/;
const iso = (column) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

function queries(schema) {
  const t = (table) => `"${schema.replaceAll('"', '""')}"."${table}"`;
  return {
    consumerKey: `select k.id, k.secret_hash, k.revoked_at is not null as revoked, k.credential_version, g.permissions
         from ${t('consumer_key')} k
         left join ${t('consumer_grant')} g on g.consumer_key_id = k.id and g.connection_id = $1::uuid
        where k.lookup_id = $2`,
    connection: `select id, customer_id, provider, environment, config->>'status' as status,
              ${iso('last_success_at')} as last_success_at, last_error_code,
              ${iso('extended_last_success_at')} as extended_last_success_at, extended_last_error_code,
              ${iso('extended_next_retry_at')} as extended_next_retry_at
         from ${t('connection')} where id = $1::uuid`,
  };
}

/** `Bearer pt_…` → `{ token, lookupId }`, anything else undefined (→ 401). */
export function consumerKeyFrom(header) {
  if (typeof header !== 'string') return undefined;
  const token = /^Bearer ([^\s]+)$/i.exec(header.trim())?.[1];
  if (!token || token.length > 128 || !token.startsWith('pt_')) return undefined;
  const body = token.slice(3);
  return KEY_BODY.test(body) ? { token, lookupId: body.slice(0, 12) } : undefined;
}

/** SHA-256 of the presented token compared in constant time with the stored hash. */
export function matches(token, storedHash) {
  const presented = createHash('sha256').update(token, 'utf8').digest();
  return storedHash.length === presented.length && timingSafeEqual(presented, storedHash);
}

export function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
const fail = (res, status, code) => send(res, status, { error: { code } });

export async function start(fixture) {
  const pool = new pg.Pool({ connectionString: fixture.databaseUrl, max: POOL_MAX });
  const sql = queries(fixture.schemas.gateway);

  async function handle(req, res) {
    const route = req.method === 'GET' ? ROUTE.exec(req.url ?? '') : null;
    if (!route) return fail(res, 404, 'not_found');
    const key = consumerKeyFrom(req.headers.authorization);
    if (!key) return fail(res, 401, 'unauthorized');
    const id = decodeURIComponent(route[1]);
    const validConnection = UUID.test(id);
    const { rows } = await pool.query(sql.consumerKey, [validConnection ? id : null, key.lookupId]);
    const row = rows[0];
    if (!row || !matches(key.token, row.secret_hash) || row.revoked) return fail(res, 401, 'unauthorized');
    if (!validConnection || !row.permissions?.includes('read')) return fail(res, 404, 'not_found');
    const connection = (await pool.query(sql.connection, [id])).rows[0];
    if (!connection) return fail(res, 404, 'not_found');
    const { environment: _environment, ...body } = connection;
    return send(res, 200, body);
  }

  return serveOnLoopback('baseline', handle, (res) => fail(res, 500, 'internal_error'), () => pool.end());
}

/** Listens on an ephemeral loopback port; `close` drops open connections and waits for the server. */
/**
 * A bare server's request loop on loopback: `handle(req, res)` per request; a handler that throws
 * answers `internalError(res)` (or drops the socket once headers went out); `close` stops listening,
 * then runs `release` (the pool).
 */
export async function serveOnLoopback(label, handle, internalError, release) {
  const server = http.createServer((req, res) => {
    handle(req, res).catch((error) => {
      console.error(`${label} request failed:`, error.message);
      if (!res.headersSent) internalError(res);
      else res.destroy();
    });
  });
  const listening = await listenOnLoopback(server);
  return {
    url: listening.url,
    async close() {
      await listening.close();
      await release();
    },
  };
}

export async function listenOnLoopback(server) {
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
