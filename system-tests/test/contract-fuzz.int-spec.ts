/**
 * Contract fuzzer driven by the OpenAPI document (issue 15, item 3b): for every operation of the
 * committed document — read from it, so an operation added later is covered without new code —
 * fast-check generates from each parameter's and body's JSON schema (openapi-arbitraries.ts) at
 * least 200 valid requests (values satisfying the schemas; path ids mostly real ids of the seeded
 * data, otherwise well-formed unknown ones; required parameters present, optional ones sometimes;
 * date windows inside the limits the document states) and at least 100 invalid ones (one schema
 * violation each: wrong type, out of range, bad enum, malformed date-time, pattern miss, a missing
 * required parameter, bad or unknown body fields, a body where none is taken, the wrong content
 * type, missing or invalid credentials). Asserted: never a 5xx; every answer valid against the
 * document for its operation (status documented, body schema); an invalid request gets a 4xx in
 * the contract shape `{"error": code}` with the status the contracts table gives the code. Each
 * operation's figures are printed: `[contract-fuzz] <label>: V valid (k 2xx), I invalid`.
 *
 * The seed is printed and fixed; CONTRACT_FUZZ_SEED=<n> replays (or varies) a run. Side effects:
 * GET operations run first (four at a time), then the POST ones one after the other, the
 * connection-destroying one (disconnect) last and only on throwaway connections of its own.
 *
 * Mutation tried: the `limit` range check of the fault reads removed (apps/gateway
 * faults.controller.ts `limitOf` returning any whole number parseLimit refused) lets
 * `?limit=-8` / `?limit=1023` reach fault-feed, whose RPC schema refuses them: the gateway answers
 * 500 and the fuzzer fails ("5xx" and "invalid request not refused with a 4xx" on GET …/faults
 * and …/fault-events); reverted. Found by it: GET /v1/connections/{id}/utilization with hourly
 * intervals over 31 days was a 503 after the RPC timeout — the fleet page outgrew one NATS reply;
 * telemetry-ingest now ends the page at the response byte budget (usage-report.service.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { isErrorCode, statusOf } from '@switchyard/contracts';
import { driverId, groupId, tripId, vehicleId, type Observation } from '@switchyard/domain';
import { startTestGateway as startGatewayOnly } from '@switchyard/gateway/testing';
import type { ConnectionConfigPatch } from '@switchyard/gateway';
import { startDirectory } from '@switchyard/directory';
import { startEnrichment } from '@switchyard/enrichment';
import { startFaultFeed } from '@switchyard/fault-feed';
import { startSyncOrchestrator } from '@switchyard/sync-orchestrator';
import { startTelemetryIngest } from '@switchyard/telemetry-ingest';
import { createResponseValidator, pollUntil } from '@switchyard/testing';
import { execute } from './gateway-client.js';
import { ingestFaults } from './faults-fixture.js';
import { groupRecord } from './groups-fixture.js';
import { invalidJsonValue, invalidParameterValue, resolveSchema, rfc3339, serializeParameter, validValue, type Violation } from './openapi-arbitraries.js';
import { concretePath, documentedOperations, openApiDocument, pathParameterNames, queryString, usesApplicationSecret, usesConnectionToken, type DocumentedOperation, type OpenApiSchema, type Parameter } from './openapi-operations.js';
import { driverRecord, ingest, tripRecord, vehicleRecord } from './reads-fixture.js';
import { logLines, UNLIMITED_REQUEST_RATE, type TestGateway } from './support.js';
import { createSyncApp, type SyncApp } from './syncs-fixture.js';
import { ingestObservations } from './telemetry-runs.js';

const SEED = Number(process.env.CONTRACT_FUZZ_SEED ?? 150_302);
const VALID_PER_OPERATION = 200;
const INVALID_PER_OPERATION = 100;
const DAY = 86_400_000;
const NOW = Date.now();

const validator = createResponseValidator(openApiDocument);
const VEHICLES = ['veh-1', 'veh-2', 'veh-3', 'veh-4'];
const FUZZ_CONFIG: ConnectionConfigPatch = {
  unifiedCollection: true,
  purposes: { vehicles: true, groupMemberships: true, trips: true },
  approvedVehicleIds: VEHICLES,
  approvedGroupIds: ['g1'],
  selectedSignals: ['odometer', 'location', 'engineHours'],
  optIns: { groupInventory: true, vehicleMetadata: true, extendedTelemetry: true },
};

let gw: TestGateway;
let key: Record<string, string>;
let app: SyncApp;

/**
 * Real ids a valid request's path takes most of the time (filled by the seeding, and by answers:
 * a created sync or session joins its pool). `connection` is the seeded connection; `paused` a
 * paused one (a connect session needs it); `throwaway` connections only the disconnect uses.
 */
const pools: Record<string, string[]> = { connection: [], paused: [], throwaway: [], sync: [], sessionId: [], vehicleId: [], driverId: [], tripId: [], groupId: [] };
let throwawayNext = 0;

/** The pool a path parameter's real values come from. */
function poolOf(template: string, name: string): string {
  if (name !== 'id') return name;
  if (template.startsWith('/v1/syncs')) return 'sync';
  // Destructive: a disconnect would turn every later case of the connection into a 404.
  if (template.endsWith('/disconnect')) return 'throwaway';
  return template.includes('/connect-sessions') ? 'paused' : 'connection';
}

/** The pattern the document gives the path parameter `name` on any operation (a `vehicleIds` list borrows `vehicleId`'s). */
function documentedPattern(name: string): string | undefined {
  for (const { op } of documentedOperations) {
    const found = (op.parameters ?? []).find((p) => p.in === 'path' && p.name === name && p.schema?.pattern);
    if (found) return found.schema!.pattern;
  }
  return undefined;
}

const SYNC_ID = /^sync_[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

/** A well-formed id nothing holds: from the parameter's pattern, a sync id, else a uuid (the connection and session ids). */
function unknownId(pool: string): fc.Arbitrary<string> {
  const pattern = documentedPattern(pool);
  if (pattern) return fc.stringMatching(new RegExp(pattern));
  return pool === 'sync' ? fc.stringMatching(SYNC_ID) : fc.uuid({ version: 4 });
}

type PathPick = { pool: string; index: number } | { literal: string };

interface Case {
  valid: boolean;
  why: string;
  path: Record<string, PathPick>;
  query: Record<string, string>;
  /** Header parameters and credential changes; null removes the header. */
  headers: Record<string, string | null>;
  body?: { contentType: string; text: string };
  /** A GET answered 2xx with an ETag is asked again with If-None-Match (a 304 to validate too). */
  revalidate: boolean;
}

const description = (p: Parameter) => String((p as { description?: unknown }).description ?? '');

/** The window limit in days the document states for a date-time pair ("at most N days after it"), and for `hour` intervals. */
function windowLimits(params: Parameter[]): { days: number; hourDays: number } {
  const text = params.map(description).join(' ');
  const days = Number(/at most (\d+) days/.exec(text)?.[1] ?? 366);
  const hourDays = Number(/`hour` over at most (\d+) days/.exec(text)?.[1] ?? days);
  return { days, hourDays };
}

const isStart = (name: string) => /^(start|from)/i.test(name);
const isEnd = (name: string) => /^(end|to)/i.test(name);

/** The IANA zones for a parameter the document describes as one (a plain string in its schema). */
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Pacific/Chatham', 'America/St_Johns'];
const OFFSETS = [0, 0, 0, 60, -300, 330, 345, -570, 840, -720];

/** A query parameter's valid values: from its schema, or from what its description says of a plain string. */
function parameterValue(p: Parameter): { arbitrary: fc.Arbitrary<string>; plain: boolean } {
  if (/IANA time zone/.test(description(p))) return { arbitrary: fc.constantFrom(...ZONES), plain: false };
  if (/Ids$/.test(p.name) && /[Cc]omma-separated/.test(description(p))) {
    const pool = p.name.slice(0, -1);
    const real = fc.noBias(fc.nat()).map((i) => pools[pool]![i % pools[pool]!.length]!);
    return { arbitrary: fc.array(fc.oneof({ weight: 3, arbitrary: real }, { weight: 1, arbitrary: unknownId(pool) }), { minLength: 1, maxLength: 3 }).map((ids) => ids.join(',')), plain: false };
  }
  const schema = resolveSchema(p.schema);
  const plain = schema.type === 'string' && !schema.enum && !schema.format && !schema.pattern;
  return { arbitrary: validValue(schema).map(serializeParameter), plain };
}

/**
 * Valid query values of an operation: each required parameter, each optional one about half the
 * time (a plain string one — a cursor — one time in twenty: random text rarely names anything).
 * What the schemas cannot say comes from the document's descriptions: a date-time pair is a
 * window [start, end) inside the stated limit, a parameter "required with" another comes with
 * it, an IANA time zone is one, a comma-separated id list holds ids.
 */
function validQuery(params: Parameter[]): fc.Arbitrary<Record<string, string>> {
  const query = params.filter((p) => p.in === 'query');
  const limits = windowLimits(query);
  const dates = query.filter((p) => p.schema?.format === 'date-time');
  const start = dates.find((p) => isStart(p.name));
  const end = dates.find((p) => isEnd(p.name));
  const coupled: [string, string][] = [];
  const only = new Map<string, [string, string]>();
  for (const p of query) {
    const other = /required with `(\w+)`/.exec(description(p))?.[1];
    if (other) coupled.push([p.name, other], [other, p.name]);
    const condition = /Only with `(\w+)=(\w+)`/.exec(description(p));
    if (condition) only.set(p.name, [condition[1]!, condition[2]!]);
  }
  const values = query.map((p) => ({ p, ...parameterValue(p) }));
  return fc
    .record({
      fields: fc.tuple(...values.map(({ arbitrary }) => fc.record({ value: arbitrary, roll: fc.noBias(fc.integer({ min: 0, max: 99 })) }))),
      at: fc.integer({ min: NOW - 20 * DAY, max: NOW }),
      length: fc.oneof(fc.integer({ min: 60, max: DAY / 1000 }), fc.integer({ min: DAY / 1000, max: (limits.days * DAY) / 1000 })),
      offsets: fc.tuple(fc.constantFrom(...OFFSETS), fc.constantFrom(...OFFSETS)),
    })
    .map(({ fields, at, length, offsets }) => {
      const out: Record<string, string> = {};
      values.forEach(({ p, plain }, i) => {
        const { value, roll } = fields[i]!;
        if (p.required || roll < (plain ? 5 : 50)) out[p.name] = value;
      });
      for (const [a, b] of coupled) {
        const other = values.findIndex((v) => v.p.name === b);
        if (out[a] !== undefined && out[b] === undefined && other >= 0) out[b] = fields[other]!.value;
      }
      for (const [name, [other, value]] of only) if (out[name] !== undefined) out[other] = value;
      if (start && end && (out[start.name] !== undefined || out[end.name] !== undefined)) {
        // Whole seconds: the window is exactly [from, from + length), inside the limit for its interval.
        const seconds = Math.min(length, ((out.interval === 'hour' ? limits.hourDays : limits.days) * DAY) / 1000);
        const from = Math.floor(at / 1000) * 1000;
        out[start.name] = rfc3339(from, offsets[0], false);
        out[end.name] = rfc3339(from + seconds * 1000, offsets[1], false);
      }
      return out;
    });
}

/** A path parameter: a real id of its pool four times in five, else a well-formed unknown one. */
function pathValue(template: string, name: string): fc.Arbitrary<PathPick> {
  const pool = poolOf(template, name);
  return fc.oneof({ weight: 4, arbitrary: fc.noBias(fc.nat()).map((index): PathPick => ({ pool, index })) }, { weight: 1, arbitrary: unknownId(pool).map((literal): PathPick => ({ literal })) });
}

const jsonBodySchema = (op: DocumentedOperation['op']): OpenApiSchema | undefined => op.requestBody?.content?.['application/json']?.schema;

/**
 * A body from the schema, with what the property descriptions add: of two properties "Exclusive
 * with" each other only the first is kept, one that "Must be empty or absent" is left out.
 */
function bodyValue(schema: OpenApiSchema): fc.Arbitrary<Record<string, unknown>> {
  const properties = Object.entries(resolveSchema(schema).properties ?? {}).map(([name, p]) => [name, String(p.description ?? '')] as const);
  return (validValue(schema, { dates: { fromMs: NOW - 10 * DAY, toMs: NOW - 60_000 } }) as fc.Arbitrary<Record<string, unknown>>).map((value) => {
    const body = { ...value };
    for (const [name, text] of properties) {
      const other = /Exclusive with (\w+)/.exec(text)?.[1];
      if (other && name in body) delete body[other];
      if (/Must be empty or absent/.test(text)) delete body[name];
    }
    return body;
  });
}

/** Valid bodies: none when the body is optional (two times in five), else JSON from its schema; date-times in the past days. */
function validBody(op: DocumentedOperation['op']): fc.Arbitrary<Case['body']> {
  const schema = jsonBodySchema(op);
  if (!schema) return fc.constant(undefined);
  const json = bodyValue(schema).map((value) => ({ contentType: 'application/json', text: JSON.stringify(value) }));
  return op.requestBody?.required ? json : fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 3, arbitrary: json });
}

/** Header parameters other than the credentials: a plain optional one (If-None-Match) now and then with random text. */
function validHeaders(params: Parameter[]): fc.Arbitrary<Record<string, string | null>> {
  const optional = params.filter((p) => p.in === 'header' && !p.required);
  return fc.tuple(...optional.map((p) => fc.option(fc.stringMatching(/^"?[A-Za-z0-9-]{1,30}"?$/), { freq: 9 }).map((v) => [p.name, v] as const))).map((pairs) => Object.fromEntries(pairs.filter(([, v]) => v !== null)));
}

function validCase(o: DocumentedOperation): fc.Arbitrary<Case> {
  const names = pathParameterNames(o.template);
  return fc
    .record({
      path: fc.tuple(...names.map((n) => pathValue(o.template, n))),
      query: validQuery(o.op.parameters ?? []),
      headers: validHeaders(o.op.parameters ?? []),
      body: validBody(o.op),
      revalidate: fc.noBias(fc.integer({ min: 0, max: 4 })).map((n) => n === 0),
    })
    .map(({ path, query, headers, body, revalidate }) => ({ valid: true, why: 'valid', path: Object.fromEntries(names.map((n, i) => [n, path[i]!])), query, headers, ...(body ? { body } : {}), revalidate }));
}

interface Mutation {
  why: string;
  apply: (c: Case) => Case;
}

const mutate = (why: string, apply: (c: Case) => Case): Mutation => ({ why, apply });
const tokenText = fc.stringMatching(/^(pt_|sk_sandbox_|sk_prod_|ct_|)[A-Za-z0-9_-]{0,40}$/);

/**
 * The violations an operation admits, each one applied to a valid case: every query, header and
 * path parameter its schema can reject, every required one left out, the body (a property of the
 * wrong type or range, an unknown property where additionalProperties is false, not an object,
 * not JSON, the wrong content type; a body on a POST that takes none), the credentials.
 */
function mutations(o: DocumentedOperation): fc.Arbitrary<Mutation>[] {
  const params = o.op.parameters ?? [];
  const out: fc.Arbitrary<Mutation>[] = [];
  for (const p of params) {
    const bad = invalidParameterValue(p.schema);
    if (p.in === 'query' && bad) out.push(bad.map((v) => mutate(`?${p.name} ${v.why}`, (c) => ({ ...c, query: { ...c.query, [p.name]: v.value } }))));
    if (p.in === 'path' && bad) out.push(bad.map((v) => mutate(`{${p.name}} ${v.why}`, (c) => ({ ...c, path: { ...c.path, [p.name]: { literal: v.value } } }))));
    if (p.in === 'header' && bad) out.push(bad.map((v) => mutate(`${p.name} header ${v.why}`, (c) => ({ ...c, headers: { ...c.headers, [p.name.toLowerCase()]: v.value } }))));
    if (p.required && p.in === 'query') out.push(fc.constant(mutate(`required ?${p.name} missing`, (c) => ({ ...c, query: Object.fromEntries(Object.entries(c.query).filter(([n]) => n !== p.name)) }))));
    if (p.required && p.in === 'header') out.push(fc.constant(mutate(`required ${p.name} header missing`, (c) => ({ ...c, headers: { ...c.headers, [p.name.toLowerCase()]: null } }))));
  }
  const schema = jsonBodySchema(o.op);
  const withBody = (why: string, contentType: string, text: string) => mutate(why, (c) => ({ ...c, body: { contentType, text } }));
  if (schema) {
    const resolved = resolveSchema(schema);
    const good = bodyValue(schema);
    for (const [name, property] of Object.entries(resolved.properties ?? {})) {
      out.push(fc.tuple(good, invalidJsonValue(property)).map(([body, bad]: [Record<string, unknown>, Violation<unknown>]) => withBody(`body .${name} ${bad.why}`, 'application/json', JSON.stringify({ ...body, [name]: bad.value }))));
    }
    if (resolved.additionalProperties === false) {
      const known = Object.keys(resolved.properties ?? {});
      out.push(
        fc
          .tuple(good, fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9]{0,12}$/).filter((n) => !known.includes(n)), fc.jsonValue({ maxDepth: 1 }))
          .map(([body, name, value]) => withBody(`body unknown property ${name}`, 'application/json', JSON.stringify({ ...body, [name]: value }))),
      );
    }
    if (resolved.type === 'object') out.push(fc.oneof(fc.array(fc.integer(), { maxLength: 2 }), fc.string({ maxLength: 8 }), fc.integer()).map((v) => withBody('body not an object', 'application/json', JSON.stringify(v))));
    out.push(fc.stringMatching(/^\{"[a-z]{0,5}"?:?[a-z0-9]{0,5}$/).map((text) => withBody('body not JSON', 'application/json', text)));
    out.push(fc.tuple(good, fc.constantFrom('text/plain', 'application/xml', 'application/x-www-form-urlencoded')).map(([body, type]) => withBody(`body as ${type}`, type, JSON.stringify(body))));
  } else if (o.method !== 'GET') {
    out.push(fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.jsonValue({ maxDepth: 1 }), { minKeys: 0, maxKeys: 3 }).map((v) => withBody('a body where none is taken', 'application/json', JSON.stringify(v))));
  }
  // Credentials: none, unknown tokens, another scheme, the other kind of credential.
  const auth = (why: string, value: string | null) => mutate(why, (c) => ({ ...c, headers: { ...c.headers, authorization: value } }));
  out.push(
    fc.oneof(
      fc.constant(auth('no credentials', null)),
      tokenText.map((t) => auth('an unknown bearer token', `Bearer ${t}`)),
      tokenText.map((t) => auth('another scheme', `Basic ${Buffer.from(`${t}:x`).toString('base64')}`)),
      tokenText.filter((t) => t.length > 0).map((t) => auth('a token without a scheme', t)),
      fc.constant(mutate('the other kind of credential', (c) => ({ ...c, headers: { ...c.headers, authorization: usesApplicationSecret(o.op) ? key.authorization! : app.headers.authorization!, 'connection-token': usesApplicationSecret(o.op) ? null : app.token } }))),
    ),
  );
  if (usesConnectionToken(o.op)) out.push(tokenText.map((t) => mutate('an unknown Connection-Token', (c) => ({ ...c, headers: { ...c.headers, 'connection-token': t } }))));
  return out;
}

function invalidCase(o: DocumentedOperation): fc.Arbitrary<Case> {
  return fc.tuple(validCase(o), fc.oneof(...mutations(o))).map(([c, m]) => ({ ...m.apply(c), valid: false, why: m.why, revalidate: false }));
}

interface Tally {
  valid: number;
  ok: number;
  invalid: number;
  statuses: Map<number, number>;
}

const tallies = new Map<string, Tally>();
const problems: string[] = [];

/** Fills a case's path from its picks (a real id by index into its pool now; disconnect takes the next unused throwaway connection). */
function urlOf(o: DocumentedOperation, c: Case): string {
  const values: Record<string, string> = {};
  for (const [name, pick] of Object.entries(c.path)) {
    if ('literal' in pick) values[name] = encodeURIComponent(pick.literal);
    else {
      const pool = pools[pick.pool] ?? [];
      const index = pick.pool === 'throwaway' && c.valid ? throwawayNext++ : pick.index;
      values[name] = encodeURIComponent(pool[index % Math.max(1, pool.length)] ?? 'none');
    }
  }
  return `${concretePath(o.template, values)}${queryString(c.query)}`;
}

function headersOf(o: DocumentedOperation, c: Case): Record<string, string> {
  const credentials = usesApplicationSecret(o.op) ? app.headers : key;
  const merged: Record<string, string | null> = { ...credentials, ...Object.fromEntries(Object.entries(c.headers).map(([n, v]) => [n.toLowerCase(), v])) };
  if (c.body) merged['content-type'] = c.body.contentType;
  return Object.fromEntries(Object.entries(merged).filter((e): e is [string, string] => e[1] !== null));
}

/** The checks of one answer: below 500, documented (status and body), an error in the contract shape, an invalid request refused with a 4xx. */
function check(o: DocumentedOperation, c: Case, url: string, status: number, body: string, contentType: string | null): void {
  const where = `${o.label} [${c.valid ? 'valid' : `invalid: ${c.why}`}] ${o.method} ${url.slice(0, 200)}${c.body ? ` body ${c.body.contentType} ${c.body.text.slice(0, 100)}` : ''} → ${status} ${body.slice(0, 160)}`;
  if (status >= 500) problems.push(`5xx: ${where}`);
  if (!c.valid && (status < 400 || status >= 500)) problems.push(`invalid request not refused with a 4xx: ${where}`);
  if (status >= 400) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = undefined;
    }
    const code = (parsed as { error?: unknown } | undefined)?.error;
    if (!parsed || typeof parsed !== 'object' || Object.keys(parsed).length !== 1 || !isErrorCode(code) || statusOf(code) !== status) problems.push(`not the contract error shape: ${where}`);
  }
  const found = validator.validate({ method: o.method, path: concretePath(o.template, {}), status, body: body === '' ? undefined : body, contentType: contentType ?? undefined });
  problems.push(...found.map((p) => `${p}: ${where}`));
}

/** Answers carrying an id a later case can use: a created sync or connect session joins its pool. */
function harvest(o: DocumentedOperation, status: number, body: string): void {
  if (o.method !== 'POST' || status < 200 || status >= 300) return;
  const answer = JSON.parse(body) as { id?: unknown; sessionId?: unknown };
  if (o.template === '/v1/syncs' && typeof answer.id === 'string') pools.sync!.push(answer.id);
  if (typeof answer.sessionId === 'string') pools.sessionId!.push(answer.sessionId);
}

async function run(o: DocumentedOperation, c: Case, tally: Tally): Promise<void> {
  const url = urlOf(o, c);
  const headers = headersOf(o, c);
  const res = await fetch(`${gw.url}${url}`, { method: o.method, headers, ...(c.body ? { body: c.body.text } : {}) });
  const body = await res.text();
  check(o, c, url, res.status, body, res.headers.get('content-type'));
  tally.statuses.set(res.status, (tally.statuses.get(res.status) ?? 0) + 1);
  if (!c.valid) return void tally.invalid++;
  tally.valid++;
  if (res.status >= 200 && res.status < 300) tally.ok++;
  harvest(o, res.status, body);
  const etag = res.headers.get('etag');
  if (c.revalidate && o.method === 'GET' && res.ok && etag) {
    // The same request again with the answer's ETag: a 304 without a body, validated like the rest.
    const again = await fetch(`${gw.url}${url}`, { headers: { ...headers, 'if-none-match': etag } });
    const text = await again.text();
    check(o, c, `${url} (If-None-Match)`, again.status, text, again.headers.get('content-type'));
    tally.statuses.set(again.status, (tally.statuses.get(again.status) ?? 0) + 1);
    tally.valid++;
    if (again.status >= 200 && again.status < 300) tally.ok++;
  }
}

/** A stable per-operation seed: adding an operation leaves the others' cases as they were. */
function seedOf(label: string): number {
  let h = SEED | 0;
  for (const ch of label) h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  return h;
}

async function fuzz(o: DocumentedOperation): Promise<void> {
  const tally: Tally = { valid: 0, ok: 0, invalid: 0, statuses: new Map() };
  tallies.set(o.label, tally);
  const seed = seedOf(o.label);
  const valid = fc.sample(validCase(o), { seed, numRuns: VALID_PER_OPERATION });
  const invalid = fc.sample(invalidCase(o), { seed: seed + 1, numRuns: INVALID_PER_OPERATION });
  // Interleaved, so a side effect of one kind (a sync created, a slot claimed) meets the other kind too.
  for (let i = 0; i < valid.length; i++) {
    await run(o, valid[i]!, tally);
    if (i % 2 === 1) await run(o, invalid[(i - 1) / 2]!, tally);
  }
}

/** Runs `tasks` with at most `width` at a time. */
async function limited(tasks: (() => Promise<void>)[], width: number): Promise<void> {
  const queue = [...tasks];
  await Promise.all(Array.from({ length: width }, async () => {
    for (let task = queue.shift(); task; task = queue.shift()) await task();
  }));
}

/** Waits until every context holding a connection_config projection holds `revision` of the connection. */
async function projected(connectionId: string, revision: number): Promise<void> {
  await gw.flushOutbox();
  for (const name of ['sync-orchestrator', 'directory', 'fault-feed', 'telemetry-ingest'] as const) {
    const service = gw.beside[name]!;
    const schema = service.runtime.orm.em.config.get('schema');
    await pollUntil(async () => (await execute<{ revision: number }>(service, `select revision from "${schema}".connection_config where connection_id = ?::uuid`, [connectionId]))[0]?.revision === revision, {
      timeoutMs: 20_000,
      description: `config revision ${revision} in ${name}`,
    });
  }
}

async function connectionWith(patch: ConnectionConfigPatch): Promise<string> {
  const created = await gw.connections.create({ customerId: 'cust-fuzz', provider: 'samsara', environment: 'sandbox' });
  const config = await gw.connections.configure(created.connectionId, patch);
  await projected(created.connectionId, config.revision);
  return created.connectionId;
}

/** Observations of three vehicles over the last three days, as one committed telemetry batch. */
async function seedTelemetry(connectionId: string): Promise<void> {
  const fetchedAt = new Date().toISOString();
  const records: Observation[] = VEHICLES.slice(0, 3).flatMap((sourceId, v) =>
    Array.from({ length: 72 }, (_, i) => {
      const observedAt = new Date(NOW - 3 * DAY + i * 3600_000 + v * 1000).toISOString();
      const base = { provider: 'samsara' as const, vehicleSourceId: sourceId, observedAt, fetchedAt };
      return [
        { ...base, metric: 'odometer' as const, value: { meters: 1_000_000 + i * 5000 }, source: 'samsara:obdOdometerMeters' },
        { ...base, metric: 'engineHours' as const, value: { seconds: 3_600_000 + i * 1800 }, source: 'samsara:obdEngineSeconds' },
        { ...base, metric: 'location' as const, value: { latitude: 37.7 + i / 1000, longitude: -122.4 }, source: 'samsara:gps' },
      ];
    }).flat(),
  );
  const telemetry = gw.beside['telemetry-ingest']!;
  const schema = telemetry.runtime.orm.em.config.get('schema');
  const sql = <T>(text: string, params: unknown[] = []) => execute<T>(telemetry, text.replaceAll('$telemetry.', `"${schema}".`), params);
  await ingestObservations({ sql }, gw.bus, { connectionId, provider: 'samsara' }, records);
}

beforeAll(async () => {
  const gateway = await startGatewayOnly({
    rpcTimeoutMs: 10_000,
    requestRate: UNLIMITED_REQUEST_RATE,
    beside: [
      // A refresh reads the provider: a closed local port, so it fails fast (a documented 200 `failed`) and never leaves the machine.
      { name: 'sync-orchestrator', start: (o) => startSyncOrchestrator({ ...o, providerBaseUrls: { samsara: 'http://127.0.0.1:9', motive: 'http://127.0.0.1:9', geotab: 'http://127.0.0.1:9' } }) },
      { name: 'directory', start: startDirectory },
      { name: 'telemetry-ingest', start: startTelemetryIngest },
      { name: 'fault-feed', start: startFaultFeed },
      { name: 'enrichment', start: startEnrichment },
    ],
  });
  gw = Object.assign(gateway, { orchestrator: gateway.beside['sync-orchestrator'], directory: gateway.beside.directory, faultFeed: gateway.beside['fault-feed'] });
  const connectionId = await connectionWith(FUZZ_CONFIG);
  const paused = await connectionWith({ ...FUZZ_CONFIG, status: 'paused' });
  pools.connection!.push(connectionId);
  pools.paused!.push(paused);
  const consumer = await gw.credentials.createConsumerKey('contract fuzz');
  key = { authorization: `Bearer ${consumer.token}` };
  for (const id of [connectionId, paused]) await gw.credentials.grantConsumer(consumer.id, id, ['read', 'manage', 'history']);
  // Throwaway connections for the disconnect: one per valid case that may succeed (the gateway's own record is all it needs).
  for (let i = 0; i < 40; i++) {
    const created = await gw.connections.create({ customerId: 'cust-fuzz-throwaway', provider: 'samsara', environment: 'sandbox' });
    await gw.credentials.grantConsumer(consumer.id, created.connectionId, ['read', 'manage']);
    pools.throwaway!.push(created.connectionId);
  }
  app = await createSyncApp(gw, connectionId, { name: 'contract fuzz' });

  const fetchedAt = new Date(NOW - 60_000).toISOString();
  const ref = (sourceId: string) => ({ connectionId, provider: 'samsara' as const, sourceId });
  await ingest(gw, connectionId, 'vehicles', VEHICLES.map((v) => vehicleRecord(v, fetchedAt)));
  await ingest(gw, connectionId, 'drivers', [driverRecord('d1', fetchedAt), driverRecord('d2', fetchedAt)]);
  await ingest(gw, connectionId, 'groups', [groupRecord('g1', fetchedAt), groupRecord('g2', fetchedAt, 'g1')]);
  const trips = Array.from({ length: 8 }, (_, i) => tripRecord(`t${i}`, VEHICLES[i % 2]!, new Date(NOW - (i + 1) * DAY).toISOString(), fetchedAt));
  await ingest(gw, connectionId, 'trips', trips);
  await ingestFaults(gw, connectionId, 'samsara', VEHICLES.slice(0, 2).map((v, i) => ({ model: 'complete_snapshot', provider: 'samsara', vehicleSourceId: v, observedAt: fetchedAt, active: [{ faultKey: `j1939:0:spn10${i}:fmi1`, code: `SPN 10${i} FMI 1`, description: null }], fetchedAt })));
  await seedTelemetry(connectionId);
  pools.vehicleId!.push(...VEHICLES.map((v) => vehicleId(ref(v))));
  pools.driverId!.push(driverId(ref('d1')), driverId(ref('d2')));
  pools.groupId!.push(groupId(ref('g1')), groupId(ref('g2')));
  pools.tripId!.push(...trips.map((t) => tripId(ref(t.sourceId))));

  // Syncs to read, cancel and retry: two open, one cancelled (failed, so a retry can take it).
  for (let i = 0; i < 3; i++) {
    const created = await fetch(`${gw.url}/v1/syncs`, { method: 'POST', headers: app.headers });
    expect(created.status).toBe(201);
    pools.sync!.push(((await created.json()) as { id: string }).id);
  }
  expect((await fetch(`${gw.url}/v1/syncs/${pools.sync![2]}/cancel`, { method: 'POST', headers: app.headers })).status).toBe(200);
  // A connect session of the paused connection (the GET's real id).
  const session = await fetch(`${gw.url}/v1/connections/${paused}/connect-sessions`, { method: 'POST', headers: key });
  expect(session.status).toBe(200);
  pools.sessionId!.push(((await session.json()) as { sessionId: string }).sessionId);
  console.log(`[contract-fuzz] seed ${SEED} (replay: CONTRACT_FUZZ_SEED=${SEED}); ${VALID_PER_OPERATION} valid and ${INVALID_PER_OPERATION} invalid generated cases per operation`);
}, 180_000);

afterAll(async () => {
  await gw?.close();
});

describe('contract fuzzer driven by the OpenAPI document', () => {
  it('every operation: generated valid and invalid requests get no 5xx, documented answers, and invalid ones a contract-shaped 4xx', async () => {
    const reads = documentedOperations.filter((o) => o.method === 'GET');
    const writes = documentedOperations.filter((o) => o.method !== 'GET' && !o.template.endsWith('/disconnect'));
    const destructive = documentedOperations.filter((o) => o.method !== 'GET' && o.template.endsWith('/disconnect'));
    await limited(reads.map((o) => () => fuzz(o)), 4);
    for (const o of [...writes, ...destructive]) await fuzz(o);
    for (const o of documentedOperations) {
      const t = tallies.get(o.label)!;
      const statuses = [...t.statuses.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ');
      console.log(`[contract-fuzz] ${o.label}: ${t.valid} valid (${t.ok} 2xx), ${t.invalid} invalid — ${statuses}`);
    }
    expect(problems.slice(0, 40)).toEqual([]);
    // Every operation of the document got its quota (a new one too: it is in documentedOperations).
    const short = documentedOperations.filter((o) => (tallies.get(o.label)?.valid ?? 0) < VALID_PER_OPERATION || (tallies.get(o.label)?.invalid ?? 0) < INVALID_PER_OPERATION).map((o) => o.label);
    expect(short).toEqual([]);
    expect(documentedOperations.length).toBeGreaterThanOrEqual(36);
  }, 600_000);

  it('logged no unexpected error for any of it', () => {
    const unexpected = logLines(gw).filter((l) => l.msg === 'unexpected error');
    expect(unexpected.map((l) => JSON.stringify(l).slice(0, 300))).toEqual([]);
  });
});
