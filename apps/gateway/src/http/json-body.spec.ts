/**
 * Read bodies forwarded as bytes (json-body.ts): the JSON text a context produced is copied into
 * the answer unparsed, the gateway's own members serialized around it, and RESPONSE_VALIDATION
 * decides which bodies are held to their schema.
 * Mutations tried: making `check` return at once fails "all: a body outside its schema"; checking
 * every body under `sample` fails "sample: one body in SAMPLE_EVERY".
 */
import { describe, expect, it } from '@jest/globals';
import type { CallHandler, ExecutionContext } from '@nestjs/common';
import type { Logger } from '@switchyard/service-kit';
import { lastValueFrom, of } from 'rxjs';
import { z } from 'zod';
import { jsonObject, JsonBody, JsonBodyInterceptor, raw, SAMPLE_EVERY, type ResponseValidation } from './json-body.js';

const page = z.object({ items: z.array(z.object({ n: z.number() }).strict()), next: z.string().optional(), hasMore: z.boolean() }).strict();

function harness(mode: ResponseValidation) {
  const errors: unknown[] = [];
  const headers: Record<string, string> = {};
  const logger = { error: (o: unknown) => errors.push(o) } as unknown as Logger;
  const context = {
    switchToHttp: () => ({ getResponse: () => ({ header: (k: string, v: string) => (headers[k] = v) }), getRequest: () => ({ routeOptions: { url: '/v1/x' }, method: 'GET' }) }),
  } as unknown as ExecutionContext;
  const interceptor = new JsonBodyInterceptor(mode, logger);
  const send = (body: unknown) => lastValueFrom(interceptor.intercept(context, { handle: () => of(body) } as CallHandler));
  return { errors, headers, send };
}

const good = () => jsonObject(page, { items: raw('[{"n":1},{"n":2}]'), next: undefined, hasMore: false });
const bad = () => jsonObject(page, { items: raw(new TextEncoder().encode('[{"n":"one"}]')), hasMore: false });

describe('read bodies as bytes', () => {
  it('copies raw JSON text as it is, serializes the other members and leaves undefined ones out', () => {
    expect(good().bytes.toString('utf8')).toBe('{"items":[{"n":1},{"n":2}],"hasMore":false}');
    expect(jsonObject(page, {}).bytes.toString('utf8')).toBe('{}');
  });

  it('sends the bytes as application/json; other answers pass untouched', async () => {
    const h = harness('off');
    const body = good();
    expect(await h.send(body)).toBe(body.bytes);
    expect(h.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(await h.send({ plain: true })).toEqual({ plain: true });
  });

  it('all: a body outside its schema is logged and never served (the error filter answers 500)', async () => {
    const h = harness('all');
    await expect(h.send(bad())).rejects.toThrow(/outside its schema/);
    expect(h.errors).toHaveLength(1);
    expect(await h.send(good())).toBeInstanceOf(Buffer);
  });

  it('sample: one body in SAMPLE_EVERY is checked, a violation logged and still served; off checks none', async () => {
    const h = harness('sample');
    for (let i = 0; i < SAMPLE_EVERY * 2; i++) expect(await h.send(bad())).toBeInstanceOf(Buffer);
    expect(h.errors).toHaveLength(2);
    const off = harness('off');
    for (let i = 0; i < SAMPLE_EVERY; i++) await off.send(bad());
    expect(off.errors).toHaveLength(0);
    expect(bad()).toBeInstanceOf(JsonBody);
  });
});
