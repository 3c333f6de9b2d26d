import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createResponseValidator, type OpenApiDocument } from './openapi-validator.js';
import { fetchValidated } from './validated-fetch.js';

const doc: OpenApiDocument = {
  openapi: '3.1.0',
  info: { title: 'test', version: '1' },
  paths: {
    '/items/{id}': {
      get: {
        responses: {
          '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object', required: ['id'], properties: { id: { type: 'string' } }, additionalProperties: false } } } },
        },
      },
    },
  },
};
const validator = createResponseValidator(doc);

let server: Server;
let baseUrl: string;

beforeAll(async () => {
  // /items/ok answers a documented body, /items/bad one the schema refuses, anything else plain text.
  server = createServer((req, res) => {
    if (req.url?.startsWith('/items/')) {
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.end(JSON.stringify(req.url.startsWith('/items/ok') ? { id: 'ok' } : { id: 'bad', extra: true }));
    } else {
      res.setHeader('content-type', 'text/plain');
      res.end('pong');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('fetchValidated', () => {
  it('returns the status, the parsed JSON body and its text when the response matches the document', async () => {
    const res = await fetchValidated(validator, baseUrl, 'GET', '/items/ok?verbose=1');
    expect({ status: res.status, body: res.body, text: res.text }).toEqual({ status: 200, body: { id: 'ok' }, text: '{"id":"ok"}' });
  });

  it('throws when the response does not match the document', async () => {
    await expect(fetchValidated(validator, baseUrl, 'GET', '/items/bad')).rejects.toThrow(/does not match the OpenAPI document/);
  });

  it('keeps a non-JSON body as text and skips the check when told to', async () => {
    const res = await fetchValidated(validator, baseUrl, 'GET', '/ping', { validate: false });
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: 'pong' });
    await expect(fetchValidated(validator, baseUrl, 'GET', '/ping')).rejects.toThrow(/does not match the OpenAPI document/);
  });
});
