/**
 * The response-encoding hook does its work over the same bytes, once (issue 24 item 7), on a bare
 * Fastify (inject, no network): a successful GET's bytes are hashed once and, when large enough and
 * accepted, compressed once — the very Buffer that was hashed; a 304 and a small body are never
 * compressed; a POST is never hashed; a body Fastify serialized leaves the hook as that Buffer, so
 * Fastify neither measures nor encodes the string again. The wire-level behaviour (codings, 304,
 * Cache-Control) is pinned by test/response-encoding.int-spec.ts on the real gateway.
 * Mutations tried: identity bodies returned as the original payload (`done(null, payload)`) → "sends
 * the bytes it hashed" fails; the tag computed a second time for the If-None-Match check → "hashes
 * once" fails; compression before the 304 check → "a 304 is never compressed" fails; the size
 * threshold removed → "a small body is not compressed" fails.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Fastify, { type FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { COMPRESSION_MIN_BYTES, compressBody, entityTag, installResponseEncoding, type Coding } from './response-encoding.js';

const large = { items: Array.from({ length: 100 }, (_, i) => ({ id: `item-${i}`, text: 'é'.repeat(20) })) };
const small = { ok: true };

let app: FastifyInstance;
let tagged: Buffer[] = [];
let compressed: { coding: Coding; body: Buffer }[] = [];
/** What left the hook (the next onSend hook sees it). */
let sent: unknown[] = [];

beforeAll(async () => {
  app = Fastify();
  installResponseEncoding(app, {
    tag: (body) => {
      tagged.push(body);
      return entityTag(body);
    },
    compress: (coding, body) => {
      compressed.push({ coding, body });
      return compressBody(coding, body);
    },
  });
  app.addHook('onSend', async (_req, _reply, payload) => {
    sent.push(payload);
    return payload;
  });
  app.get('/v1/large', () => large);
  app.get('/v1/small', () => small);
  app.get('/v1/bytes', (_req, reply) => reply.header('content-type', 'application/json').send(Buffer.from(JSON.stringify(large))));
  app.post('/v1/large', () => large);
  app.get('/other', () => large);
  await app.ready();
});

afterAll(() => app.close());

async function get(url: string, headers: Record<string, string> = {}, method: 'GET' | 'POST' = 'GET') {
  [tagged, compressed, sent] = [[], [], []];
  const res = await app.inject({ method, url, headers });
  return { status: res.statusCode, headers: res.headers, bytes: res.rawPayload };
}

describe('compression and ETag over the same bytes, once', () => {
  it('the entity tag is the base64url SHA-256 of the bytes (the one-shot hash gives the digest the document describes)', () => {
    for (const body of [Buffer.alloc(0), Buffer.from('{"a":1}'), Buffer.from(JSON.stringify(large))]) {
      expect(entityTag(body)).toBe(`W/"${createHash('sha256').update(body).digest('base64url')}"`);
    }
  });

  it('hashes a GET once and compresses the very bytes it hashed, once', async () => {
    const res = await get('/v1/large', { 'accept-encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect(tagged).toHaveLength(1);
    expect(compressed).toHaveLength(1);
    expect(compressed[0]?.body).toBe(tagged[0]);
    const identity = gunzipSync(res.bytes);
    expect(identity.equals(Buffer.from(JSON.stringify(large)))).toBe(true);
    expect(res.headers.etag).toBe(entityTag(identity));
    expect(res.headers['content-encoding']).toBe('gzip');
  });

  it('sends the bytes it hashed: a serialized body leaves the hook as that Buffer, a Buffer body as it came', async () => {
    for (const url of ['/v1/large', '/v1/bytes']) {
      const res = await get(url);
      expect({ url, tagged: tagged.length, compressed: compressed.length }).toEqual({ url, tagged: 1, compressed: 0 });
      expect(Buffer.isBuffer(sent[0])).toBe(true);
      expect(sent[0]).toBe(tagged[0]);
      expect(res.headers['content-length']).toBe(String(res.bytes.length));
      expect(res.headers.etag).toBe(entityTag(res.bytes));
    }
  });

  it('a 304 is never compressed; a small body is not compressed; a POST is never hashed; a route outside /v1 is untouched', async () => {
    const tag = (await get('/v1/large')).headers.etag as string;
    const notModified = await get('/v1/large', { 'if-none-match': tag, 'accept-encoding': 'br' });
    expect({ status: notModified.status, length: notModified.bytes.length, tagged: tagged.length, compressed: compressed.length }).toEqual({ status: 304, length: 0, tagged: 1, compressed: 0 });

    const little = await get('/v1/small', { 'accept-encoding': 'br' });
    expect(little.bytes.length).toBeLessThan(COMPRESSION_MIN_BYTES);
    expect({ tagged: tagged.length, compressed: compressed.length, coding: little.headers['content-encoding'] }).toEqual({ tagged: 1, compressed: 0, coding: undefined });

    const post = await get('/v1/large', { 'accept-encoding': 'br' }, 'POST');
    expect({ tagged: tagged.length, compressed: compressed.length, etag: post.headers.etag, coding: post.headers['content-encoding'] }).toEqual({ tagged: 0, compressed: 1, etag: undefined, coding: 'br' });

    const other = await get('/other', { 'accept-encoding': 'gzip' });
    expect({ tagged: tagged.length, compressed: compressed.length, etag: other.headers.etag }).toEqual({ tagged: 0, compressed: 0, etag: undefined });
  });
});
