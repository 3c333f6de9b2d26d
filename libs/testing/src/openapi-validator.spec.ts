import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createResponseValidator, expectValidResponse, loadOpenApi, type OpenApiDocument } from './openapi-validator.js';

const doc: OpenApiDocument = {
  openapi: '3.1.0',
  info: { title: 'test', version: '1' },
  paths: {
    '/v1/connections/{id}': {
      get: {
        responses: {
          '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Connection' } } } },
          '4XX': { description: 'client error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        },
      },
      delete: { responses: { '204': { description: 'gone' } } },
    },
    '/v1/connections/search': {
      get: { responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Connection' } } } } } } },
    },
    '/v1/health': { get: { responses: { default: { description: 'any', content: { 'text/plain': { schema: { type: 'string' } } } } } } },
  },
  components: {
    schemas: {
      Connection: {
        type: 'object',
        required: ['id', 'provider', 'lastSyncAt'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', format: 'uuid' },
          provider: { $ref: '#/components/schemas/Provider' },
          lastSyncAt: { type: ['string', 'null'], format: 'date-time' },
          vehicleCount: { type: 'integer', format: 'int32' },
        },
      },
      Provider: { type: 'string', enum: ['samsara', 'motive', 'geotab'] },
      Error: { type: 'object', required: ['error'], properties: { error: { type: 'object', required: ['code'], properties: { code: { type: 'string' } } } } },
    },
  },
};

const validator = createResponseValidator(doc);
const connection = { id: '6f1c1c9e-64c4-4a36-9b8e-1f3e0d0c2a11', provider: 'motive', lastSyncAt: null };

describe('createResponseValidator', () => {
  it('accepts a body that matches a $ref schema, with a nullable field set to null and to a value', () => {
    expect(validator.validate({ method: 'GET', path: '/v1/connections/abc?expand=1', status: 200, body: connection })).toEqual([]);
    expect(validator.validate({ method: 'get', path: '/v1/connections/abc', status: 200, body: { ...connection, lastSyncAt: '2026-01-01T00:00:00Z' } })).toEqual([]);
  });

  it('reports body mismatches with the JSON path, including nested refs and formats', () => {
    const errors = validator.validate({ method: 'GET', path: '/v1/connections/abc', status: 200, body: { ...connection, provider: 'teletrac', lastSyncAt: 'yesterday', extra: 1 } });
    expect(errors).toHaveLength(3);
    expect(errors.join('\n')).toContain('body/provider must be equal to one of the allowed values');
    expect(errors.join('\n')).toContain('body/lastSyncAt must match format "date-time"');
    expect(errors.join('\n')).toContain('must NOT have additional properties ("extra")');
  });

  it('checks OpenAPI int32 ranges', () => {
    expect(validator.validate({ method: 'GET', path: '/v1/connections/abc', status: 200, body: { ...connection, vehicleCount: 2 ** 31 } })[0]).toContain('body/vehicleCount must match format "int32"');
  });

  it('prefers literal path segments over templated ones', () => {
    expect(validator.validate({ method: 'GET', path: '/v1/connections/search', status: 200, body: [connection] })).toEqual([]);
    expect(validator.validate({ method: 'GET', path: '/v1/connections/search', status: 200, body: connection })[0]).toContain('body must be array');
  });

  it('matches status ranges and default responses, and parses JSON text bodies', () => {
    expect(validator.validate({ method: 'GET', path: '/v1/connections/x', status: 404, body: '{"error":{"code":"not_found"}}', contentType: 'application/json; charset=utf-8' })).toEqual([]);
    expect(validator.validate({ method: 'GET', path: '/v1/health', status: 503, body: 'down', contentType: 'text/plain' })).toEqual([]);
  });

  it('fails undocumented statuses, methods, paths and content types', () => {
    expect(validator.validate({ method: 'GET', path: '/v1/connections/x', status: 500, body: {} })[0]).toMatch(/status 500 not documented for GET \/v1\/connections\/\{id\} \(documented: 200, 4XX\)/);
    expect(validator.validate({ method: 'PATCH', path: '/v1/connections/x', status: 200, body: {} })[0]).toContain('method not documented for /v1/connections/{id} (documented: get, delete)');
    expect(validator.validate({ method: 'GET', path: '/v1/vehicles', status: 200, body: [] })[0]).toContain('no documented path matches "/v1/vehicles"');
    expect(validator.validate({ method: 'GET', path: '/v1/connections/x', status: 200, body: connection, contentType: 'text/html' })[0]).toContain('content type "text/html" not documented');
  });

  it('checks bodies against responses that document none, and the reverse', () => {
    expect(validator.validate({ method: 'DELETE', path: '/v1/connections/x', status: 204 })).toEqual([]);
    expect(validator.validate({ method: 'DELETE', path: '/v1/connections/x', status: 204, body: { ok: true } })[0]).toContain('documents no body');
    expect(validator.validate({ method: 'GET', path: '/v1/connections/x', status: 200, body: '' })[0]).toContain('but none was sent');
  });
});

describe('expectValidResponse', () => {
  it('throws one message listing every problem, and passes silently on a valid response', () => {
    const thrown = (() => {
      try {
        expectValidResponse(validator, { method: 'GET', path: '/v1/connections/x', status: 200, body: { id: 'nope' } });
      } catch (error) {
        return (error as Error).message;
      }
      return 'did not throw';
    })();
    expect(thrown.split('\n')).toEqual([
      'Response does not match the OpenAPI document:',
      "  - GET /v1/connections/x → 200: body must have required property 'provider' [schema #/required]",
      "  - GET /v1/connections/x → 200: body must have required property 'lastSyncAt' [schema #/required]",
      '  - GET /v1/connections/x → 200: body/id must match format "uuid" [schema #/properties/id/format]',
    ]);
    expect(() => expectValidResponse(validator, { method: 'GET', path: '/v1/connections/x', status: 200, body: connection })).not.toThrow();
  });
});

describe('loadOpenApi', () => {
  it('reads a 3.1 document and refuses a 3.0 one', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'openapi-'));
    writeFileSync(path.join(dir, 'ok.json'), JSON.stringify(doc));
    writeFileSync(path.join(dir, 'old.json'), JSON.stringify({ ...doc, openapi: '3.0.3' }));
    expect(loadOpenApi(path.join(dir, 'ok.json')).paths).toHaveProperty(['/v1/health']);
    expect(() => loadOpenApi(path.join(dir, 'old.json'))).toThrow('expected an OpenAPI 3.1 document');
  });
});
