/**
 * The SDK against the document it is generated from: the committed generated file is what
 * `npm run openapi` writes today (stale → fails), every operation of openapi/openapi.json has a
 * client method, and each method's request — method, path, query string, credentials, body — is
 * the one the document declares, read from the document here, not from the generated table.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient, METHOD_NAMES } from '../src/index.js';
import { startLoopback, type Loopback } from './loopback.js';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  style?: string;
  explode?: boolean;
  schema?: { type?: string; format?: string; enum?: string[]; minimum?: number; items?: { enum?: string[] } };
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  security?: Record<string, string[]>[];
  requestBody?: { content: Record<string, { schema: { $ref?: string; properties?: unknown } }> };
}

const root = path.resolve(import.meta.dirname, '../../..');
const doc = JSON.parse(readFileSync(path.join(root, 'openapi/openapi.json'), 'utf8')) as { paths: Record<string, Record<string, Operation>> };
const operations = Object.entries(doc.paths).flatMap(([route, item]) => Object.entries(item).map(([method, op]) => ({ route, method: method.toUpperCase(), op })));
const credentials = { consumerKey: 'pt_consumer', applicationSecret: 'sk_sandbox_secret', connectionToken: 'ct_token' };
const WHEN = new Date('2026-03-04T05:06:07.089Z');

/** A value for a query parameter and how the document says it travels (RFC 6570 form style). */
function sample(p: Parameter): { value: unknown; wire: string[] } {
  const s = p.schema ?? {};
  if (s.type === 'array') {
    const items = s.items?.enum ?? ['a', 'b'];
    const explode = p.explode ?? (p.style ?? 'form') === 'form';
    return { value: items, wire: explode ? items.map((i) => `${p.name}=${encodeURIComponent(i)}`) : [`${p.name}=${items.map(encodeURIComponent).join(',')}`] };
  }
  if (s.format === 'date-time') return { value: WHEN, wire: [`${p.name}=2026-03-04T05%3A06%3A07.089Z`] };
  if (s.enum) return { value: s.enum[0], wire: [`${p.name}=${encodeURIComponent(s.enum[0]!)}`] };
  if (s.type === 'integer') return { value: s.minimum ?? 1, wire: [`${p.name}=${s.minimum ?? 1}`] };
  // A '+' must travel as %2B (the document's date-time note); a comma inside a plain string stays one value.
  return { value: 'x+y z', wire: [`${p.name}=x%2By%20z`] };
}

describe('@switchyard/sdk generated from openapi/openapi.json', () => {
  let server: Loopback;
  beforeAll(async () => {
    server = await startLoopback(() => ({ status: 200, body: {} }));
  });
  afterAll(() => server.close());

  it('is not stale: the committed src/generated/openapi.ts is what npm run openapi writes', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sdk-gen-'));
    try {
      execFileSync(process.execPath, [path.join(root, 'libs/sdk/scripts/generate.mjs'), path.join(root, 'openapi/openapi.json'), path.join(dir, 'openapi.ts')]);
      expect(readFileSync(path.join(root, 'libs/sdk/src/generated/openapi.ts'), 'utf8')).toBe(readFileSync(path.join(dir, 'openapi.ts'), 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has a method for every operation of the document, and nothing else', () => {
    const client = createClient({ baseUrl: server.baseUrl, ...credentials }) as unknown as Record<string, Record<string, unknown>>;
    expect(Object.keys(METHOD_NAMES).sort()).toEqual(operations.map((o) => o.op.operationId).sort());
    for (const { op } of operations) {
      const name = (METHOD_NAMES as Record<string, string>)[op.operationId]!;
      const [ns, fn] = name.split('.') as [string, string];
      expect({ operationId: op.operationId, method: typeof client[ns]?.[fn] }).toEqual({ operationId: op.operationId, method: 'function' });
    }
  });

  it.each(operations.map((o) => [o.op.operationId, o] as const))('%s sends the request the document declares', async (_id, { route, method, op }) => {
    const client = createClient({ baseUrl: `${server.baseUrl}/`, ...credentials }) as unknown as Record<string, Record<string, (...args: unknown[]) => PromiseLike<unknown>>>;
    const [ns, fn] = (METHOD_NAMES as Record<string, string>)[op.operationId]!.split('.') as [string, string];
    const params = op.parameters ?? [];
    const pathNames = [...route.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const pathValues = pathNames.map((name) => `${name}/1 2`);
    const query = params.filter((p) => p.in === 'query');
    const samples = query.map((p) => [p, sample(p)] as const);
    const schema = op.requestBody?.content['application/json']?.schema;
    const hasBody = Boolean(schema?.$ref ?? schema?.properties);
    const args: unknown[] = [...pathValues];
    if (hasBody) args.push({});
    if (query.length) args.push(Object.fromEntries(samples.map(([p, s]) => [p.name, s.value])));

    const before = server.requests.length;
    await client[ns]![fn]!(...args);
    expect(server.requests.length).toBe(before + 1);
    const sent = server.requests[before]!;
    const [pathname, rawQuery = ''] = sent.url.split('?') as [string, string?];

    expect(sent.method).toBe(method);
    expect(pathname).toBe(pathNames.reduce((r, name, i) => r.replace(`{${name}}`, encodeURIComponent(pathValues[i]!)), route));
    expect(rawQuery.split('&').filter(Boolean).sort()).toEqual(samples.flatMap(([, s]) => s.wire).sort());
    const scheme = Object.keys(op.security?.[0] ?? {})[0];
    expect(sent.headers.authorization).toBe(`Bearer ${scheme === 'applicationSecret' ? credentials.applicationSecret : credentials.consumerKey}`);
    const tokenDeclared = params.some((p) => p.in === 'header' && p.name === 'Connection-Token');
    expect(sent.headers['connection-token']).toBe(tokenDeclared ? credentials.connectionToken : undefined);
    expect(sent.headers['content-type']).toBe(hasBody ? 'application/json' : undefined);
    expect(sent.body).toBe(hasBody ? '{}' : '');
  });

  it('refuses a query parameter the operation does not declare before sending (the server answers 400 invalid_query)', async () => {
    const client = createClient({ baseUrl: server.baseUrl, ...credentials });
    const before = server.requests.length;
    await expect(client.trips.list('c', { expand: ['vehicle'], colour: 'red' } as never)).rejects.toThrow('"colour" is not a query parameter');
    expect(server.requests.length).toBe(before);
  });

  it('refuses a call whose credential is missing, before sending', async () => {
    const readsOnly = createClient({ baseUrl: server.baseUrl, consumerKey: 'pt_x' });
    await expect(readsOnly.syncs.list()).rejects.toThrow('applicationSecret');
    const noToken = createClient({ baseUrl: server.baseUrl, applicationSecret: 'sk_sandbox_x' });
    await expect(noToken.syncs.get('s')).rejects.toThrow('connection token');
    await noToken.syncs.get('s', { connectionToken: 'ct_call' });
    expect(server.requests.at(-1)!.headers['connection-token']).toBe('ct_call');
  });
});
