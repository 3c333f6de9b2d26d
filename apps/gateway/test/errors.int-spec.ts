/**
 * Spec 7 over real HTTP: every error leaves the gateway as exactly `{"error":"<code>"}` with the
 * status of the contracts table and an `x-request-id` header, and bad input is never a 500. Probe
 * controllers (mounted beside the real module) give the parser, the validation pipe and the filter
 * routes with a body, a query DTO, a path DTO, a context RPC and a handler that fails.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Body, Controller, Get, Module, Param, Post, Query } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { RPCS, type Subscription } from '@switchyard/messaging';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../src/http/error.filter.js';
import { ContextClient, GatewayModule } from '../src/index.js';
import { bearer, expectError, logLines, startTestGateway, type TestGateway } from './support.js';

class ProbeBodyDto {
  @IsString() @Length(1, 64) name!: string;
}
class ProbeQueryDto {
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100) limit?: number;
  @IsOptional() @IsString() cursor?: string;
}
class ProbeParamsDto {
  @Matches(/^vcl_[0-7][0-9A-HJKMNP-TV-Z]{25}$/) vehicleId!: string;
}

const SQL_MESSAGE = 'select secret from x';

@ApiExcludeController()
@Controller('v1/test-errors')
class ErrorProbeController {
  constructor(private readonly contexts: ContextClient) {}

  @Post('body')
  body(@Body() body: ProbeBodyDto) {
    return { received: body.name };
  }

  @Get('query')
  query(@Query() query: ProbeQueryDto) {
    return { limit: query.limit ?? null };
  }

  @Get('vehicles/:vehicleId')
  vehicle(@Param() params: ProbeParamsDto) {
    return { vehicleId: params.vehicleId };
  }

  @Get('directory-ping')
  ping() {
    return this.contexts.request(RPCS.ping.directory, {});
  }

  @Get('boom')
  boom(): never {
    throw new Error(SQL_MESSAGE);
  }
}
@Module({ imports: [GatewayModule], controllers: [ErrorProbeController] })
class ErrorProbeModule {}

const RPC_TIMEOUT_MS = 400;
const BODY_LIMIT = 2048;

let gw: TestGateway;
let key: string;

beforeAll(async () => {
  gw = await startTestGateway({ extraModules: [ErrorProbeModule], rpcTimeoutMs: RPC_TIMEOUT_MS, bodyLimit: BODY_LIMIT });
  key = (await gw.credentials.createConsumerKey('errors')).token;
});

afterAll(async () => {
  await gw?.close();
});

const raw = (method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}) => gw.call(method, path, { ...init, validate: false });
const json = { 'content-type': 'application/json' };

describe('routing', () => {
  it.each(['GET', 'POST', 'PUT', 'DELETE'])('%s on an unknown route is 404 not_found', async (method) => {
    expectError(await raw(method, '/v1/no-such-route'), 404, 'not_found');
    expectError(await raw(method, '/nothing/here/at/all'), 404, 'not_found');
  });

  it('a wrong method on a known path is 405 method_not_allowed with an Allow header', async () => {
    for (const path of ['/v1/catalog', '/v1/test-errors/body', '/v1/connections/7a1f9c1e-3b7d-4d6e-9a51-2d0f4b8e7c13']) {
      const res = await raw(path.endsWith('body') ? 'GET' : 'DELETE', path, { headers: bearer(key) });
      expectError(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow')).toBe(path.endsWith('body') ? 'POST' : 'GET, HEAD');
    }
  });

  it('a malformed percent-encoding in the path is 400 invalid_path, not a framework body', async () => {
    expectError(await raw('GET', '/v1/connections/%E0%A4%A/capabilities', { headers: bearer(key) }), 400, 'invalid_path');
  });

  it('an over-long id is answered like any malformed id of its parameter, whatever its length (issue 18 item 8)', async () => {
    // Fastify's default maxParamLength (100) made 101 characters a router 404 while 100 were the route's 400.
    for (const length of [100, 101, 500, 10_000]) {
      const res = await raw('GET', `/v1/test-errors/vehicles/${'v'.repeat(length)}`);
      expect({ length, status: res.status }).toEqual({ length, status: 400 });
      expectError(res, 400, 'invalid_path');
      // A connection id is the guard's: malformed or unknown, the same 404 (spec 5 rule 4).
      expectError(await raw('GET', `/v1/connections/${'a'.repeat(length)}`, { headers: bearer(key) }), 404, 'not_found');
    }
  });

  it('one trailing slash is ignored, on known routes and in the 405 table alike (issue 18 item 8)', async () => {
    expect((await raw('GET', '/v1/catalog/', { headers: bearer(key) })).status).toBe(200);
    expect((await raw('POST', '/v1/test-errors/body/', { headers: json, body: '{"name":"probe"}' })).status).toBe(201);
    const wrong = await raw('DELETE', '/v1/catalog/', { headers: bearer(key) });
    expectError(wrong, 405, 'method_not_allowed');
    expect(wrong.headers.get('allow')).toBe('GET, HEAD');
    expectError(await raw('GET', '/v1/catalog//', { headers: bearer(key) }), 404, 'not_found');
  });
});

/** Sends raw bytes and reads the whole answer (the server closes after a client error). */
function rawHttp(request: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { hostname, port } = new URL(gw.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
    socket.write(request);
  });
}

describe('requests the HTTP parser refuses answer in the contract shape (issue 18 item 6)', () => {
  const contractShaped = (res: { status: number; headers: Record<string, string>; body: string }, status: number, code: string) => {
    expect({ status: res.status, body: res.body }).toEqual({ status, body: JSON.stringify({ error: code }) });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  };

  it('headers over 16 KiB are 431 headers_too_large', async () => {
    contractShaped(await rawHttp(`GET /v1/catalog HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`), 431, 'headers_too_large');
  });

  it('a URL (a huge cursor) over 16 KiB is 431 headers_too_large', async () => {
    contractShaped(await rawHttp(`GET /v1/syncs?cursor=${'c'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`), 431, 'headers_too_large');
  });

  it('a malformed header line is 400 malformed_request, with its detail and one log line', async () => {
    const res = await rawHttp('GET /v1/catalog HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n');
    contractShaped(res, 400, 'malformed_request');
    expect(res.headers['switchyard-error-detail']).toBe('in=request, reason=unparsable');
    const line = logLines(gw).find((l) => l.requestId === res.headers['x-request-id']);
    expect(line).toMatchObject({ msg: 'client error', error: 'malformed_request', status: 400 });
  });

  it('an HTTP/1.1 request without Host is 400 malformed_request (an empty 400 before)', async () => {
    const res = await rawHttp('GET /v1/catalog HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: JSON.stringify({ error: 'malformed_request' }) });
    expect(res.headers['switchyard-error-detail']).toBe('in=header, name="host", reason=missing_host');
  });

  it('an unknown route is 404 not_found in the contract shape', async () => {
    const res = await rawHttp('GET /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: JSON.stringify({ error: 'not_found' }) });
  });
});

describe('request bodies', () => {
  it('a valid JSON body reaches the handler', async () => {
    const res = await raw('POST', '/v1/test-errors/body', { headers: json, body: '{"name":"probe"}' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ received: 'probe' });
  });

  it.each([
    ['malformed JSON', '{"name":'],
    ['a JSON array', '[1,2]'],
    ['a JSON string', '"probe"'],
    ['JSON null', 'null'],
    ['a schema failure', '{"name":""}'],
    ['an unknown property', '{"name":"probe","extra":1}'],
    ['a prototype-poisoning key', '{"name":"probe","__proto__":{"admin":true}}'],
    ['a constructor-poisoning key', '{"name":"probe","constructor":{"prototype":{"admin":true}}}'],
  ])('%s is 400 invalid_body', async (_label, body) => {
    expectError(await raw('POST', '/v1/test-errors/body', { headers: json, body }), 400, 'invalid_body');
  });

  it.each([
    ['malformed JSON', '{"name":'],
    ['whitespace only (no JSON text, and not "no body")', ' \t\r\n '],
  ])('%s says why: in=body, reason=not_json', async (_label, body) => {
    const res = await raw('POST', '/v1/test-errors/body', { headers: json, body });
    expectError(res, 400, 'invalid_body');
    expect(res.headers.get('switchyard-error-detail')).toBe('in=body, reason=not_json');
  });

  it('an empty body sent as application/json is 400 invalid_body', async () => {
    expectError(await raw('POST', '/v1/test-errors/body', { headers: json, body: '' }), 400, 'invalid_body');
  });

  it('no body at all on a route that needs one is 400 invalid_body', async () => {
    expectError(await raw('POST', '/v1/test-errors/body'), 400, 'invalid_body');
  });

  it(`a body over the ${BODY_LIMIT}-byte limit is 413 payload_too_large`, async () => {
    const body = JSON.stringify({ name: 'x'.repeat(BODY_LIMIT) });
    expectError(await raw('POST', '/v1/test-errors/body', { headers: json, body }), 413, 'payload_too_large');
  });

  it.each(['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'])('a %s body is 415 unsupported_media_type', async (type) => {
    expectError(await raw('POST', '/v1/test-errors/body', { headers: { 'content-type': type }, body: 'name=probe' }), 415, 'unsupported_media_type');
  });

  it('a body nested deeper than 32 levels is 400 invalid_body, before anything recursive walks it (issue 18 item 3)', async () => {
    // 900 levels fit this suite's 2 KiB body limit; system-tests odd-input sends 5,000 to POST /v1/syncs.
    const body = `{"name":"probe","extra":${'['.repeat(900)}${']'.repeat(900)}}`;
    const res = await raw('POST', '/v1/test-errors/body', { headers: json, body });
    expectError(res, 400, 'invalid_body');
    expect(res.headers.get('switchyard-error-detail')).toBe('in=body, reason=too_deep');
    // 32 levels still parse (and fail only on the unknown property).
    const shallow = await raw('POST', '/v1/test-errors/body', { headers: json, body: `{"name":"probe","extra":${'['.repeat(31)}${']'.repeat(31)}}` });
    expect(shallow.headers.get('switchyard-error-detail')).toBe('in=body, name="extra", reason=unknown');
  });

  it('brackets inside strings do not count as nesting', async () => {
    const res = await raw('POST', '/v1/test-errors/body', { headers: json, body: JSON.stringify({ name: '['.repeat(100) }) });
    expectError(res, 400, 'invalid_body');
    expect(res.headers.get('switchyard-error-detail')).toBe('in=body, name="name", reason=out_of_range');
  });

  it.each([
    ['text/plain', 'sent without credentials', 'hello'],
    ['application/json', 'over the size limit', JSON.stringify({ pad: 'x'.repeat(BODY_LIMIT) })],
    ['application/xml', 'sent without credentials', '<a/>'],
  ])('retry and cancel answer a %s body (%s) with 400 invalid_body, as spec 4.1 rule 7 says (issue 18 item 6)', async (type, _label, body) => {
    for (const action of ['retry', 'cancel']) {
      const res = await raw('POST', `/v1/syncs/sync_${'0'.repeat(26)}/${action}`, { headers: { 'content-type': type }, body });
      expectError(res, 400, 'invalid_body');
      expect(res.headers.get('switchyard-error-detail')).toBe('in=body, reason=not_empty');
    }
  });

  it('application/json with a charset is accepted', async () => {
    const res = await raw('POST', '/v1/test-errors/body', { headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"name":"é"}' });
    expect(res.body).toEqual({ received: 'é' });
  });
});

describe('query and path DTOs', () => {
  it('a valid query is converted and passed on', async () => {
    expect((await raw('GET', '/v1/test-errors/query?limit=5')).body).toEqual({ limit: 5 });
    expect((await raw('GET', '/v1/test-errors/query')).body).toEqual({ limit: null });
  });

  it.each([
    ['out of range', 'limit=500'],
    ['not a number', 'limit=abc'],
    ['repeated', 'limit=5&limit=6'],
    ['unknown parameter', 'limt=5'],
  ])('a query %s is 400 invalid_query', async (_label, query) => {
    expectError(await raw('GET', `/v1/test-errors/query?${query}`), 400, 'invalid_query');
  });

  it.each([
    ['limit=500', 'in=query, name="limit", reason=out_of_range'],
    ['limit=abc', 'in=query, name="limit", reason=malformed'],
    ['limit=5&limit=6', 'in=query, name="limit", reason=repeated'],
    ['limt=5', 'in=query, name="limt", reason=unknown'],
    // A name that is not a plain identifier is never echoed.
    ['%22%0D%0Ax-evil=1', 'in=query, reason=unknown'],
  ])('a refused query %s names the parameter in Switchyard-Error-Detail (issue 18 item 9)', async (query, detail) => {
    const res = await raw('GET', `/v1/test-errors/query?${query}`);
    expectError(res, 400, 'invalid_query');
    expect(res.headers.get('switchyard-error-detail')).toBe(detail);
    const line = logLines(gw).find((l) => l.requestId === res.headers.get('x-request-id') && l.msg === 'request');
    expect(line).toMatchObject({ status: 400, error: 'invalid_query', detail });
  });

  it('a path parameter of the wrong format is 400 invalid_path', async () => {
    expectError(await raw('GET', '/v1/test-errors/vehicles/not-a-vehicle'), 400, 'invalid_path');
    const ok = await raw('GET', `/v1/test-errors/vehicles/vcl_0${'A'.repeat(25)}`);
    expect(ok.status).toBe(200);
  });
});

describe('contexts behind the gateway', () => {
  it('a context that is not running is 503 service_unavailable within the RPC deadline, and 200 once it answers', async () => {
    const started = Date.now();
    const down = await raw('GET', '/v1/test-errors/directory-ping');
    expect(Date.now() - started).toBeLessThan(RPC_TIMEOUT_MS + 300);
    expectError(down, 503, 'service_unavailable');
    expect(down.headers.get('retry-after')).toBe(String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));

    let subscription: Subscription | undefined;
    try {
      subscription = gw.bus.serve(RPCS.ping.directory, async () => ({ service: 'directory', instanceId: 'probe', ready: true, version: '0.1.0' }));
      const up = await raw('GET', '/v1/test-errors/directory-ping');
      expect(up.status).toBe(200);
      expect(up.body).toEqual({ service: 'directory', instanceId: 'probe', ready: true, version: '0.1.0' });
    } finally {
      await subscription?.drain();
    }
  });

  it('a context that answers too slowly is 503 at the deadline', async () => {
    const subscription = gw.bus.serve(RPCS.ping.directory, async () => {
      await new Promise((resolve) => setTimeout(resolve, RPC_TIMEOUT_MS * 3));
      return { service: 'directory', instanceId: 'slow', ready: true, version: '0.1.0' };
    });
    try {
      const started = Date.now();
      expectError(await raw('GET', '/v1/test-errors/directory-ping'), 503, 'service_unavailable');
      expect(Date.now() - started).toBeLessThan(RPC_TIMEOUT_MS + 300);
    } finally {
      await subscription.drain({ deadlineMs: RPC_TIMEOUT_MS * 4 });
    }
  });
});

describe('unexpected failures', () => {
  it('a throwing handler is 500 internal_error that reveals nothing, logged once with the request id', async () => {
    const res = await raw('GET', '/v1/test-errors/boom');
    expectError(res, 500, 'internal_error');
    const everything = `${res.text}\n${[...res.headers.entries()].map(([n, v]) => `${n}: ${v}`).join('\n')}`;
    for (const leak of ['select', 'secret', 'Error', 'at ', '.ts', 'stack']) expect(everything).not.toContain(leak);

    const requestId = res.headers.get('x-request-id');
    const errors = logLines(gw).filter((l) => l.level === 'error' || l.level === 'fatal');
    const mine = errors.filter((l) => JSON.stringify(l).includes(requestId!));
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ requestId, msg: 'unexpected error' });
    expect(JSON.stringify(mine[0])).toContain(SQL_MESSAGE);
  });

  it('bad input never produces a 500', async () => {
    const lines = logLines(gw).length;
    for (const [method, path, body, type] of [
      ['POST', '/v1/test-errors/body', '\u0000\u0001', 'application/json'],
      ['POST', '/v1/test-errors/body', '{"name":"' + '\\ud800' + '"}', 'application/json'],
      ['POST', '/v1/test-errors/body', '{"name":1e999}', 'application/json'],
      ['GET', '/v1/test-errors/query?limit[]=1', undefined, undefined],
      ['GET', '/v1/test-errors/query?cursor=%00', undefined, undefined],
      ['GET', `/v1/connections/${'%20'.repeat(40)}`, undefined, undefined],
    ] as const) {
      const res = await raw(method, path, { body, headers: { ...bearer(key), ...(type ? { 'content-type': type } : {}) } });
      expect([200, 201, 400, 404]).toContain(res.status);
      if (res.status >= 400) expect(Object.keys(res.body as object)).toEqual(['error']);
    }
    expect(logLines(gw).slice(lines).filter((l) => l.level === 'error')).toEqual([]);
  });
});

describe('request ids', () => {
  it('echoes a valid caller id', async () => {
    const res = await gw.call('GET', '/v1/catalog', { headers: { ...bearer(key), 'x-request-id': 'client-42.a:b_c' } });
    expect(res.headers.get('x-request-id')).toBe('client-42.a:b_c');
  });

  it.each([
    ['300 characters', 'r'.repeat(300)],
    ['spaces', 'has some spaces'],
    ['a quote', 'abc"def'],
  ])('replaces a caller id with %s by a fresh uuid', async (_label, id) => {
    const res = await gw.call('GET', '/v1/catalog', { headers: { ...bearer(key), 'x-request-id': id } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('every error carries an id, and two requests never share one', async () => {
    const a = await gw.call('GET', '/v1/catalog', {});
    const b = await gw.call('GET', '/v1/catalog', {});
    expectError(a, 401, 'unauthorized');
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });
});
