/**
 * Compression, ETag and Cache-Control of /v1 responses (services/response-encoding.ts, decision
 * 0017), over raw HTTP so the test sees the bytes on the wire (fetch would ask for and undo the
 * compression itself): a br or gzip body decompresses to exactly the identity body, which passes
 * the OpenAPI document; If-None-Match with the current ETag is 304 without a body; a shared cache
 * is never allowed to keep an answer (Cache-Control private/no-store).
 * Mutations tried: the hook not installed (index.ts) → the compression and ETag cases fail;
 * `matchesIfNoneMatch` always false → the 304 case fails; the size threshold removed → the small
 * error case fails (Content-Encoding on a 30-byte body).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { createResponseValidator, expectValidResponse, loadOpenApi } from '@switchyard/testing';
import { COMPRESSION_MIN_BYTES, entityTag, matchesIfNoneMatch, negotiateEncoding } from '../src/services/response-encoding.js';
import { bearer, startTestGateway, type TestGateway } from './support.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

let gw: TestGateway;
let key: string;
const validator = createResponseValidator(loadOpenApi());

function raw(method: string, path: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(`${gw.url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const decode = (res: Raw): string => {
  const coding = res.headers['content-encoding'];
  if (coding === 'br') return brotliDecompressSync(res.bytes).toString('utf8');
  if (coding === 'gzip') return gunzipSync(res.bytes).toString('utf8');
  expect(coding).toBeUndefined();
  return res.bytes.toString('utf8');
};

beforeAll(async () => {
  gw = await startTestGateway();
  key = (await gw.credentials.createConsumerKey('encoding')).token;
});

afterAll(async () => {
  await gw?.close();
});

describe('compression of /v1 responses', () => {
  it.each([
    ['br', 'gzip, deflate, br'],
    ['gzip', 'gzip'],
    ['gzip', 'br;q=0.5, gzip'],
    ['br', '*'],
  ])('sends %s for Accept-Encoding "%s": the decoded body equals the identity body and passes the OpenAPI document', async (coding, accept) => {
    const identity = await raw('GET', '/v1/catalog', { ...bearer(key), 'accept-encoding': 'identity' });
    expect(identity.status).toBe(200);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.bytes.length).toBeGreaterThanOrEqual(COMPRESSION_MIN_BYTES);
    const encoded = await raw('GET', '/v1/catalog', { ...bearer(key), 'accept-encoding': accept });
    expect(encoded.status).toBe(200);
    expect(encoded.headers['content-encoding']).toBe(coding);
    expect(encoded.headers.vary).toBe('Accept-Encoding');
    expect(encoded.bytes.length).toBeLessThan(identity.bytes.length / 2);
    const text = decode(encoded);
    expect(text).toBe(identity.bytes.toString('utf8'));
    expectValidResponse(validator, { method: 'GET', path: '/v1/catalog', status: 200, body: JSON.parse(text), contentType: String(encoded.headers['content-type']) });
    // The entity tag names the representation, not its coding.
    expect(encoded.headers.etag).toBe(identity.headers.etag);
  });

  it('sends identity without Accept-Encoding, when every coding is refused, and for a body under the threshold', async () => {
    for (const accept of [undefined, 'br;q=0, gzip;q=0', 'identity', 'deflate']) {
      const res = await raw('GET', '/v1/catalog', { ...bearer(key), ...(accept ? { 'accept-encoding': accept } : {}) });
      expect({ accept, coding: res.headers['content-encoding'], vary: res.headers.vary }).toEqual({ accept, coding: undefined, vary: 'Accept-Encoding' });
      expect(JSON.parse(res.bytes.toString('utf8'))).toHaveProperty('apiVersion');
    }
    const small = await raw('GET', '/v1/catalog', { authorization: 'Bearer pt_wrong', 'accept-encoding': 'gzip, br' });
    expect(small.status).toBe(401);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.bytes.toString('utf8'))).toEqual({ error: expect.any(String) });
  });
});

describe('ETag and Cache-Control', () => {
  it('a successful GET carries a weak ETag over its body and private, no-cache', async () => {
    const res = await raw('GET', '/v1/catalog', bearer(key));
    expect(res.headers['cache-control']).toBe('private, no-cache');
    expect(res.headers.etag).toBe(entityTag(res.bytes));
    expect(res.headers.etag).toMatch(/^W\/"[A-Za-z0-9_-]{43}"$/);
  });

  it('If-None-Match naming the current ETag is 304 without a body, with the same ETag; another tag is 200', async () => {
    const first = await raw('GET', '/v1/catalog', bearer(key));
    const tag = String(first.headers.etag);
    for (const inm of [tag, tag.replace(/^W\//, ''), `W/"other", ${tag}`, '*']) {
      const res = await raw('GET', '/v1/catalog', { ...bearer(key), 'if-none-match': inm, 'accept-encoding': 'gzip' });
      expect({ inm, status: res.status, length: res.bytes.length }).toEqual({ inm, status: 304, length: 0 });
      expect(res.headers.etag).toBe(tag);
      expect(res.headers['cache-control']).toBe('private, no-cache');
      expectValidResponse(validator, { method: 'GET', path: '/v1/catalog', status: 304, body: '', contentType: '' });
    }
    const changed = await raw('GET', '/v1/catalog', { ...bearer(key), 'if-none-match': 'W/"not-this-one"' });
    expect(changed.status).toBe(200);
    expect(changed.bytes.toString('utf8')).toBe(first.bytes.toString('utf8'));
  });

  it('an error is no-store and never 304, whatever If-None-Match says', async () => {
    const res = await raw('GET', '/v1/catalog', { authorization: 'Bearer pt_wrong', 'if-none-match': '*' });
    expect(res.status).toBe(401);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.etag).toBeUndefined();
  });

  it('the validating client sees the same (fetch decompresses)', async () => {
    const res = await gw.call('GET', '/v1/catalog', { headers: bearer(key) });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-cache');
  });
});

describe('negotiation and matching rules', () => {
  it('prefers br at equal weight, honours q=0 and *, ignores unknown codings', () => {
    expect(negotiateEncoding(undefined)).toBeUndefined();
    expect(negotiateEncoding('gzip, br')).toBe('br');
    expect(negotiateEncoding('gzip;q=1, br;q=0.9')).toBe('gzip');
    expect(negotiateEncoding('*;q=0.1, br;q=0')).toBe('gzip');
    expect(negotiateEncoding('*;q=0')).toBeUndefined();
    expect(negotiateEncoding('compress, deflate')).toBeUndefined();
    expect(negotiateEncoding(' GZIP ')).toBe('gzip');
  });

  it('compares entity tags weakly', () => {
    expect(matchesIfNoneMatch('W/"a"', 'W/"a"')).toBe(true);
    expect(matchesIfNoneMatch('"a"', 'W/"a"')).toBe(true);
    expect(matchesIfNoneMatch('"b", W/"a"', 'W/"a"')).toBe(true);
    expect(matchesIfNoneMatch('"b"', 'W/"a"')).toBe(false);
    expect(matchesIfNoneMatch(undefined, 'W/"a"')).toBe(false);
  });
});
