/**
 * What every /v1 response gets on its way out (one Fastify onSend hook; decision 0017):
 * - caching: a successful GET (200) carries a weak `ETag` over its uncompressed body and
 *   `Cache-Control: private, no-cache` — a client may keep it but must revalidate every time, and a
 *   shared cache must never keep it: the answer depends on the caller's credential and grant. A GET
 *   whose `If-None-Match` names the current ETag (or `*`) answers 304 without a body. Every other
 *   /v1 response (errors, POSTs) is `Cache-Control: no-store`;
 * - compression: a body of at least COMPRESSION_MIN_BYTES is sent `br` or `gzip` as the request's
 *   `Accept-Encoding` allows (node:zlib, off the event loop; q-values and `*` honoured; br preferred
 *   at equal weight), always with `Vary: Accept-Encoding`; otherwise it goes as is (identity).
 * The ETag is weak (`W/"…"`) because it names the JSON representation under every content coding:
 * the same body compressed is semantically the same answer, byte-for-byte different.
 * `documentResponseEncoding` states all of this in the OpenAPI document, per operation.
 */
import { hash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Bodies below this many bytes are not compressed (the framing would eat the gain). */
export const COMPRESSION_MIN_BYTES = 1024;
export const CACHE_CONTROL_READ = 'private, no-cache';
export const CACHE_CONTROL_OTHER = 'no-store';
export const CODINGS = ['br', 'gzip'] as const;
export type Coding = (typeof CODINGS)[number];

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);
// Brotli's default quality (11) takes seconds on a 4 MiB page; 5 keeps most of the ratio at gzip speed.
const compress: Record<Coding, (body: Buffer) => Promise<Buffer>> = {
  br: (body) => brotli(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } }),
  gzip: (body) => gzipAsync(body, { level: 6 }),
};

/** The coding an `Accept-Encoding` value allows, br before gzip at equal weight; undefined for identity. */
export function negotiateEncoding(header: string | undefined): Coding | undefined {
  if (!header) return undefined;
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    weights.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  let best: Coding | undefined;
  let bestQ = 0;
  for (const coding of CODINGS) {
    const q = weights.get(coding) ?? weights.get('*') ?? 0;
    if (q > bestQ) [best, bestQ] = [coding, q];
  }
  return best;
}

/** The weak entity tag of a body: W/"<base64url of its SHA-256>" (the one-shot `crypto.hash`: no Hash object per response, several times cheaper on a small body). */
export function entityTag(body: Buffer): string {
  return `W/"${hash('sha256', body, 'base64url')}"`;
}

/** Whether an `If-None-Match` value names `tag` (weak comparison, RFC 9110 13.1.2) or is `*`. */
export function matchesIfNoneMatch(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  const opaque = (t: string) => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => t.trim() === '*' || opaque(t) === opaque(tag));
}

function headerText(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

function addVary(reply: FastifyReply, value: string): void {
  const current = reply.getHeader('vary');
  const list = typeof current === 'string' ? current.split(',').map((v) => v.trim()) : [];
  if (!list.some((v) => v.toLowerCase() === value.toLowerCase() || v === '*')) void reply.header('vary', [...list.filter(Boolean), value].join(', '));
}

function bodyOf(payload: unknown): Buffer | undefined {
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  if (Buffer.isBuffer(payload)) return payload;
  return undefined;
}

/** What the hook does with a body's bytes: its entity tag, and its compression in one coding. */
export interface EncodingWork {
  tag: (body: Buffer) => string;
  compress: (coding: Coding, body: Buffer) => Promise<Buffer>;
}

export const compressBody = (coding: Coding, body: Buffer): Promise<Buffer> => compress[coding](body);

/**
 * The one pass over a response's bytes: a string payload (a body Fastify serialized) is encoded to
 * UTF-8 once, and those bytes — or a controller's Buffer (http/json-body.ts) as it is — are hashed
 * once (a successful GET), compressed once (at least COMPRESSION_MIN_BYTES, a coding accepted, not
 * a 304) and sent: the hook hands Fastify a Buffer, so it neither measures nor encodes a string
 * again. A synchronous hook (no promise) unless it compresses.
 */
export function installResponseEncoding(fastify: FastifyInstance, work: EncodingWork = { tag: entityTag, compress: compressBody }): void {
  fastify.addHook('onSend', (req: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: Error | null, value?: unknown) => void) => {
    if (!req.url.startsWith('/v1/') && req.url !== '/v1') return done(null, payload);
    const read = (req.method === 'GET' || req.method === 'HEAD') && reply.statusCode === 200;
    if (!reply.hasHeader('cache-control')) void reply.header('cache-control', read ? CACHE_CONTROL_READ : CACHE_CONTROL_OTHER);
    addVary(reply, 'Accept-Encoding');
    const body = bodyOf(payload);
    if (!body) return done(null, payload);
    if (read) {
      const tag = work.tag(body);
      void reply.header('etag', tag);
      if (matchesIfNoneMatch(headerText(req, 'if-none-match'), tag)) {
        void reply.code(304);
        reply.removeHeader('content-type');
        reply.removeHeader('content-length');
        return done(null, '');
      }
    }
    const coding = body.length >= COMPRESSION_MIN_BYTES && !reply.hasHeader('content-encoding') ? negotiateEncoding(headerText(req, 'accept-encoding')) : undefined;
    if (!coding) return done(null, body);
    work.compress(coding, body).then(
      (compressed) => {
        void reply.header('content-encoding', coding);
        reply.removeHeader('content-length');
        done(null, compressed);
      },
      (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
    );
  });
}

const cacheControl = (value: string, why: string) => ({ description: `Always \`${value}\`: ${why}`, schema: { type: 'string', enum: [value] } });
/** The response headers of installResponseEncoding, as `components.headers`. */
const HEADERS = {
  CacheControlRead: cacheControl(CACHE_CONTROL_READ, 'a client may keep the answer but must revalidate it (ETag) before each reuse; shared caches must not keep it, since it depends on the credential.'),
  CacheControlNoStore: cacheControl(CACHE_CONTROL_OTHER, 'only a successful GET may be kept (and revalidated).'),
  Vary: { description: 'Always `Accept-Encoding`: the body may be compressed.', schema: { type: 'string', enum: ['Accept-Encoding'] } },
  ContentEncoding: {
    description: `\`br\` or \`gzip\` when the request's Accept-Encoding allows it and the body has at least ${COMPRESSION_MIN_BYTES} bytes (br preferred at equal weight); absent otherwise (identity).`,
    schema: { type: 'string', enum: [...CODINGS] },
  },
  ETag: {
    description: 'Weak entity tag of the JSON body (the same under every content coding). Send it back in If-None-Match to get 304 while the answer has not changed.',
    schema: { type: 'string', pattern: '^W/"[A-Za-z0-9_-]{43}"$' },
  },
} satisfies NonNullable<NonNullable<OpenAPIObject['components']>['headers']>;
const ref = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

export const RESPONSE_ENCODING_TEXT = [
  `Compression: a /v1 body of at least ${COMPRESSION_MIN_BYTES} bytes is sent \`br\` or \`gzip\` when Accept-Encoding allows it (Vary: Accept-Encoding).`,
  `Caching: a successful GET carries a weak ETag and \`Cache-Control: ${CACHE_CONTROL_READ}\`; send the ETag in If-None-Match to get 304 without a body while the answer is unchanged. Every other response is \`Cache-Control: ${CACHE_CONTROL_OTHER}\`.`,
].join('\n');

type Operation = NonNullable<OpenAPIObject['paths'][string]['get']>;

/** Adds the headers of installResponseEncoding to every /v1 operation's responses, and each GET's 304 and If-None-Match. */
export function documentResponseEncoding(document: OpenAPIObject): void {
  document.components = { ...document.components, headers: { ...document.components?.headers, ...HEADERS } };
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith('/v1/')) continue;
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const op = item[method];
      if (op) documentOperation(method === 'get', op);
    }
  }
}

function documentOperation(read: boolean, op: Operation): void {
  for (const [status, response] of Object.entries(op.responses)) {
    if (!response || '$ref' in response) continue;
    const success = read && status === '200';
    response.headers = {
      ...response.headers,
      'Cache-Control': ref(success ? 'CacheControlRead' : 'CacheControlNoStore'),
      Vary: ref('Vary'),
      ...(success ? { ETag: ref('ETag') } : {}),
      ...(status.startsWith('2') ? { 'Content-Encoding': ref('ContentEncoding') } : {}),
    };
  }
  if (!read) return;
  op.responses['304'] ??= { description: 'Not Modified: If-None-Match names the current ETag (or is `*`). No body.', headers: { 'Cache-Control': ref('CacheControlRead'), ETag: ref('ETag'), Vary: ref('Vary') } };
  op.parameters = [
    ...(op.parameters ?? []),
    { name: 'If-None-Match', in: 'header', required: false, description: 'ETags of answers the client holds; when one names the current answer, 304 without a body.', schema: { type: 'string' } },
  ];
}
