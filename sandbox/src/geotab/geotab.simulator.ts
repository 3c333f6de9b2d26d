/**
 * The MyGeotab dialect for the simulator kit (shared/providers/geotab.md): one endpoint,
 * `POST /apiv1` (mg-api-js posts to `/apiv1/`; both work), JSON-RPC bodies, accounts = databases
 * with a userName/password, sessions from `Authenticate` (path "ThisServer"), and errors as HTTP
 * 200 `{error: {code, name, message, data: {type}, errors}}` — except over-limit, which the
 * simulator sends as HTTP 429 with the same body and `Retry-After` (the reference leaves 200 vs 429
 * unconfirmed and asks adapters to handle both).
 *
 * Rate limits, per (method, typeName, userName, database) as MyGeotab applies them: Authenticate
 * 10/min per user, Get 900/min, GetFeed 60/min, GetCountOf 100/min. An ExecuteMultiCall takes one
 * token from the bucket of each distinct (method, typeName) it contains — a simplification: whether
 * MyGeotab counts every inner call is unconfirmed.
 */
import type { RateLimit, SimContext, SimErrorKind, SimRequest, SimResponse, SimulatorDefinition } from '../common/sim-kit.types.js';
import { applyFieldChange } from '../common/field-change.js';
import { scenarioMatches } from '../common/scenario-book.js';
import type { Scenario } from '../common/scenario.types.js';
import { authenticate, call, type RpcOutcome } from './geotab.rpc.js';

interface RpcBody {
  method?: unknown;
  params?: Record<string, unknown>;
}

const PER_MINUTE = (n: number) => ({ ratePerSecond: n / 60, burst: n });
export const GEOTAB_RATE_LIMITS = { Authenticate: PER_MINUTE(10), Get: PER_MINUTE(900), GetFeed: PER_MINUTE(60), GetCountOf: PER_MINUTE(100), other: PER_MINUTE(100) } as const;

function rpcOf(req: SimRequest): RpcBody {
  return typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body) ? (req.body as RpcBody) : {};
}
const isEndpoint = (req: SimRequest) => req.method === 'POST' && /^\/apiv1\/?$/i.test(req.path);
const str = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);
const credentialsOf = (params: Record<string, unknown> | undefined) =>
  typeof params?.['credentials'] === 'object' && params['credentials'] !== null ? (params['credentials'] as Record<string, unknown>) : {};

/** A JSON-RPC error body as MyGeotab sends it. */
export function rpcErrorBody(type: string, message: string, code = -32000): Record<string, unknown> {
  return { jsonrpc: '2.0', error: { code, name: 'JSONRPCError', message, data: { type, requestIndex: 0 }, errors: [{ name: type, message }] } };
}

function respond(outcome: RpcOutcome): SimResponse {
  if ('error' in outcome) return { status: 200, body: rpcErrorBody(outcome.error.type, outcome.error.message, outcome.error.code) };
  return { status: 200, body: { jsonrpc: '2.0', result: outcome.result } };
}

function innerCalls(body: RpcBody): { method: unknown; params: Record<string, unknown> }[] {
  const calls = body.params?.['calls'];
  return Array.isArray(calls) ? calls.map((c) => (typeof c === 'object' && c !== null ? (c as { method: unknown; params: Record<string, unknown> }) : { method: undefined, params: {} })) : [];
}

type Matched = Extract<Scenario, { kind: 'missing_permission' | 'field_change' }>;
const matchingScenarios = <K extends Matched['kind']>(ctx: SimContext, kind: K, key: string) =>
  ctx.scenarios().filter((s): s is Extract<Scenario, { kind: K }> => s.kind === kind && scenarioMatches(s as Matched, key));

/** ExecuteMultiCall: inner calls in order; the first failing call fails the whole request (with its requestIndex). */
function multiCall(body: RpcBody, ctx: SimContext): SimResponse {
  const calls = innerCalls(body);
  if (!Array.isArray(body.params?.['calls'])) return respond({ error: { type: 'ArgumentException', message: 'calls must be an array' } });
  const results: unknown[] = [];
  for (const [n, inner] of calls.entries()) {
    const typeName = str(inner.params?.['typeName']) ?? '';
    if (inner.method === 'Authenticate' || inner.method === 'ExecuteMultiCall') return respond({ error: { type: 'ArgumentException', message: `${String(inner.method)} cannot be multi-called` } });
    // The kit matches scenarios on the outer call only; inner calls are matched here by typeName.
    if (matchingScenarios(ctx, 'missing_permission', typeName).length > 0) return geotabSimulator.error('forbidden', { method: 'POST', path: '/apiv1', query: new URLSearchParams(), headers: {}, body: inner });
    const outcome = call(ctx, inner.method, { ...inner.params, credentials: undefined });
    if ('error' in outcome) {
      const resp = respond(outcome);
      ((resp.body as { error: { data: { requestIndex: number } } }).error.data.requestIndex = n);
      return resp;
    }
    const records = recordsOfResult(outcome.result);
    if (records) for (const change of matchingScenarios(ctx, 'field_change', typeName)) applyFieldChange(records, change);
    results.push(outcome.result);
  }
  return respond({ result: results });
}

function recordsOfResult(result: unknown): unknown[] | undefined {
  if (Array.isArray(result)) return result;
  if (typeof result === 'object' && result !== null && Array.isArray((result as { data?: unknown }).data)) return (result as { data: unknown[] }).data;
  return undefined;
}

const MESSAGES: Readonly<Record<SimErrorKind, [type: string, message: string, code: number]>> = {
  unauthorized: ['InvalidUserException', 'Incorrect login credentials', -32000],
  // The exact exception for a missing clearance is unconfirmed (geotab.md); this name is what
  // third-party code reports, and the adapter matches the family.
  forbidden: ['InvalidPermissionsException', 'The user does not have the required security clearance', -32000],
  rate_limited: ['OverLimitException', 'API calls quota exceeded. Maximum admitted 900 per 1m.', -32000],
  server_error: ['DbUnavailableException', 'The database is temporarily unavailable', -32000],
  not_found: ['MissingMethodException', 'The method could not be found', -32601],
  bad_request: ['ArgumentException', 'The request is not a valid JSON-RPC call', -32000],
};

export const geotabSimulator: SimulatorDefinition = {
  provider: 'geotab',

  account(req, sessions) {
    if (!isEndpoint(req)) return undefined;
    const body = rpcOf(req);
    if (body.method === 'Authenticate') return str(body.params?.['database']);
    const credentials = credentialsOf(body.params);
    const sessionId = str(credentials['sessionId']);
    const session = sessionId ? sessions.get(sessionId) : undefined;
    // An unknown session, or one used with another database/user, is InvalidUserException. Expiry
    // needs the simulated clock, so `handle` checks it.
    if (!session || session.account !== credentials['database'] || session.userName !== credentials['userName']) return undefined;
    return session.account;
  },

  error(kind, req, extra) {
    const [type, message, code] = MESSAGES[kind];
    const body = rpcOf(req);
    if (kind === 'unauthorized' && body.method === 'Authenticate' && extra?.message === undefined) {
      // The kit found no such account: for Authenticate that is an unknown database (wording unconfirmed).
      return { status: 200, body: rpcErrorBody('DbUnavailableException', `The database '${str(body.params?.['database']) ?? ''}' was not found`) };
    }
    if (kind === 'rate_limited') {
      const seconds = Math.max(1, Math.ceil(extra?.retryAfterSeconds ?? 1));
      return { status: 429, headers: { 'Retry-After': String(seconds), 'X-Rate-Limit-Limit': '1m', 'X-Rate-Limit-Remaining': '0' }, body: rpcErrorBody(type, message) };
    }
    if (kind === 'server_error') return { status: 500, body: rpcErrorBody(type, message) };
    return { status: 200, body: rpcErrorBody(type, kind === 'bad_request' && extra?.message ? extra.message : message, code) };
  },

  rateLimits(req, account): RateLimit[] {
    const body = rpcOf(req);
    if (body.method === 'Authenticate') return [{ key: `geotab:${account}:${String(body.params?.['userName'])}:Authenticate`, ...GEOTAB_RATE_LIMITS.Authenticate }];
    const user = String(credentialsOf(body.params)['userName']);
    const calls = body.method === 'ExecuteMultiCall' ? innerCalls(body) : [{ method: body.method, params: body.params ?? {} }];
    const keys = new Map<string, RateLimit>();
    for (const c of calls) {
      const method = str(c.method) ?? 'unknown';
      const limit = method === 'Get' || method === 'GetFeed' || method === 'GetCountOf' ? GEOTAB_RATE_LIMITS[method] : GEOTAB_RATE_LIMITS.other;
      const key = `geotab:${account}:${user}:${method}:${str(c.params?.['typeName']) ?? ''}`;
      keys.set(key, { key, ...limit });
    }
    return [...keys.values()];
  },

  async handle(req, ctx) {
    if (!isEndpoint(req)) return geotabSimulator.error('not_found', req);
    const body = rpcOf(req);
    if (body.method === 'Authenticate') return respond(authenticate(ctx, body.params ?? {}));
    const sessionId = str(credentialsOf(body.params)['sessionId']) ?? '';
    const session = ctx.sessions.get(sessionId);
    if (!session || session.expiresAtMs <= ctx.clock.now()) {
      ctx.sessions.delete(sessionId);
      return respond({ error: { type: 'InvalidUserException', message: 'Session has expired' } });
    }
    if (body.method === 'ExecuteMultiCall') return multiCall(body, ctx);
    return respond(call(ctx, body.method, body.params));
  },

  recordsOf(body) {
    const result = typeof body === 'object' && body !== null ? (body as { result?: unknown }).result : undefined;
    return recordsOfResult(result);
  },

  matchKey(req) {
    const body = rpcOf(req);
    return str(body.params?.['typeName']) ?? str(body.method) ?? req.path;
  },
};
