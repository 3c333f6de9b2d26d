/**
 * Cross-connection attack, generated from the OpenAPI document (issue 15, item 3a): connections A
 * and B each hold real data of every kind (cross-connection-fixture.ts); a key granted on A only
 * (KA), a key granted on both (KAB, so a cursor refusal is down to the connection binding alone,
 * not the key's), A's application and an application holding tokens on both connections try B's
 * connection id, resource ids, cursors, ETags and sync ids on every operation the document has when
 * the suite runs — a new operation gets cases without new code, and one without any fails the test.
 *
 * Families of generated cases, and the answer each must get:
 * - `B's connection`: KA with B's connection id in the path (and B's or A's resource ids, any valid
 *   query combination, B's cursors of the route): 404 `{"error":"not_found"}`;
 * - `A's connection, B's ids`: KA and KAB with A's connection id and B's resource ids (canonical
 *   and lower case, which the gateway reads as the same id): 404 `not_found`;
 * - `B's cursors`: KA and KAB on A's own list routes with every cursor read on B (any route): 400
 *   `invalid_cursor`;
 * - `B's ids as filters`: A's trips filtered by B's vehicle and driver ids: 200 with none of B's data;
 * - `B's ids undeclared`: a query parameter the operation does not declare carrying B's ids: 400
 *   `invalid_query`;
 * - `B's ETags`: If-None-Match with ETags of B's answers on A's routes: B's data never served;
 * - `B's syncs`: A's application (and the shared one with A's token) with B's sync ids: 404
 *   `not_found`; B's sync list cursors on A's list: 400 `invalid_cursor`; A's secret with a token of
 *   B (of another application): 401 `unauthorized`.
 * - `B's webhook endpoint` (the webhook routes, additions beyond the 36 operations; application
 *   secret alone): A's application and the shared one with B's endpoint id (as created and in upper
 *   case) on every endpoint route, each write with a valid body: 404 `not_found`; on A's own
 *   endpoint routes B's ids undeclared (400 `invalid_query`) and B's ETags (never B's endpoint),
 *   and A's list (`A alone`: A's endpoints only).
 * Every answer: not a 5xx (nor 429: the rate limit is lifted), documented (validated against the
 * document's operation), and no byte of B's data in the body or any header — the fingerprints are
 * B's mark (in every string B's data holds), B's connection, entity, session and sync ids, and VINs.
 * Afterwards B is still active with its syncs as they were, and nothing was logged as unexpected.
 *
 * Mutations tried: (1) the connection dropped from the consumer key's grant lookup (auth.repository.ts
 * consumerKey: `g.connection_id = ?` made `(g.connection_id = ? or true)`), so any grant of the key
 * authorizes every connection: 5,305 failing cases — B's data served to KA on every connection route,
 * B disconnected by KA; (2) the connection dropped from the directory's vehicle lookup by id
 * (vehicles-read.repository.ts byId): 120 failing cases, B's vehicle served on A's path. The same
 * mutation of the driver lookup (drivers-read.repository.ts byId) alone is not caught, and rightly:
 * the roster check beside it (passes.roster, by connection) still answers not_found; (3) the
 * application dropped from the webhook endpoint lookup (webhook-endpoint.repository.ts get:
 * `(application_id = ? or true)`): 28 failing cases — B's endpoint served, changed and its secret
 * rotated through A's application.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { statusOf, type ErrorCode } from '@switchyard/contracts';
import { createResponseValidator } from '@switchyard/testing';
import { consumerKey, createSync, seedTenant, syncApplication, type Tenant } from './cross-connection-fixture.js';
import {
  concretePath,
  documentedOperations,
  openApiDocument,
  pathParameterNames,
  queryCombinations,
  queryParameters,
  queryString,
  wellFormedValues,
  type DocumentedOperation,
  type Parameter,
} from './openapi-operations.js';
import { logLines, startTestGateway, UNLIMITED_REQUEST_RATE, type TestGateway } from './support.js';
import type { SyncApp } from './syncs-fixture.js';

const validator = createResponseValidator(openApiDocument);
const operations = documentedOperations;
const MIN_CASES = 10_000;
const CONCURRENCY = 8;

let gw: TestGateway;
let a: Tenant;
let b: Tenant;
/** A key granted on A and on B. */
let keyAB: Record<string, string>;
/** One application with a Connection-Token on A and one on B. */
let sharedA: SyncApp;
let sharedB: SyncApp;
/** B's sync ids: its own application's and the shared application's. */
let bSyncs: string[];
/** Cursors read on B, by the route they were read on. */
const bCursors = new Map<string, string[]>();
/** ETags of B's answers, by the route they were read on. */
const bEtags = new Map<string, Set<string>>();

/** B's ETags to try on `op`: every one of its own route, and one of each other route (one answer's ETag is as good as another's elsewhere). */
function etagsFor(op: DocumentedOperation): string[] {
  return [...bEtags].flatMap(([label, etags]) => (label === op.label ? [...etags] : [...etags].slice(0, 1)));
}
let fingerprints: string[];
/** B's syncs with the headers of the application that created each (only it sees them). */
let bSyncOwners: { id: string; headers: Record<string, string> }[];
let bSyncStates: string;
let bEndpointState: string;

const isSync = (op: DocumentedOperation) => op.template.startsWith('/v1/syncs');
const isWebhook = (op: DocumentedOperation) => op.template.startsWith('/v1/webhooks');
/** B's webhook endpoint (created by B's application; its URL carries B's mark) and A's own. */
let bEndpoint: string;
let aEndpoint: string;
/** The application secret alone: what the webhook routes take. */
const secretOf = (app: SyncApp) => ({ authorization: app.headers.authorization! });
/** A valid body for each webhook write, so the endpoint id alone decides the answer. */
function webhookBody(op: DocumentedOperation): unknown {
  if (op.method === 'PATCH') return { description: 'cross-connection attempt' };
  if (op.template.endsWith('/replay')) return { eventId: '00000000-0000-4000-8000-000000000000' };
  if (op.method === 'POST' && op.template === '/v1/webhooks/endpoints') return { url: 'http://127.0.0.1:9/hooks/a-attempt', eventTypes: ['fault.opened'] };
  return undefined;
}
const isConnectionScoped = (op: DocumentedOperation) => op.template.startsWith('/v1/connections/{id}');
const resourceParameters = (op: DocumentedOperation) => pathParameterNames(op.template).filter((n) => n !== 'id');
const lower = (id: string) => id.slice(0, id.indexOf('_') + 1) + id.slice(id.indexOf('_') + 1).toLowerCase();

/** A one-day window around the seeded data, inside every window cap (history 31 days, usage 93). */
const WINDOW = (() => {
  const end = new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 3_600_000);
  return { start: new Date(end.getTime() - 24 * 3_600_000).toISOString(), end: end.toISOString() };
})();

/** The caller's values of the free-string query parameters; ids of `tenant` for the id lists. */
function givenValues(tenant: Tenant): Record<string, string[]> {
  return {
    startTime: [WINDOW.start],
    endTime: [WINDOW.end],
    from: [WINDOW.start],
    to: [WINDOW.end],
    timeZone: ['UTC', 'Europe/Berlin'],
    vehicleIds: [tenant.ids.vehicleId![0]!, tenant.ids.vehicleId!.join(',')],
    driverIds: [tenant.ids.driverId![0]!, tenant.ids.driverId!.join(',')],
    // The cursor is set by each family itself.
    cursor: [],
  };
}

/**
 * The dependent parameters the schemas cannot say (the operations' 400 descriptions do): `interval`
 * needs `timeZone`, and `timeZone` is only allowed with it; the vehicle list's `expand` only with `view=profiles`.
 */
function coherent(op: DocumentedOperation, query: Record<string, string>): Record<string, string> {
  const q = { ...query };
  const views = queryParameters(op.op).find((p) => p.name === 'view')?.schema?.enum ?? [];
  if (q.expand !== undefined && views.includes('profiles')) q.view = 'profiles';
  if (q.interval !== undefined && q.timeZone === undefined) q.timeZone = 'UTC';
  if (q.interval === undefined) delete q.timeZone;
  return q;
}

/** Valid query combinations of `op` for `tenant`'s ids (without a cursor), at most `max`. */
function combinations(op: DocumentedOperation, tenant: Tenant, max: number, seed = 1): Record<string, string>[] {
  const params: Parameter[] = queryParameters(op.op);
  const given = givenValues(tenant);
  const values = Object.fromEntries(params.map((p) => [p.name, wellFormedValues(p, given)]));
  const unique = new Map(queryCombinations(params, values, max, seed).map((q) => coherent(op, q)).map((q) => [JSON.stringify(Object.entries(q).sort()), q]));
  return [...unique.values()];
}

/** Keys that may read A's own resources on `op`: a connect session is seen only by the key that created it. */
const aKeys = (op: DocumentedOperation) => (op.template.includes('{sessionId}') ? [a.key] : [a.key, keyAB]);

const hasCursor = (op: DocumentedOperation) => queryParameters(op.op).some((p) => p.name === 'cursor');

/** The answer a case must get: exactly this error, or a success (2xx or 304) without B's data. */
type Expectation = { error: ErrorCode } | { success: true };

interface Case {
  op: DocumentedOperation;
  family: string;
  url: string;
  headers: Record<string, string>;
  expect: Expectation;
  /** A JSON body (the webhook writes: a valid one, so only the id decides the answer). */
  body?: unknown;
}

const NOT_FOUND: Expectation = { error: 'not_found' };

/** The operation's path on `connectionId` with `resources` as its resource ids. */
function pathFor(op: DocumentedOperation, connectionId: string, resources: Record<string, string>): string {
  return concretePath(op.template, { ...resources, id: connectionId });
}

/** Every id of every kind of `tenant`, one record per id, each with the tenant's first id of the other kinds. */
function idRecords(tenant: Tenant, variant: (id: string) => string = (id) => id): Record<string, string>[] {
  const first = Object.fromEntries(Object.entries(tenant.ids).map(([k, v]) => [k, v[0]!]));
  return Object.entries(tenant.ids).flatMap(([kind, ids]) => ids.map((id) => ({ ...first, [kind]: kind === 'sessionId' ? id : variant(id) })));
}

/** Records for `op`: one per id of the kinds its path takes (dropping records that only vary an unused kind). */
function idsForOp(op: DocumentedOperation, records: Record<string, string>[]): Record<string, string>[] {
  const names = resourceParameters(op);
  if (names.length === 0) return [{}];
  const unique = new Map(records.map((r) => [names.map((n) => r[n]).join('|'), Object.fromEntries(names.map((n) => [n, r[n]!]))]));
  return [...unique.values()];
}

function connectionCases(op: DocumentedOperation): Case[] {
  const cases: Case[] = [];
  const push = (family: string, url: string, headers: Record<string, string>, expect: Expectation) => cases.push({ op, family, url, headers, expect });
  const isGet = op.method === 'GET';
  const routeCursors = bCursors.get(op.label) ?? [];
  const allCursors = [...bCursors.values()].flat();

  // B's connection with KA: every id (B's, B's in lower case, A's), valid combinations, B's cursors of the route with each id.
  const bPathIds = idsForOp(op, [...idRecords(b), ...idRecords(b, lower), ...idRecords(a)]);
  const perIds = Math.max(6, Math.floor(400 / bPathIds.length));
  for (const ids of bPathIds) {
    for (const query of combinations(op, b, perIds)) {
      push("B's connection", `${pathFor(op, b.connectionId, ids)}${queryString(query)}`, a.key, NOT_FOUND);
    }
    for (const cursor of routeCursors) push("B's connection", `${pathFor(op, b.connectionId, ids)}${queryString({ ...combinations(op, b, 1)[0], cursor })}`, a.key, NOT_FOUND);
  }
  // B's connection id in upper case (the same uuid), and B's ids in undeclared parameters (the grant check answers before the parameters are read).
  for (const query of combinations(op, b, 4, 8)) push("B's connection", `${pathFor(op, b.connectionId.toUpperCase(), bPathIds[0]!)}${queryString(query)}`, a.key, NOT_FOUND);
  for (const [name, value] of [['connectionId', b.connectionId], ['vehicleId', b.ids.vehicleId![0]!], ['syncId', b.syncIds[0]!], ['id', b.connectionId]] as const) {
    push("B's connection", `${pathFor(op, b.connectionId, bPathIds[0]!)}${queryString({ [name]: value })}`, a.key, NOT_FOUND);
  }
  // Every cursor read on B (of any route) once on B's route, with one of its combinations in turn.
  if (hasCursor(op)) {
    const queries = combinations(op, b, 12, 7);
    allCursors.forEach((cursor, i) => push("B's connection", `${pathFor(op, b.connectionId, bPathIds[i % bPathIds.length]!)}${queryString({ ...queries[i % queries.length], cursor })}`, a.key, NOT_FOUND));
  }
  if (isGet) for (const etag of etagsFor(op)) push("B's connection", pathFor(op, b.connectionId, bPathIds[0]!), { ...a.key, 'if-none-match': etag }, NOT_FOUND);

  // A's connection, B's resource ids (canonical and lower case), KA and KAB.
  if (resourceParameters(op).length > 0) {
    for (const ids of idsForOp(op, [...idRecords(b), ...idRecords(b, lower)])) {
      for (const query of combinations(op, a, 24, 2)) {
        for (const key of [a.key, keyAB]) push("A's connection, B's ids", `${pathFor(op, a.connectionId, ids)}${queryString(query)}`, key, NOT_FOUND);
      }
    }
  }

  if (!isGet) return cases;
  const aIds = idsForOp(op, idRecords(a))[0]!;
  const aPath = pathFor(op, a.connectionId, aIds);

  // B's cursors (from every route) on A's own route, KA and KAB.
  if (hasCursor(op)) {
    // Each cursor with one of the route's valid combinations, in turn.
    const queries = combinations(op, a, 12, 3);
    allCursors.forEach((cursor, i) => {
      for (const key of aKeys(op)) push("B's cursors", `${aPath}${queryString({ ...queries[i % queries.length], cursor })}`, key, { error: 'invalid_cursor' });
    });
  }

  // B's ids in A's id-list filters: A's page, none of B's data.
  const filters = queryParameters(op.op).filter((p) => /Ids$/.test(p.name));
  if (filters.length > 0) {
    const bValues = givenValues(b);
    const values = Object.fromEntries(queryParameters(op.op).map((p) => [p.name, /Ids$/.test(p.name) ? [...bValues[p.name]!, ...b.ids[p.name.replace(/s$/, '')]!.map(lower)] : wellFormedValues(p, givenValues(a))]));
    const params = queryParameters(op.op).map((p) => (/Ids$/.test(p.name) ? { ...p } : p));
    for (const query of queryCombinations(params, values, 60, 4).map((q) => coherent(op, q))) {
      if (!filters.some((f) => query[f.name] !== undefined)) continue;
      for (const key of aKeys(op)) push("B's ids as filters", `${aPath}${queryString(query)}`, key, { success: true });
    }
  }
  return cases;
}

/** Undeclared query parameters carrying B's ids, and B's ETags, on an operation reachable with A's credentials. */
function foreignInputCases(op: DocumentedOperation, headers: Record<string, string>[], path: string, baseQuery: Record<string, string>): Case[] {
  const cases: Case[] = [];
  const declared = new Set(queryParameters(op.op).map((p) => p.name));
  const names = ['connectionId', 'connection_id', 'connection', 'id', 'vehicleId', 'driverId', 'groupId', 'tripId', 'syncId', 'sessionId', 'key'].filter((n) => !declared.has(n));
  const values = [b.connectionId, ...Object.values(b.ids).map((ids) => ids[0]!), bSyncs[0]!];
  for (const h of headers) {
    // Each name with one of B's ids in turn (the name, not which id, is what the route could read).
    names.forEach((name, i) => {
      const value = values[i % values.length]!;
      cases.push({ op, family: "B's ids undeclared", url: `${path}${queryString({ ...baseQuery, [name]: value })}`, headers: h, expect: { error: 'invalid_query' } });
    });
    if (op.method === 'GET') for (const etag of etagsFor(op)) cases.push({ op, family: "B's ETags", url: `${path}${queryString(baseQuery)}`, headers: { ...h, 'if-none-match': etag }, expect: { success: true } });
  }
  return cases;
}

function syncCases(op: DocumentedOperation): Case[] {
  const cases: Case[] = [];
  const push = (family: string, url: string, headers: Record<string, string>, expect: Expectation) => cases.push({ op, family, url, headers, expect });
  const mine = [a.app.headers, sharedA.headers];
  // A's secret with a token of B: the shared application's (another application than A's) and B's own application's.
  const foreignTokens = [
    { ...a.app.headers, 'connection-token': sharedB.token },
    { ...a.app.headers, 'connection-token': b.app.token },
    { ...sharedA.headers, 'connection-token': b.app.token },
  ];
  const ids = pathParameterNames(op.template).includes('id') ? [...bSyncs, ...bSyncs.map(lower)] : [undefined];
  for (const id of ids) {
    const path = concretePath(op.template, id ? { id } : {});
    const queries = op.method === 'GET' ? combinations(op, b, 24) : [{}];
    for (const query of queries) {
      if (id) for (const h of mine) push("B's syncs", `${path}${queryString(query)}`, h, NOT_FOUND);
      for (const h of foreignTokens) push("B's token, A's secret", `${path}${queryString(query)}`, h, { error: 'unauthorized' });
    }
  }
  if (hasCursor(op)) {
    for (const cursor of bCursors.get(op.label) ?? []) {
      for (const query of combinations(op, a, 24, 5)) for (const h of mine) push("B's cursors", `${op.template}${queryString({ ...query, cursor })}`, h, { error: 'invalid_cursor' });
    }
  }
  // Undeclared parameters naming B and B's ETags, with A's credentials on A's own syncs (each application sees only its own).
  cases.push(...foreignInputCases(op, [a.app.headers], concretePath(op.template, { id: a.syncIds[1]! }), {}));
  cases.push(...foreignInputCases(op, [sharedA.headers], concretePath(op.template, { id: a.syncIds[2]! }), {}));
  return cases;
}

function webhookCases(op: DocumentedOperation): Case[] {
  const cases: Case[] = [];
  const mine = [secretOf(a.app), secretOf(sharedA)];
  const body = webhookBody(op);
  if (pathParameterNames(op.template).includes('endpointId')) {
    for (const id of [bEndpoint, bEndpoint.toUpperCase()]) {
      for (const h of mine) cases.push({ op, family: "B's webhook endpoint", url: concretePath(op.template, { endpointId: id }), headers: { ...h, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, body, expect: NOT_FOUND });
    }
    if (op.method === 'GET') cases.push(...foreignInputCases(op, [secretOf(a.app)], concretePath(op.template, { endpointId: aEndpoint }), {}));
    return cases;
  }
  if (op.method !== 'GET') {
    // Creating: B's ids in undeclared parameters are refused before anything is created.
    const names = ['connectionId', 'endpointId', 'applicationId'];
    names.forEach((name, i) => cases.push({ op, family: "B's ids undeclared", url: `${op.template}${queryString({ [name]: [b.connectionId, bEndpoint, b.app.id][i]! })}`, headers: { ...secretOf(a.app), 'content-type': 'application/json' }, body, expect: { error: 'invalid_query' } }));
    return cases;
  }
  for (const h of mine) cases.push({ op, family: 'A alone', url: op.template, headers: h, expect: { success: true } });
  cases.push(...foreignInputCases(op, mine, op.template, {}));
  return cases;
}

function casesFor(op: DocumentedOperation): Case[] {
  if (isSync(op)) return syncCases(op);
  if (isWebhook(op)) return webhookCases(op);
  if (isConnectionScoped(op)) {
    const cases = connectionCases(op);
    // Undeclared parameters on A's own route are only sent to reads (a write of A's own would act on A).
    if (op.method === 'GET') cases.push(...foreignInputCases(op, aKeys(op), pathFor(op, a.connectionId, idsForOp(op, idRecords(a))[0]!), combinations(op, a, 1)[0]!));
    return cases;
  }
  // Connection-independent operations (the catalog): B's ids and ETags are all they can be given.
  return [...combinations(op, a, 8).map((q): Case => ({ op, family: 'A alone', url: `${op.template}${queryString(q)}`, headers: a.key, expect: { success: true } })), ...foreignInputCases(op, [a.key, keyAB], op.template, {})];
}

/** Cursors and ETags of B's answers: every list route read on B, first pages of a few combinations, with B's key, KAB and B's applications. */
async function collectFromB(): Promise<void> {
  for (const op of operations.filter((o) => o.method === 'GET')) {
    // A connect session is seen only by the key that created it (B's).
    // A sync is seen only by the application that created it (and the connection of its token).
    const readers = isSync(op)
      ? [
          { headers: b.app.headers, syncId: b.syncIds[1]! },
          { headers: sharedB.headers, syncId: bSyncs.at(-1)! },
        ]
      : (isWebhook(op) ? [secretOf(b.app)] : op.template.includes('{sessionId}') ? [b.key] : isConnectionScoped(op) ? [b.key, keyAB] : []).map((headers) => ({ headers, syncId: '' }));
    for (const { headers, syncId } of readers) {
      const path = isSync(op) ? concretePath(op.template, { id: syncId }) : isWebhook(op) ? concretePath(op.template, { endpointId: bEndpoint }) : pathFor(op, b.connectionId, idsForOp(op, idRecords(b))[0]!);
      const limit = queryParameters(op.op).find((p) => p.name === 'limit')?.schema?.minimum;
      for (const query of combinations(op, b, hasCursor(op) ? 4 : 1, 6)) {
        let cursor: string | undefined;
        for (let page = 0; page < 3; page++) {
          const q = { ...query, ...(limit !== undefined ? { limit: String(limit) } : {}), ...(cursor ? { cursor } : {}) };
          const res = await fetch(`${gw.url}${path}${queryString(q)}`, { headers });
          const text = await res.text();
          const etag = res.headers.get('etag');
          if (etag) bEtags.set(op.label, (bEtags.get(op.label) ?? new Set()).add(etag));
          if (res.status !== 200) throw new Error(`reading B: ${op.label} ${res.status} ${text.slice(0, 200)}`);
          const body = JSON.parse(text) as Record<string, unknown>;
          const next = ['nextCursor', 'next', 'cursor'].map((k) => body[k]).find((v): v is string => typeof v === 'string' && v.length > 0);
          if (!next) break;
          bCursors.set(op.label, [...(bCursors.get(op.label) ?? []), next]);
          cursor = next;
        }
      }
    }
  }
}

beforeAll(async () => {
  gw = await startTestGateway({
    directory: true,
    faultFeed: true,
    telemetryIngest: true,
    syncOrchestrator: true,
    enrichment: {},
    rpcTimeoutMs: 10_000,
    requestRate: UNLIMITED_REQUEST_RATE,
  });
  [a, b] = await Promise.all([seedTenant(gw, 'xa'), seedTenant(gw, 'xb')]);
  keyAB = await consumerKey(gw, 'key A and B', [a.connectionId, b.connectionId]);
  [sharedA, sharedB] = await syncApplication(gw, 'shared app', [a.connectionId, b.connectionId]);
  a.syncIds.push(await createSync(gw, sharedA!));
  bSyncOwners = [...b.syncIds.map((id) => ({ id, headers: b.app.headers })), ...[await createSync(gw, sharedB!), await createSync(gw, sharedB!)].map((id) => ({ id, headers: sharedB.headers }))];
  bSyncs = bSyncOwners.map((o) => o.id);
  [bEndpoint, aEndpoint] = await Promise.all(
    [b, a].map(async (t) => {
      const res = await fetch(`${gw.url}/v1/webhooks/endpoints`, { method: 'POST', headers: { ...secretOf(t.app), 'content-type': 'application/json' }, body: JSON.stringify({ url: `http://127.0.0.1:9/hooks/${t.mark}`, eventTypes: ['fault.opened', 'sync.completed'] }) });
      if (res.status !== 201) throw new Error(`creating a webhook endpoint: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { endpoint: { id: string } }).endpoint.id;
    }),
  );
  await collectFromB();
  fingerprints = [b.mark, b.connectionId, ...Object.values(b.ids).flat(), ...b.vins, ...bSyncs, bEndpoint].map((f) => f.toLowerCase());
  bSyncStates = await syncStates();
  bEndpointState = await endpointState();
}, 180_000);

/** B's webhook endpoint as B's application reads it (url, types, enabled, secrets' times). */
async function endpointState(): Promise<string> {
  const res = await fetch(`${gw.url}/v1/webhooks/endpoints/${bEndpoint}`, { headers: secretOf(b.app) });
  return `${res.status} ${await res.text()}`;
}

afterAll(async () => {
  await gw?.close();
});

/** Each of B's syncs with its status, as the application that created it reads it. */
async function syncStates(): Promise<string> {
  const states: string[] = [];
  for (const { id, headers } of bSyncOwners) {
    const res = await fetch(`${gw.url}/v1/syncs/${id}`, { headers });
    const body = (await res.json()) as { status?: string };
    states.push(`${id}:${res.status}:${body.status}`);
  }
  return states.join(' ');
}

interface Outcome {
  problems: string[];
}

async function run(c: Case, out: Outcome): Promise<void> {
  const res = await fetch(`${gw.url}${c.url}`, { method: c.op.method, headers: c.headers, ...(c.body !== undefined ? { body: JSON.stringify(c.body) } : {}) });
  const body = await res.text();
  const where = `${c.op.label} [${c.family}] ${c.url.slice(0, 160)}`;
  const problem = (text: string) => out.problems.push(`${where}: ${text}`);
  if (res.status >= 500 || res.status === 429) problem(`${res.status} ${body.slice(0, 160)}`);
  if ('error' in c.expect) {
    if (res.status !== statusOf(c.expect.error) || body !== JSON.stringify({ error: c.expect.error })) problem(`expected ${statusOf(c.expect.error)} ${c.expect.error}, got ${res.status} ${body.slice(0, 160)}`);
  } else if (!(res.status >= 200 && res.status < 300) && res.status !== 304) problem(`expected a success, got ${res.status} ${body.slice(0, 160)}`);
  const seen = `${body}\n${[...res.headers.entries()].map(([n, v]) => `${n}: ${v}`).join('\n')}`.toLowerCase();
  const leaked = fingerprints.filter((f) => seen.includes(f));
  if (leaked.length > 0) problem(`B's data in the answer (${leaked.slice(0, 3).join(', ')}): ${res.status} ${body.slice(0, 160)}`);
  const found = validator.validate({ method: c.op.method, path: concretePath(c.op.template, {}), status: res.status, body: body === '' ? undefined : body, contentType: res.headers.get('content-type') ?? undefined });
  for (const p of found) problem(p);
}

describe('cross-connection attack generated from the document', () => {
  it("never answers B's data to A's credentials on any operation, with at least 10,000 generated cases", async () => {
    const perOperation = new Map<string, number>(operations.map((op) => [op.label, 0]));
    const cases = operations.flatMap(casesFor);
    for (const c of cases) perOperation.set(c.op.label, perOperation.get(c.op.label)! + 1);
    const out: Outcome = { problems: [] };
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < cases.length) await run(cases[next++]!, out);
      }),
    );
    for (const [label, n] of perOperation) console.log(`[cross-connection] ${label}: ${n} cases`);
    const families = new Map<string, number>();
    for (const c of cases) families.set(c.family, (families.get(c.family) ?? 0) + 1);
    console.log(`[cross-connection] families: ${[...families].map(([f, n]) => `${f} ${n}`).join(', ')}`);
    console.log(`[cross-connection] total: ${cases.length} cases over ${operations.length} operations, ${[...bCursors.values()].flat().length} cursors and ${[...bEtags.values()].reduce((n, e) => n + e.size, 0)} ETags of B, ${fingerprints.length} fingerprints`);
    const kinds = new Map<string, string>();
    for (const p of out.problems) kinds.set(p.slice(0, p.indexOf(']') + 1), p);
    if (out.problems.length > 0) {
      // What the services said meanwhile (a 503 is a dependency's failure: its warning names it).
      const said = logLines(gw).filter((l) => Number(l['level']) >= 40 || ['warn', 'error', 'fatal'].includes(String(l['level'])));
      const distinct = [...new Set(said.map((l) => `${String(l['name'] ?? '')} ${String(l['msg'] ?? '')} ${JSON.stringify(l['err'] ?? l['reason'] ?? '').slice(0, 200)}`))].slice(0, 20);
      console.log(`[cross-connection] ${out.problems.length} problems; one of each operation and family:\n${[...kinds.values()].join('\n')}\nwarnings and errors logged:\n${distinct.join('\n')}`);
    }
    expect(out.problems.slice(0, 40)).toEqual([]);
    expect([...perOperation].filter(([, n]) => n === 0).map(([label]) => label)).toEqual([]);
    expect(cases.length).toBeGreaterThanOrEqual(MIN_CASES);
  }, 600_000);

  it('left B as it was: still active for its own key, its syncs and webhook endpoint unchanged, nothing logged as unexpected', async () => {
    const connection = await gw.call('GET', `/v1/connections/${b.connectionId}`, { headers: b.key });
    expect(connection).toMatchObject({ status: 200, body: { status: 'active' } });
    expect(await syncStates()).toBe(bSyncStates);
    expect(await endpointState()).toBe(bEndpointState);
    expect(bEndpointState).toMatch(/^200 /);
    expect(logLines(gw).filter((l) => l.msg === 'unexpected error').map((l) => JSON.stringify(l).slice(0, 300))).toEqual([]);
  });
});
