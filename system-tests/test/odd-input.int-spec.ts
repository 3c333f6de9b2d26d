/**
 * Odd input on every built route (issue 18, "Done when"): the operations come from the committed
 * OpenAPI document — not a hand list — and each gets a generated set of odd but legal-looking
 * requests: dates at PostgreSQL's and JavaScript's limits in every query parameter and in the body,
 * long and oddly encoded ids in every path parameter, invalid UTF-8 and percent-encodings, `+` in
 * dates, huge cursors, deep and odd bodies, duplicate and oversized headers, a missing Host. Every
 * answer must be below 500, and an error must be exactly `{"error": "<reason_code>"}` with the
 * status the contracts table gives the code; every answer is validated against the document's
 * operation it was sent to (status documented, body schema). The gateway runs with every context
 * its routes call, so a 503 here would be a real failure, not a missing service.
 * Mutations tried: dropping the date range check of http/instant.ts makes the year-0 `from` a 500
 * from PostgreSQL; dropping the body depth cap of http/configure.ts makes the 5,000-level body a 500.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { isErrorCode, statusOf } from '@switchyard/contracts';
import { driverId, groupId, tripId, vehicleId } from '@switchyard/domain';
import { createResponseValidator } from '@switchyard/testing';
import { concretePath as concrete, documentedOperations, openApiDocument, pathParameterNames, usesApplicationSecret, type Operation, type Parameter } from './openapi-operations.js';
import { logLines, startTestGateway, UNLIMITED_REQUEST_RATE, type TestGateway } from './support.js';
import { readKey } from './reads-fixture.js';
import { createConnection, createSyncApp, type SyncApp } from './syncs-fixture.js';

const validator = createResponseValidator(openApiDocument);
const operations = documentedOperations;

let gw: TestGateway;
let connectionId: string;
let key: Record<string, string>;
let app: SyncApp;
let syncId: string;

beforeAll(async () => {
  gw = await startTestGateway({ syncOrchestrator: true, directory: true, telemetryIngest: true, faultFeed: true, enrichment: {}, rpcTimeoutMs: 10_000, requestRate: UNLIMITED_REQUEST_RATE });
  connectionId = await createConnection(gw);
  key = (await readKey(gw, [connectionId])).headers;
  app = await createSyncApp(gw, connectionId);
  const created = await gw.call('POST', '/v1/syncs', { headers: app.headers });
  expect(created.status).toBe(201);
  syncId = (created.body as { id: string }).id;
}, 120_000);

afterAll(async () => {
  await gw?.close();
});

const ref = { provider: 'samsara' as const, sourceId: 'odd-input' };
/** A well-formed value for each path parameter, so one odd parameter at a time is what is tested. */
function pathValues(): Record<string, string> {
  const source = { ...ref, connectionId };
  return { id: connectionId, tripId: tripId(source), driverId: driverId(source), groupId: groupId(source), vehicleId: vehicleId(source) };
}

const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000';

/** The operation's path with well-formed values (the real sync id on sync routes). */
function pathOf(template: string): string {
  return concrete(template, template.startsWith('/v1/syncs') ? { ...pathValues(), id: syncId } : pathValues(), UNKNOWN_UUID);
}

function headersFor(op: Operation, path: string): Record<string, string> {
  const app_ = usesApplicationSecret(op);
  return app_ || path.startsWith('/v1/syncs') ? { ...app.headers } : { ...key };
}

/** Odd values for a date-time (query or body). */
const ODD_DATES = [
  '0000-01-01T00:00:00Z',
  '0000-12-31T23:59:59.999Z',
  '0001-01-01T00:00:00+01:00',
  '-infinity',
  'infinity',
  '294276-12-31T23:59:59Z',
  '294277-01-01T00:00:00Z',
  '+294277-01-01T00:00:00Z',
  '-004713-11-24T00:00:00Z',
  '4714-11-24T00:00:00Z BC',
  '4713-01-01 BC',
  '9999-12-31T23:59:59.999Z',
  '9999-12-31T23:59:59.999-01:00',
  '10000-01-01T00:00:00Z',
  '+275760-09-13T00:00:00.000Z',
  '2026-11-24T00:00:00+02:00',
  '2026-11-24t00:00:00z',
  '2026-11-24T23:59:60Z',
  '2026-02-30T00:00:00Z',
  '2026-11-24T00:00:00.123456789Z',
  '1970-01-01T00:00:00Z',
  '2026-11-24',
  'now',
];

/** Short windows at and past the limits of PostgreSQL and the wire form, for routes with two date-times. */
const ODD_WINDOWS: [string, string][] = [
  ['0000-01-01T00:00:00Z', '0000-01-01T01:00:00Z'],
  ['0000-12-31T23:00:00Z', '0001-01-01T00:30:00Z'],
  ['0001-01-01T00:00:00Z', '0001-01-01T01:00:00Z'],
  ['0001-01-01T00:30:00+01:00', '0001-01-01T01:00:00Z'],
  ['9999-12-31T23:00:00Z', '9999-12-31T23:59:59.999Z'],
  ['9999-12-31T23:00:00Z', '9999-12-31T23:59:59.999-01:00'],
  // The first and last day accepted (decision 0016: a day inside the four-digit years).
  ['0001-01-02T00:00:00Z', '0001-01-02T01:00:00Z'],
  ['9999-12-30T23:00:00Z', '9999-12-30T23:59:59.999Z'],
  ['1969-12-31T23:00:00Z', '1970-01-01T01:00:00Z'],
  ['2026-11-01t00:00:00z', '2026-11-01t01:00:00z'],
];

/** Raw (already URL-encoded or deliberately not) values for any query parameter. */
const ODD_QUERY_VALUES = [
  ...ODD_DATES.map((d) => encodeURIComponent(d)),
  '2026-11-24T00:00:00+02:00', // the unencoded +, which becomes a space
  '%FF',
  '%C3%28',
  '%E0%A4%A',
  '%00',
  '%ED%A0%80',
  '',
  'a'.repeat(5000),
  '-1',
  '0',
  '1e309',
  'NaN',
  '%5B%5D',
  `${'vcl_'}${'0'.repeat(26).toLowerCase()}`,
  Array.from({ length: 51 }, () => vehicleId({ ...ref, connectionId: '00000000-0000-4000-8000-000000000000' })).join(','),
  'issues,issues',
  'vehicle,vehicle,driver',
  'groups,',
];

/** Odd values for a path parameter: lengths at the router's old limit, encodings, case. */
function oddPathValues(name: string, valid: string): string[] {
  return [
    'a'.repeat(100),
    'a'.repeat(101),
    'a'.repeat(10_000),
    `${valid}${'0'.repeat(80)}`,
    valid.slice(0, valid.indexOf('_') + 1) + valid.slice(valid.indexOf('_') + 1).toLowerCase(),
    valid.toUpperCase(),
    encodeURIComponent(valid),
    `${valid}%2F..`,
    '%FF',
    '%C3%28',
    '%E0%A4%A',
    '%00',
    '...',
    `${name}%20${valid}`,
    '%2B',
  ];
}

/**
 * Well-formed values of the required query parameters: a date-time window of one day (the end
 * parameter after the start one), the first value of an enum, else `1`.
 */
function baseline(parameters: Parameter[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const p of parameters.filter((q) => q.required)) {
    if (p.schema?.format === 'date-time') values[p.name] = /end|to$/i.test(p.name) ? '2026-11-02T00:00:00Z' : '2026-11-01T00:00:00Z';
    else values[p.name] = String(p.schema?.enum?.[0] ?? '1');
  }
  return values;
}

interface Sent {
  label: string;
  method: string;
  template: string;
  status: number;
  body: string;
  contentType: string | null;
  requestId: string | null;
}

const problems: string[] = [];
beforeEach(() => {
  problems.length = 0;
});

function check(sent: Sent): void {
  const where = `${sent.label} [${sent.method} ${sent.template}]`;
  if (sent.status >= 500) problems.push(`${where}: ${sent.status} ${sent.body.slice(0, 120)}`);
  // The request rate limit is lifted for this suite: a 429 would mean the odd input never reached the route.
  if (sent.status === 429) problems.push(`${where}: 429 (rate limited: the input was not tried)`);
  if (!sent.requestId) problems.push(`${where}: no x-request-id`);
  if (sent.status >= 400) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(sent.body);
    } catch {
      problems.push(`${where}: ${sent.status} body is not JSON: ${sent.body.slice(0, 120)}`);
      return;
    }
    const keys = parsed && typeof parsed === 'object' ? Object.keys(parsed) : [];
    const code = (parsed as { error?: unknown }).error;
    if (keys.length !== 1 || !isErrorCode(code) || statusOf(code) !== sent.status) problems.push(`${where}: not contract-shaped: ${sent.status} ${sent.body.slice(0, 120)}`);
  }
  // Validated against the operation the request was sent to (a placeholder path finds it).
  const path = concrete(sent.template, {});
  const found = validator.validate({ method: sent.method, path, status: sent.status, body: sent.body === '' ? undefined : sent.body, contentType: sent.contentType ?? undefined });
  problems.push(...found.map((p) => `${where}: ${p}`));
}

async function send(label: string, method: string, template: string, url: string, init: { headers: Record<string, string>; body?: string | Uint8Array }): Promise<Sent> {
  const res = await fetch(`${gw.url}${url}`, { method, headers: init.headers, ...(init.body !== undefined ? { body: init.body } : {}) });
  const sent = { label, method, template, status: res.status, body: await res.text(), contentType: res.headers.get('content-type'), requestId: res.headers.get('x-request-id') };
  check(sent);
  return sent;
}

/** Raw bytes over a socket (duplicate header lines, no Host, bytes fetch would encode); the server may close after answering. */
function rawHttp(bytes: Buffer): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { hostname, port } = new URL(gw.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      let body = text.slice(split + 4);
      // A chunked answer (a JSON body written by Fastify after routing): one chunk, then the terminator.
      if (headers['transfer-encoding'] === 'chunked') body = body.split('\r\n').filter((_l, i) => i % 2 === 1).join('');
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
    socket.write(bytes);
  });
}

async function sendRaw(label: string, method: string, template: string, bytes: Buffer): Promise<void> {
  const res = await rawHttp(bytes);
  check({ label, method, template, status: res.status, body: res.body, contentType: res.headers['content-type'] ?? null, requestId: res.headers['x-request-id'] ?? null });
}

describe('generated odd input on every operation of the document', () => {
  it('covers every documented operation', () => {
    expect(operations.length).toBeGreaterThanOrEqual(17);
  });

  it('odd path parameters: no 5xx, only contract-shaped, documented answers', async () => {
    for (const { method, template, op, label } of operations) {
      const values = pathValues();
      values.id = connectionId;
      for (const name of pathParameterNames(template)) {
        // A parameter this suite has no value for (e.g. a session uuid) gets a well-formed unknown uuid.
        const valid = name === 'id' && template.startsWith('/v1/syncs') ? syncId : (values[name] ?? UNKNOWN_UUID);
        const base = { ...values, ...(template.startsWith('/v1/syncs') ? { id: syncId } : {}) };
        for (const odd of oddPathValues(name, valid)) {
          await send(`${label} ${name}=${odd.slice(0, 40)}…`, method, template, concrete(template, { ...base, [name]: odd }, UNKNOWN_UUID), { headers: headersFor(op, template) });
        }
      }
      // A trailing slash is the same operation (decision 0016).
      const base = template.startsWith('/v1/syncs') ? { ...values, id: syncId } : values;
      await send(`${label} trailing slash`, method, template, `${concrete(template, base, UNKNOWN_UUID)}/`, { headers: headersFor(op, template) });
    }
    expect(problems).toEqual([]);
  }, 300_000);

  it('odd query values in every parameter (and in undeclared ones): no 5xx, only contract-shaped, documented answers', async () => {
    for (const { method, template, op, label } of operations) {
      const path = pathOf(template);
      const declared = (op.parameters ?? []).filter((p) => p.in === 'query');
      const names = [...declared.map((p) => p.name), 'undeclared'];
      const base = baseline(declared);
      // The other required parameters stay well-formed, so the odd one is what the route reads.
      const query = (name: string, value: string) => Object.entries({ ...base, [name]: value }).map(([n, v]) => `${n}=${v}`).join('&');
      const others = (name: string) => Object.entries(base).filter(([n]) => n !== name).map(([n, v]) => `${n}=${v}&`).join('');
      for (const name of names) {
        for (const value of ODD_QUERY_VALUES) {
          await send(`${label} ?${name}=${value.slice(0, 40)}`, method, template, `${path}?${query(name, value)}`, { headers: headersFor(op, template) });
        }
        await send(`${label} ?${name} repeated`, method, template, `${path}?${others(name)}${name}=1&${name}=2`, { headers: headersFor(op, template) });
        await send(`${label} ?${name}[]`, method, template, `${path}?${others(name)}${name}[]=1`, { headers: headersFor(op, template) });
        // A huge cursor (or any value) over the 16 KiB header limit: 431 in the contract shape.
        await send(`${label} ?${name}=20 KiB`, method, template, `${path}?${query(name, 'c'.repeat(20_000))}`, { headers: headersFor(op, template) });
      }
      // Both ends of a window odd at once (a window cap would otherwise refuse first): short windows at and past the limits.
      const dates = declared.filter((p) => p.schema?.format === 'date-time').map((p) => p.name);
      if (dates.length === 2) {
        const [start, end] = /end|to$/i.test(dates[0]!) ? [dates[1]!, dates[0]!] : [dates[0]!, dates[1]!];
        for (const [a, b] of ODD_WINDOWS) {
          const q = Object.entries({ ...base, [start]: a, [end]: b }).map(([n, v]) => `${n}=${encodeURIComponent(v)}`).join('&');
          await send(`${label} ${start}=${a}&${end}=${b}`, method, template, `${path}?${q}`, { headers: headersFor(op, template) });
        }
      }
    }
    expect(problems).toEqual([]);
  }, 600_000);

  it('odd bodies on every operation, with or without a request body: no 5xx, only contract-shaped, documented answers', async () => {
    const deep = `{"startFrom":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const bodies: [string, string, string | Uint8Array][] = [
      ['5,000 levels deep (10 KB)', 'application/json', deep],
      ['deep object', 'application/json', `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`],
      ['startFrom not a string', 'application/json', '{"startFrom":123}'],
      ['lookbackDays 1e309', 'application/json', '{"lookbackDays":1e309}'],
      ['lookbackDays tiny', 'application/json', '{"lookbackDays":1e-300}'],
      ['invalid UTF-8', 'application/json', Buffer.from([0x7b, 0x22, 0x73, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
      ['lone surrogate escape', 'application/json', '{"startFrom":"\\ud800"}'],
      ['prototype key', 'application/json', '{"__proto__":{"x":1}}'],
      ['null', 'application/json', 'null'],
      ['array', 'application/json', '[]'],
      ['empty object', 'application/json', '{}'],
      ['text/plain', 'text/plain', 'hello'],
      ['form', 'application/x-www-form-urlencoded', 'a=1'],
      ['over the size limit', 'application/json', JSON.stringify({ pad: 'x'.repeat(2_000_000) })],
      ...ODD_DATES.map((d): [string, string, string] => [`startFrom ${d}`, 'application/json', JSON.stringify({ startFrom: d })]),
    ];
    for (const { method, template, op, label } of operations) {
      if (method === 'GET') continue;
      const path = pathOf(template);
      for (const [name, type, body] of bodies) await send(`${label} body ${name}`, method, template, path, { headers: { ...headersFor(op, template), 'content-type': type }, body });
    }
    // GET with a body (fetch refuses to send one): still never a 5xx.
    for (const { method, template, op, label } of operations.filter((o) => o.method === 'GET')) {
      const path = pathOf(template);
      const lines = Object.entries(headersFor(op, template)).map(([n, v]) => `${n}: ${v}`);
      const head = [`GET ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...lines, 'content-type: application/json', `content-length: ${Buffer.byteLength(deep)}`, 'Connection: close', '', ''].join('\r\n');
      await sendRaw(`${label} GET with a JSON body`, method, template, Buffer.from(head + deep));
    }
    expect(problems).toEqual([]);
  }, 300_000);

  it('odd header lines on every operation (duplicates, oversized, non-ASCII, missing Host, raw bytes): no 5xx, only contract-shaped, documented answers', async () => {
    for (const { method, template, op, label } of operations) {
      const path = pathOf(template);
      const headers = headersFor(op, template);
      const lines = Object.entries(headers).map(([n, v]) => `${n}: ${v}`);
      const request = (extra: string[], target = path, host = true) => Buffer.from([`${method} ${target} HTTP/1.1`, ...(host ? ['Host: 127.0.0.1'] : []), ...lines, ...extra, 'Connection: close', '', ''].join('\r\n'), 'latin1');
      await sendRaw(`${label} two Authorization lines`, method, template, request([`authorization: ${headers.authorization}`]));
      await sendRaw(`${label} two Authorization lines, second bad`, method, template, request(['authorization: Bearer pt_bad']));
      await sendRaw(`${label} two Connection-Token lines`, method, template, request(['connection-token: ct_other']));
      await sendRaw(`${label} two x-request-id lines`, method, template, request(['x-request-id: a', 'x-request-id: b']));
      await sendRaw(`${label} two Host lines`, method, template, request(['Host: other']));
      await sendRaw(`${label} two Content-Length lines`, method, template, request(['Content-Length: 0', 'Content-Length: 5']));
      await sendRaw(`${label} header over 16 KiB`, method, template, request([`x-big: ${'b'.repeat(20_000)}`]));
      await sendRaw(`${label} non-ASCII header value`, method, template, request(['x-odd: caf\u00e9 \u00ff']));
      await sendRaw(`${label} malformed header line`, method, template, request(['this is not a header']));
      await sendRaw(`${label} no Host`, method, template, request([], path, false));
      // A dot-segment as a path id, sent raw (fetch would resolve it, even percent-encoded, before sending).
      if (template.endsWith('}')) {
        for (const dots of ['..', '%2E%2E', '.']) await sendRaw(`${label} last id ${dots}`, method, template, request([], path.replace(/[^/]+$/, dots)));
      }
      await sendRaw(`${label} raw invalid UTF-8 in the query`, method, template, Buffer.concat([Buffer.from(`${method} ${path}?x=`), Buffer.from([0xff, 0xfe]), Buffer.from(` HTTP/1.1\r\nHost: 127.0.0.1\r\n${lines.join('\r\n')}\r\nConnection: close\r\n\r\n`)]));
    }
    expect(problems).toEqual([]);
  }, 300_000);

  it('logged no unexpected error for any of it', () => {
    const unexpected = logLines(gw).filter((l) => l.msg === 'unexpected error');
    expect(unexpected.map((l) => JSON.stringify(l).slice(0, 300))).toEqual([]);
  });
});
