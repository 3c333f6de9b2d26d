/**
 * The committed OpenAPI document is the contract every other suite validates against, so it must
 * be exactly what the code generates (spec 9: OpenAPI 3.1.0, description version 1.16.0) and state
 * the error and security facts of spec 5 and 7 for every operation. The running gateway serves the
 * same document at /openapi.json and a reference page at /docs that loads nothing from elsewhere.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { CATALOG_ENDPOINTS, CONTRACT_ENDPOINT_KEYS, isErrorCode, statusOf, type ErrorCode } from '@switchyard/contracts';
import { ID_PATTERNS } from '@switchyard/domain';
import { defaultOpenApiPath } from '@switchyard/testing';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { ApiOkResponse, ApiProperty } from '@nestjs/swagger';
import { WEBHOOK_EVENT_TYPES } from '@switchyard/messaging';
import { ADDITION_PREFIX } from '../src/openapi/addition.js';
import { buildOpenApiDocument, renderOpenApi, routeTableOf } from '../src/index.js';
import { startTestGateway, type TestGateway } from './support.js';

interface Operation {
  operationId?: string;
  description?: string;
  security?: Record<string, string[]>[];
  responses: Record<string, { description?: string; content?: Record<string, { schema?: { $ref?: string } }> }>;
}
interface Document {
  openapi: string;
  info: { version: string; title: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Record<string, unknown>>; securitySchemes: Record<string, Record<string, unknown>> };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const committedText = readFileSync(defaultOpenApiPath(), 'utf8');
const doc = JSON.parse(committedText) as Document;
const everyOperation = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => METHODS.includes(method))
    .map(([method, op]) => ({ label: `${method.toUpperCase()} ${path}`, path, op })),
);
/** Operations beyond the contract's 36 (the webhook endpoints, data freshness): marked, and said so in their descriptions. */
const isAddition = (op: Operation) => (op as { 'x-switchyard-addition'?: boolean })['x-switchyard-addition'] === true;
const additions = everyOperation.filter((o) => isAddition(o.op));
/** The contract's operations (CONTRACT_ENDPOINT_KEYS). */
const operations = everyOperation.filter((o) => !isAddition(o.op));
/** What the catalog's table lists: the contract's operations and the additions it lists (data freshness). */
const catalogued = everyOperation.filter((o) => o.label in CATALOG_ENDPOINTS);

describe('committed document', () => {
  it('equals what the code renders, byte for byte', async () => {
    const rendered = await renderOpenApi();
    if (rendered !== committedText) throw new Error('openapi/openapi.json is stale: run npm run openapi');
    expect(rendered).toBe(committedText);
  });

  it('is OpenAPI 3.1.0 with description version 1.16.0 (spec 9)', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.16.0');
  });

  it('declares both credential schemes of spec 5 as HTTP bearer', () => {
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['applicationSecret', 'consumerKey']);
    for (const scheme of Object.values(doc.components.securitySchemes)) expect(scheme).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('declares the error body as exactly one required string field', () => {
    const errorBody = doc.components.schemas.ErrorBody!;
    expect(errorBody).toMatchObject({ type: 'object', required: ['error'], additionalProperties: false });
    expect(Object.keys(errorBody.properties as object)).toEqual(['error']);
    expect((errorBody.properties as { error: { type: string } }).error.type).toBe('string');
  });

  it('has exactly the operations the catalog marks served (releaseStatus preview)', () => {
    // The catalog's endpoint table is the one statement of what this release serves (spec 9).
    const served = Object.entries(CATALOG_ENDPOINTS).filter(([, e]) => e.releaseStatus === 'preview').map(([key]) => key);
    expect(catalogued.map((o) => o.label).sort()).toEqual(served.sort());
    expect(operations.map((o) => o.label).sort()).toEqual([...CONTRACT_ENDPOINT_KEYS].sort());
  });

  it.each(catalogued)('$label: the catalog names the credentials the operation declares', ({ label, op }) => {
    const entry = CATALOG_ENDPOINTS[label]!;
    const schemes = (op.security ?? []).flatMap((r) => Object.keys(r));
    const headers = ((op as { parameters?: { name: string; in: string; required?: boolean }[] }).parameters ?? []).filter((p) => p.in === 'header' && p.required).map((p) => p.name);
    const declared = schemes.includes('applicationSecret') ? (headers.includes('Connection-Token') ? 'application_secret_and_connection_token' : 'application_secret') : 'consumer_key';
    expect({ label, auth: entry.auth, schemes }).toEqual({ label, auth: declared, schemes: [declared === 'consumer_key' ? 'consumerKey' : 'applicationSecret'] });
  });

  it('marks every operation beyond the contract as an addition, in its description too, and changes none of the 36', () => {
    expect(operations).toHaveLength(36);
    expect(additions.map((o) => o.label).sort()).toEqual([
      'DELETE /v1/webhooks/endpoints/{endpointId}',
      'GET /v1/connections/{id}/freshness',
      'GET /v1/webhooks/endpoints',
      'GET /v1/webhooks/endpoints/{endpointId}',
      'GET /v1/webhooks/endpoints/{endpointId}/messages',
      'PATCH /v1/webhooks/endpoints/{endpointId}',
      'POST /v1/webhooks/endpoints',
      'POST /v1/webhooks/endpoints/{endpointId}/replay',
      'POST /v1/webhooks/endpoints/{endpointId}/rotate-secret',
    ]);
    for (const { label, op } of additions) {
      expect({ label, description: op.description?.startsWith(ADDITION_PREFIX) }).toEqual({ label, description: true });
      // The webhook endpoints are the application's (its secret alone); the freshness read is a connection's (the catalog's consumer key).
      expect({ label, schemes: (op.security ?? []).flatMap((r) => Object.keys(r)) }).toEqual({ label, schemes: [label.startsWith('GET /v1/connections/') ? 'consumerKey' : 'applicationSecret'] });
    }
    // Outbound: one POST per event type, its CloudEvents body by $ref.
    const webhooks = (doc as unknown as { webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: { $ref: string } }> } } }> }).webhooks;
    expect(Object.keys(webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    for (const item of Object.values(webhooks)) expect(doc.components.schemas).toHaveProperty([item.post.requestBody.content['application/cloudevents+json']!.schema.$ref.split('/').pop()!]);
    expect(webhooks['fault.opened']!.post.requestBody.content['application/cloudevents+json']!.schema.$ref).toBe('#/components/schemas/WebhookFaultEvent');
  });

  it.each(everyOperation)('$label: under /v1, secured, 401 documented, every failure an ErrorBody, success described', ({ path, op }) => {
    expect(path.startsWith('/v1/')).toBe(true);
    expect(op.security?.length).toBeGreaterThan(0);
    for (const requirement of op.security!) for (const name of Object.keys(requirement)) expect(doc.components.securitySchemes).toHaveProperty(name);
    expect(op.responses).toHaveProperty('401');
    expect(op.operationId).toMatch(/^[a-z][A-Za-z]+$/);
    for (const [status, response] of Object.entries(op.responses)) {
      expect(response.description?.trim()).toBeTruthy();
      if (status.startsWith('2')) continue;
      // A conditional GET's 304 has no body (services/response-encoding.ts).
      if (status === '304') {
        expect(response.content).toBeUndefined();
        continue;
      }
      expect(Object.keys(response.content ?? {})).toEqual(['application/json']);
      expect(response.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/ErrorBody' });
    }
  });

  it('documents every stored read\'s expand as a comma-separated list of the values its controller accepts', () => {
    const allowed: Record<string, string[]> = {
      '/v1/connections/{id}/trips': ['vehicle', 'driver'],
      '/v1/connections/{id}/trips/{tripId}': ['vehicle', 'driver'],
      '/v1/connections/{id}/drivers': ['groups'],
      '/v1/connections/{id}/drivers/{driverId}': ['groups'],
      '/v1/connections/{id}/groups': ['parent'],
      '/v1/connections/{id}/groups/{groupId}': ['parent'],
      '/v1/connections/{id}/vehicles': ['groups'],
      '/v1/connections/{id}/vehicles/{vehicleId}': ['groups'],
    };
    const documented: Record<string, unknown> = {};
    for (const { path, op } of operations) {
      const expand = (op as { parameters?: { name: string; in: string }[] }).parameters?.find((p) => p.in === 'query' && p.name === 'expand');
      if (expand && path.startsWith('/v1/connections/')) documented[path] = expand;
    }
    expect(Object.keys(documented).sort()).toEqual(Object.keys(allowed).sort());
    for (const [path, values] of Object.entries(allowed)) {
      expect({ path, parameter: documented[path] }).toEqual({
        path,
        parameter: expect.objectContaining({ required: false, style: 'form', explode: false, schema: { type: 'array', minItems: 1, items: { type: 'string', enum: values } } }),
      });
    }
  });

  it('types each stored-read id in a path with its spec 2.1 pattern', () => {
    const patterns: Record<string, string> = { tripId: ID_PATTERNS.trip, driverId: ID_PATTERNS.driver, groupId: ID_PATTERNS.group, vehicleId: ID_PATTERNS.vehicle };
    const seen = new Set<string>();
    for (const { op } of operations) {
      for (const p of (op as { parameters?: { name: string; in: string; schema?: { pattern?: string } }[] }).parameters ?? []) {
        if (p.in !== 'path' || !(p.name in patterns)) continue;
        expect({ name: p.name, pattern: p.schema?.pattern }).toEqual({ name: p.name, pattern: patterns[p.name] });
        seen.add(p.name);
      }
    }
    expect([...seen].sort()).toEqual(Object.keys(patterns).sort());
  });

  it('every path starts with /v1', () => {
    for (const path of Object.keys(doc.paths)) expect(path).toMatch(/^\/v1\//);
  });

  it('every $ref resolves', () => {
    const refs = [...committedText.matchAll(/"\$ref": "#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const name of new Set(refs)) expect(doc.components.schemas).toHaveProperty([name]);
  });
});

/**
 * The document is generated from our DTOs, so a DTO that drifts from the spec passes every suite that
 * validates against it. These pin the letter of the spec on the sync, catalog and connection routes:
 * required lists (2.8, 2.11, 2.12), enums, the list limit (4.1 rule 6), and per route the statuses
 * and reason codes (4.1, 5, 7), each code under the status the contracts table gives it.
 */
describe('the letter of the spec on the sync, catalog and connection routes', () => {
  const schema = (name: string) => doc.components.schemas[name] as { required?: string[]; properties: Record<string, Record<string, unknown>> };
  const requiredOf = (name: string) => [...(schema(name).required ?? [])].sort();

  it.each([
    // 2.11: Sync requires id, status, requestedAt; the rest is optional.
    ['Sync', ['id', 'status', 'requestedAt']],
    ['SyncControl', ['id', 'message']],
    // 2.8: id, customer_id, provider; the health fields optional. `status` is ours (the spec leaves Connection open).
    ['Connection', ['id', 'customer_id', 'provider', 'status']],
    ['Capabilities', ['id', 'adapterVersion', 'fields', 'faultModel', 'vehicleMetadata', 'groupInventory']],
    // 2.3: optInConfig, defaultEnabled and the 15-key fields object.
    ['VehicleMetadataCapability', ['optInConfig', 'defaultEnabled', 'fields']],
    // 2.2: "All fields are required".
    ['GroupInventoryCapability', ['optInConfig', 'defaultEnabled', 'selection', 'maxGroupIds', 'parentResolution', 'raw', 'sourceTimestamps']],
    // 2.12: releaseStatus, reviewedAt, faults and limits optional.
    ['Catalog', ['apiVersion', 'catalogVersion', 'fields', 'endpoints', 'roadmap', 'enrichment', 'driverDirectory', 'tripHistory', 'vehicleProfiles', 'vehicleMetadata', 'groupInventory', 'groupDirectory']],
    ['CatalogTripHistory', ['releaseStatus', 'authorization', 'coverage', 'retrieval', 'units', 'maxPageSize', 'maxFilterIds', 'responseByteLimit', 'gaps']],
    ['CatalogVehicleProfiles', ['releaseStatus', 'authorization', 'query', 'visibility', 'groupRelationships', 'retrieval', 'selection', 'maxPageSize', 'responseByteLimit', 'gaps']],
    [
      'CatalogGroupDirectory',
      ['releaseStatus', 'enablement', 'query', 'identity', 'pagination', 'relations', 'consistency', 'deletionEvidence', 'maxRows', 'maxReferences', 'projectedByteLimit', 'responseByteLimit', 'gaps'],
    ],
  ])('%s requires exactly what the spec requires', (name, required) => {
    expect(requiredOf(name)).toEqual([...required].sort());
  });

  it('states the enums, closed shapes and nullability of 2.8 and 2.11', () => {
    expect(schema('Sync').properties.status!.enum).toEqual(['requested', 'in_progress', 'completed', 'failed']);
    expect(schema('Sync').properties.providerRequests).toMatchObject({ maxItems: 0, items: { enum: ['historical_files', 'provision_credentials'] } });
    expect(schema('Sync').properties.issues).toMatchObject({ maxItems: 0, items: { type: 'string' } });
    expect(schema('SyncControl').properties.message!.enum).toEqual(['Sync retry requested', 'Sync cancellation requested']);
    for (const name of ['Sync', 'SyncControl']) expect(schema(name)).toMatchObject({ additionalProperties: false });
    expect(schema('Capabilities').properties.faultModel!.enum).toEqual(['complete_snapshot', 'explicit_records']);
    expect(schema('Capabilities').properties.collection!.enum).toEqual(['native_feed', 'poll']);
    expect(schema('Capabilities').properties.fields!.additionalProperties).toMatchObject({ enum: ['supported', 'conditional', 'unsupported'] });
    for (const field of ['last_success_at', 'last_error_code', 'extended_last_success_at', 'extended_last_error_code', 'extended_next_retry_at']) {
      expect({ field, type: schema('Connection').properties[field]!.type }).toEqual({ field, type: ['string', 'null'] });
    }
    const limit = (doc.paths['/v1/syncs']!.get as unknown as { parameters: { name: string; schema: unknown }[] }).parameters.find((p) => p.name === 'limit');
    expect(limit?.schema).toEqual({ type: 'integer', minimum: 1, maximum: 100, default: 25 });
  });

  // Every operation can answer these because of how the request arrives (openapi/request-errors.ts).
  const TRANSPORT = { 408: ['request_timeout'], 431: ['headers_too_large'] };
  // Every authenticated /v1 route takes a token of its credential's request-rate bucket (auth.service.ts).
  const RATE = { 429: ['rate_limited'] };
  const APP = { ...TRANSPORT, ...RATE, 401: ['unauthorized'], 403: ['connection_forbidden', 'operation_forbidden'], 500: ['internal_error'] };
  // Every /v1 route without query parameters refuses any (http/undeclared-query.interceptor.ts).
  const KEY = { ...TRANSPORT, ...RATE, 400: ['invalid_query', 'malformed_request'], 401: ['unauthorized'], 404: ['not_found'], 500: ['internal_error'], 503: ['service_unavailable'] };
  const ROUTES: [string, string, Record<number, string[]>][] = [
    [
      'POST',
      '/v1/syncs',
      {
        ...APP,
        201: [],
        400: ['invalid_body', 'conflicting_selectors', 'empty_interval', 'invalid_query', 'malformed_request'],
        403: ['connection_forbidden', 'operation_forbidden', 'history_forbidden'],
        409: ['provider_requests_not_supported', 'unsupported_purpose', 'empty_selection', 'too_many_open_syncs'],
        413: ['payload_too_large'],
        415: ['unsupported_media_type'],
        422: ['sync_plan_too_large'],
        503: ['gate_disabled', 'service_unavailable'],
      },
    ],
    ['GET', '/v1/syncs', { ...APP, 200: [], 400: ['invalid_query', 'invalid_cursor', 'malformed_request'], 503: ['service_unavailable'] }],
    ['GET', '/v1/syncs/{id}', { ...APP, 200: [], 400: ['invalid_query', 'malformed_request'], 404: ['not_found'], 503: ['service_unavailable'] }],
    ['POST', '/v1/syncs/{id}/retry', { ...APP, 200: [], 400: ['invalid_body', 'invalid_query', 'malformed_request'], 404: ['not_found'], 409: ['too_many_open_syncs'], 422: ['sync_state_conflict'], 503: ['gate_disabled', 'service_unavailable'] }],
    ['POST', '/v1/syncs/{id}/cancel', { ...APP, 200: [], 400: ['invalid_body', 'invalid_query', 'malformed_request'], 404: ['not_found'], 422: ['sync_state_conflict'], 503: ['service_unavailable'] }],
    ['GET', '/v1/catalog', { ...TRANSPORT, ...RATE, 200: [], 400: ['invalid_query', 'malformed_request'], 401: ['unauthorized'], 500: ['internal_error'], 503: ['service_unavailable'] }],
    ['GET', '/v1/connections/{id}', { ...KEY, 200: [] }],
    ['GET', '/v1/connections/{id}/capabilities', { ...KEY, 200: [] }],
  ];

  it.each(ROUTES)('%s %s documents exactly its statuses and reason codes, each under its own status', (method, path, expected) => {
    const op = doc.paths[path]![method.toLowerCase()]!;
    // A conditional GET's 304 (no body, no reason code) is pinned by response-encoding.int-spec.ts.
    const documented = Object.fromEntries(
      Object.entries(op.responses)
        .filter(([status]) => status !== '304')
        .map(([status, response]) => [
        status,
        [...new Set([...(response.description ?? '').matchAll(/`([a-z][a-z0-9_]*)`/g)].map((m) => m[1]!).filter((code) => isErrorCode(code)))].sort(),
      ]),
    );
    expect(documented).toEqual(Object.fromEntries(Object.entries(expected).map(([status, codes]) => [status, [...codes].sort()])));
    for (const [status, codes] of Object.entries(documented)) for (const code of codes) expect({ code, status: statusOf(code as ErrorCode) }).toEqual({ code, status: Number(status) });
  });
});

describe('building', () => {
  class UndescribedDto {
    @ApiProperty() value!: string;
  }
  @Controller('v1/undescribed')
  class UndescribedController {
    @Get()
    @ApiOkResponse({ type: UndescribedDto })
    get() {
      return { value: 'x' };
    }
  }
  @Module({ controllers: [UndescribedController] })
  class UndescribedModule {}

  it('refuses to render a success response without a description; the running gateway falls back', async () => {
    const app = await NestFactory.create(UndescribedModule, new FastifyAdapter(), { preview: true, logger: false });
    try {
      expect(() => buildOpenApiDocument(app, { strict: true })).toThrow('GET /v1/undescribed: response 200 has no description');
      expect(buildOpenApiDocument(app).paths['/v1/undescribed']?.get?.responses['200']).toMatchObject({ description: 'Success.' });
    } finally {
      await app.close();
    }
  });
});

describe('served by the gateway', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(async () => {
    await gw?.close();
  });

  /**
   * Walks the routes Fastify registered (not the document) and checks each is documented with every
   * status its kind of route can answer: the transport ones every route can (400 `malformed_request`,
   * 408, 431, 500, 503), 401 (every /v1 route is authenticated), 403 on the sync routes (APP auth),
   * 404 where a path names a resource, 400 `invalid_path` where the path holds an entity id, 413/415
   * where a body is read and 400 `invalid_body` where a POST takes none (which must then be a
   * NO_BODY_ROUTE, so a non-JSON or oversized body is that 400 too); every 400 with the
   * Switchyard-Error-Detail header. Mutation: drop `documentRequestErrors` from document.ts and
   * this fails (408/431/413/415 and the header go missing).
   */
  it('every registered /v1 route documents every status its kind of route can answer', () => {
    const table = routeTableOf(gw.service.app.getHttpAdapter().getInstance() as object);
    expect(table).toBeDefined();
    const problems: string[] = [];
    const routes = table!.routes().filter((r) => r.url.startsWith('/v1/') && r.method !== 'HEAD');
    expect(routes.length).toBeGreaterThanOrEqual(operations.length);
    for (const { method, url, config } of routes) {
      const path = url.replace(/:([A-Za-z]+)/g, '{$1}');
      const label = `${method} ${path}`;
      const op = doc.paths[path]?.[method.toLowerCase()] as (Operation & { requestBody?: unknown; responses: Record<string, { headers?: Record<string, unknown> }> }) | undefined;
      if (!op) {
        problems.push(`${label}: registered but not documented`);
        continue;
      }
      const statuses = ['400', '401', '408', '431', '500', '503'];
      if (path.startsWith('/v1/syncs')) statuses.push('403');
      if (/\{[A-Za-z]+\}/.test(path)) statuses.push('404');
      if (op.requestBody !== undefined) statuses.push('413', '415');
      // A POST documented without a body must be a no-body route, whose 413/415 become its 400 invalid_body.
      if (method === 'POST' && op.requestBody === undefined && (config as { body?: unknown } | undefined)?.body !== 'none') problems.push(`${label}: takes no body but is not @RouteConfig(NO_BODY_ROUTE)`);
      for (const status of statuses) if (!op.responses[status]) problems.push(`${label}: ${status} not documented`);
      const bad = op.responses['400'];
      const codes = ['invalid_query', 'malformed_request'];
      if (/\{(tripId|driverId|groupId|vehicleId)\}/.test(path)) codes.push('invalid_path');
      if (method === 'POST') codes.push('invalid_body');
      for (const code of codes) if (!bad?.description?.includes(`\`${code}\``)) problems.push(`${label}: 400 does not name ${code}`);
      if (!bad?.headers?.['Switchyard-Error-Detail']) problems.push(`${label}: 400 without the Switchyard-Error-Detail header`);
    }
    expect(problems).toEqual([]);
    expect((doc.components as { headers?: Record<string, unknown> }).headers?.ErrorDetail).toMatchObject({ schema: { type: 'string' } });
  });

  it('GET /openapi.json serves the committed document', async () => {
    const res = await fetch(`${gw.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual(doc);
  });

  it('GET /docs is an HTML page whose scripts and stylesheets all come from this server', async () => {
    const res = await fetch(`${gw.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    const assets = [...html.matchAll(/<(?:script|link)\b[^>]*?\s(?:src|href)=["']([^"']+)["']/gi)].map((m) => m[1]!);
    expect(assets.some((a) => a.endsWith('.js'))).toBe(true);
    expect(assets.some((a) => a.endsWith('.css'))).toBe(true);
    for (const asset of assets) {
      expect(asset).not.toMatch(/^(?:[a-z]+:)?\/\//i);
      const loaded = await fetch(new URL(asset, `${gw.url}/docs`));
      // Read the body: an unread response keeps its socket busy and delays the server's close.
      const bytes = (await loaded.arrayBuffer()).byteLength;
      expect({ asset, status: loaded.status, empty: bytes === 0 }).toEqual({ asset, status: 200, empty: false });
    }
    expect(html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1|localhost)[^"'\s)]+\.(?:js|css)/i);
  });
});
